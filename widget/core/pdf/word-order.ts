/**
 * Repairs the word order of Hebrew lines that a PDF parser of others handed over out of order.
 * Parsed without a bidi pass, a Hebrew line that holds a number or a clause number comes out in
 * pieces: each Hebrew run keeps its own order, but the runs around the left-to-right tokens are
 * in visual order ("ומעלה 21 מגיל" for "מגיל 21 ומעלה"), or a clause label sits away from its words
 * ("השתתפות עצמית .6.1.6" for ".6.1.6 השתתפות עצמית"); a table's rows read backwards, cell by cell
 * and word by word. Measured on the Harel corpus against the project's own parse of the same PDFs
 * (builder/eval/reading-order.ts).
 *
 * So a clause label moves first by rule, and the runs of a line (or a whole table) are turned
 * where a word-bigram model of the corpus's own text reads them clearly better than as they are.
 * The model learns from text whose order can be trusted: whole lines of web pages and Hebrew-only
 * lines, and, from lines with numbers, only the bigrams inside a run (the parse keeps those).
 * Lines without a left-to-right run are never changed. Written here rather than taken from a
 * library: no bidi library reorders text that was already reordered wrongly, and the model is a
 * few counts.
 */

const HEB = '\u05D0-\u05EA';
const HEB_LETTER = new RegExp(`[${HEB}]`);
const LTR_CHAR = /[A-Za-z0-9]/;
/** A left-to-right token: digits or Latin letters, with the punctuation that sits inside one (1,000 6.1.2 03-9208040 50%). */
const LTR_RUN = /[A-Za-z0-9₪$€%]+(?:[.,:/\-–][A-Za-z0-9₪$€%]+)*/g;
const BOS = '<s>';
const EOS = '</s>';
/** Pieces that end a sentence or a label: the model learns where they sit. */
const END_MARK = /[.:;]$/;

/** Bigram counts over the corpus's trusted text; build with `countDocumentLine`. */
export interface WordOrderCounts {
  bigrams: Map<string, number>;
  /** How often each token starts a counted bigram. */
  heads: Map<string, number>;
  unigrams: Map<string, number>;
  tokens: number;
}

export function createWordOrderCounts(): WordOrderCounts {
  return { bigrams: new Map(), heads: new Map(), unigrams: new Map(), tokens: 0 };
}

/** What `repairWordOrder` did to a line. */
export type WordOrderRepair = 'none' | 'label-first' | 'runs-reversed';

export interface WordOrderResult {
  text: string;
  repair: WordOrderRepair;
}

export interface WordOrderOptions {
  /**
   * How much better (natural-log probability of the whole line) a rearrangement must read before
   * it replaces the line. Fitted on half the matched documents (builder/eval/reading-order.ts).
   */
  margin?: number;
}

// The folds chose 0 and 0.5 (builder/eval/reading-order.ts); the larger guards documents unlike the corpus.
export const DEFAULT_WORD_ORDER_MARGIN = 0.5;

/** One whitespace-separated piece of a line, with a left-to-right or Hebrew run split off where they touch ("70%מכסה"). */
interface Piece {
  surface: string;
  /** 'ltr' holds digits or Latin; 'heb' Hebrew letters; 'punct' neither. */
  kind: 'ltr' | 'heb' | 'punct';
}

function pieceKind(surface: string): Piece['kind'] {
  if (LTR_CHAR.test(surface) && !HEB_LETTER.test(surface)) return 'ltr';
  if (HEB_LETTER.test(surface)) return 'heb';
  return 'punct';
}

function splitPieces(line: string): Piece[] {
  const pieces: Piece[] = [];
  for (const chunk of line.split(/\s+/)) {
    if (chunk === '') continue;
    if (!(LTR_CHAR.test(chunk) && HEB_LETTER.test(chunk))) {
      pieces.push({ surface: chunk, kind: pieceKind(chunk) });
      continue;
    }
    // A number glued to a Hebrew word: split where the scripts meet, keeping Hebrew prefixes with
    // their word ("ל-20" stays one piece: the hyphen binds the prefix to the number).
    if (new RegExp(`^[${HEB}]{1,3}-[0-9]`).test(chunk)) {
      pieces.push({ surface: chunk, kind: 'ltr' });
      continue;
    }
    let last = 0;
    for (const match of chunk.matchAll(LTR_RUN)) {
      const start = match.index;
      if (start > last) pieces.push({ surface: chunk.slice(last, start), kind: pieceKind(chunk.slice(last, start)) });
      pieces.push({ surface: match[0], kind: 'ltr' });
      last = start + match[0].length;
    }
    if (last < chunk.length) pieces.push({ surface: chunk.slice(last), kind: pieceKind(chunk.slice(last)) });
  }
  return pieces;
}

/** The token the model reads for a piece: Hebrew words as written, numbers by shape. */
function tokensOf(piece: Piece): string[] {
  if (piece.kind === 'punct') return [];
  if (piece.kind === 'ltr') {
    const digits = /[0-9]/.test(piece.surface);
    if (!digits) return ['<latin>'];
    if (/^\.?[0-9]+(\.[0-9]+)+\.?$/.test(piece.surface) || /^\.[0-9]+$/.test(piece.surface)) return ['<clause>'];
    if (/%/.test(piece.surface)) return ['<percent>'];
    return ['<number>'];
  }
  const word = piece.surface.replace(new RegExp(`[^${HEB}'"\u05F3\u05F4-]`, 'g'), '');
  const tokens = word === '' ? [] : [word];
  if (END_MARK.test(piece.surface)) tokens.push('<.>');
  return tokens;
}

function addCount(map: Map<string, number>, key: string): void {
  map.set(key, (map.get(key) ?? 0) + 1);
}

function countSequence(counts: WordOrderCounts, tokens: readonly string[]): void {
  for (const token of tokens) addCount(counts.unigrams, token);
  counts.tokens += tokens.length;
  for (let i = 0; i + 1 < tokens.length; i++) {
    addCount(counts.bigrams, `${tokens[i]} ${tokens[i + 1]}`);
    addCount(counts.heads, tokens[i]);
  }
}

/** Counts a line whose order can be trusted (a web page's, or a Hebrew-only line of a parsed PDF): every bigram, with its ends. */
export function countTrustedLine(counts: WordOrderCounts, line: string): void {
  const tokens = splitPieces(line).flatMap(tokensOf);
  if (tokens.length === 0) return;
  countSequence(counts, [BOS, ...tokens, EOS]);
}

/** Counts a line of a parsed PDF: Hebrew-only lines whole, others only inside their Hebrew runs (whose own order the parse keeps). */
export function countParsedLine(counts: WordOrderCounts, line: string): void {
  // Table rows are where the parse wrote whole cells backwards: they teach nothing.
  if (TABLE_ROW.test(line)) return;
  const pieces = splitPieces(line);
  if (!pieces.some((piece) => piece.kind === 'ltr')) {
    countTrustedLine(counts, line);
    return;
  }
  for (const unit of unitsOf(pieces)) if (unit.kind === 'heb') countSequence(counts, unit.pieces.flatMap(tokensOf));
}

/** Where a line comes from: a web page's or text file's line is trusted whole; a pre-parsed PDF's only in part. */
export type LineSource = 'trusted' | 'parsed-pdf';

export function countDocumentLine(counts: WordOrderCounts, line: string, source: LineSource): void {
  if (source === 'trusted') countTrustedLine(counts, line);
  else countParsedLine(counts, line);
}

interface Unit {
  kind: 'ltr' | 'heb';
  pieces: Piece[];
}

/** Maximal runs of Hebrew and of left-to-right pieces; punctuation travels with the piece before it (or, first in the line, after it). */
function unitsOf(pieces: readonly Piece[]): Unit[] {
  const units: Unit[] = [];
  let leading: Piece[] = [];
  for (const piece of pieces) {
    const last = units[units.length - 1];
    if (piece.kind === 'punct') {
      if (last) last.pieces.push(piece);
      else leading.push(piece);
      continue;
    }
    if (last && last.kind === piece.kind) last.pieces.push(piece);
    else {
      units.push({ kind: piece.kind, pieces: [...leading, piece] });
      leading = [];
    }
  }
  if (leading.length > 0) units.push({ kind: 'heb', pieces: leading });
  return units;
}

/** A line's log-probability under the counts, for callers that repair many lines with one model. */
export type WordOrderModel = (tokens: readonly string[]) => number;

/** Reads counts as a smoothed bigram model: log P(b | a), interpolated with the unigram. */
export function wordOrderModel(counts: WordOrderCounts): WordOrderModel {
  const vocabulary = counts.unigrams.size + 1;
  const SMOOTHING = 2;
  return (tokens) => {
    let score = 0;
    for (let i = 0; i + 1 < tokens.length; i++) {
      const unigram = ((counts.unigrams.get(tokens[i + 1]) ?? 0) + 1) / (counts.tokens + vocabulary);
      const pair = counts.bigrams.get(`${tokens[i]} ${tokens[i + 1]}`) ?? 0;
      const head = counts.heads.get(tokens[i]) ?? 0;
      score += Math.log((pair + SMOOTHING * unigram) / (head + SMOOTHING));
    }
    return score;
  };
}

/**
 * A clause label in its visual form (".6.1.5", ".2": the period of "6.1.5." displayed before it)
 * sits first in its line. The parse leaves it at the end of the first visual line of a wrapped
 * clause; of 4,261 such labels found mid-line in the Harel corpus, the reference parse put 4,210
 * first and none where it was. A word that refers to a clause before it ("בסעיף .6.1") keeps it.
 */
const VISUAL_LABEL = /^\.[0-9]{1,2}(?:\.[0-9]{1,2}){0,5}$/;
/** Bullets a converter puts before a list item, as clause.ts's LIST_MARKER reads them. */
const LIST_MARKER = /^[-•▪●◦■□➢►*]$/;
const BARE_LABEL = /^[0-9]{1,2}(?:\.[0-9]{1,2}){0,5}$/;
const OPENING_NUMBER = /^\.?[0-9]{1,2}(?:\.[0-9]{1,2}){0,5}\.?$/;
const REFERS_TO_CLAUSE = /^[והבלמשכ]{0,2}(?:סעיף|סעיפים|סעיפי|פרק|עמוד|תקנה)$/;

function labelFirst(pieces: readonly Piece[]): Piece[] | null {
  const firstWord = pieces.findIndex((piece) => piece.kind !== 'punct');
  // A line that opens with a lone period (". נזק…", "- . נזק…") lost it from its label ("21." shown
  // as ".21"), which the parse left further on without it.
  const detachedPeriod = pieces.slice(0, Math.max(0, firstWord)).some((piece) => piece.surface === '.');
  const isLabel = (piece: Piece): boolean => piece.kind === 'ltr' && (VISUAL_LABEL.test(piece.surface) || (detachedPeriod && BARE_LABEL.test(piece.surface)));
  const at = pieces.findIndex((piece, index) => index > firstWord && isLabel(piece));
  if (firstWord < 0 || at < 0) return null;
  const before = pieces
    .slice(0, at)
    .filter((piece) => piece.kind !== 'punct')
    .pop();
  if (before && REFERS_TO_CLAUSE.test(before.surface.replace(/[^\u05D0-\u05EA]/g, ''))) return null;
  // The label goes after a list marker ("- "), where the clause parser (core/chunk/clause.ts) looks
  // for it, in its visual form: a detached period joins it again (". … 21" → ".21 …"). Other
  // punctuation the parse left before the first word (", ") is a stray from the line's end: it goes
  // there, not between the label and its text.
  const leading = pieces.slice(0, firstWord);
  const markers = leading.filter((piece) => LIST_MARKER.test(piece.surface));
  const strays = leading.filter((piece) => !LIST_MARKER.test(piece.surface) && !(detachedPeriod && piece.surface === '.'));
  const label: Piece = VISUAL_LABEL.test(pieces[at].surface) ? pieces[at] : { surface: `.${pieces[at].surface}`, kind: 'ltr' };
  return [...markers, label, ...pieces.slice(firstWord, at), ...pieces.slice(at + 1), ...strays];
}

/** The longest line repaired: past it the parse's lines are paragraphs, not visual lines. */
const MAX_PIECES = 80;

/** A table row of the corpus's shape: `| cell | cell |`. */
const TABLE_ROW = /^\s*\|.*\|\s*$/;

/**
 * A table row that the parse wrote in visual order has every cell's words backwards ("ביטוח דמי"
 * for "דמי ביטוח", "לאירוע ₪ 30,000") and its cells left to right, the row header last. Such a
 * row reads better backwards, word by word and cell by cell, by the sum over its cells; the row is
 * turned whole, since one table is stored one way.
 */
function rowGain(line: string, model: WordOrderModel): { gain: number; judged: number } {
  let gain = 0;
  let judged = 0;
  for (const cell of cellsOf(line)) {
    const pieces = splitPieces(cell);
    if (pieces.filter((piece) => piece.kind === 'heb').length < 2) continue;
    const forward = [BOS, ...pieces.flatMap(tokensOf), EOS];
    const backward = [BOS, ...[...pieces].reverse().flatMap(tokensOf), EOS];
    gain += model(backward) - model(forward);
    judged++;
  }
  return { gain, judged };
}

function cellsOf(line: string): string[] {
  return line
    .trim()
    .slice(1, -1)
    .split('|')
    .map((cell) => cell.trim());
}

function turnRow(line: string): string {
  return `| ${cellsOf(line)
    .reverse()
    .map((cell) => cell.split(/\s+/).reverse().join(' '))
    .join(' | ')} |`;
}

export interface PageOrderResult {
  text: string;
  /** Lines rewritten. */
  reordered: number;
}

/**
 * A page's text in reading order: each line by `repairWordOrder`, except that the rows of one
 * table (consecutive row lines) are judged together, summed over their cells, and turned
 * together: a row of two short cells says little on its own, its table says much.
 */
export function repairPageOrder(text: string, model: WordOrderModel, options: WordOrderOptions = {}): PageOrderResult {
  const margin = options.margin ?? DEFAULT_WORD_ORDER_MARGIN;
  const lines = text.split('\n');
  let reordered = 0;
  for (let i = 0; i < lines.length; i++) {
    if (!TABLE_ROW.test(lines[i])) {
      const repaired = repairWordOrder(lines[i], model, options);
      if (repaired.repair !== 'none') {
        lines[i] = repaired.text;
        reordered++;
      }
      continue;
    }
    let end = i;
    while (end + 1 < lines.length && TABLE_ROW.test(lines[end + 1])) end++;
    let gain = 0;
    let judged = 0;
    for (let row = i; row <= end; row++) {
      const one = rowGain(lines[row], model);
      gain += one.gain;
      judged += one.judged;
    }
    if (judged > 0 && gain > margin * judged)
      // Every row, numbers-only ones too: the table's columns stay aligned.
      for (let row = i; row <= end; row++) {
        lines[row] = turnRow(lines[row]);
        reordered++;
      }
    i = end;
  }
  return { text: lines.join('\n'), reordered };
}

/**
 * Returns `line` in reading order: its clause label first, its runs turned where they read better
 * by `margin`. Table rows are left to `repairPageOrder`, which judges a table whole.
 */
export function repairWordOrder(line: string, model: WordOrderModel, options: WordOrderOptions = {}): WordOrderResult {
  const unchanged: WordOrderResult = { text: line, repair: 'none' };
  if (!HEB_LETTER.test(line) || !LTR_CHAR.test(line) || line.trimStart().startsWith('|')) return unchanged;
  let pieces = splitPieces(line);
  if (pieces.length > MAX_PIECES || !pieces.some((piece) => piece.kind === 'ltr')) return unchanged;
  let repair: WordOrderRepair = 'none';
  const labelled = labelFirst(pieces);
  let head: Piece[] = [];
  if (labelled) {
    const cut = labelled.findIndex((piece) => piece.kind === 'ltr') + 1;
    head = labelled.slice(0, cut);
    pieces = labelled.slice(cut);
    repair = 'label-first';
  } else {
    // A line that already opens with a clause number (".4.1", "1.2", ". 4") keeps it there, whatever follows.
    const first = pieces.findIndex((piece) => piece.kind !== 'punct');
    if (first >= 0 && pieces[first].kind === 'ltr' && OPENING_NUMBER.test(pieces[first].surface)) {
      head = pieces.slice(0, first + 1);
      pieces = pieces.slice(first + 1);
    }
  }
  const units = unitsOf(pieces);
  // Once the label has moved, the rest is left as it is: reversing it too was right for 34 of 164 lines.
  if (repair === 'none' && units.length > 1 && units.some((unit) => unit.kind === 'ltr')) {
    const margin = options.margin ?? DEFAULT_WORD_ORDER_MARGIN;
    const reversed = [...units].reverse().flatMap((unit) => unit.pieces);
    const context = head.length > 0 ? head.flatMap(tokensOf).slice(-1) : [];
    const score = (sequence: readonly Piece[]): number => model([BOS, ...context, ...sequence.flatMap(tokensOf), EOS]);
    if (score(reversed) > score(pieces) + margin) {
      pieces = reversed;
      repair = 'runs-reversed';
    }
  }
  if (repair === 'none') return unchanged;
  const indent = /^\s*/.exec(line)?.[0] ?? '';
  return { text: indent + [...head, ...pieces].map((piece) => piece.surface).join(' '), repair };
}
