/**
 * Tables read as tables: the rows of a passage's table, each cell bound to its column's header and
 * its row's key, and the cell a question asks for. A limits or premium table lists plans or
 * cases in columns ("אשה לא מעשנת", "גבר מעשן") and keys in rows (an age, a body part); a
 * question names one of each ("אני בת 65 ולא מעשנת, כמה אשלם?"), and the answer is the cell where
 * they meet, stated with both, not a row read as a line.
 *
 * The builder writes a row as its cells joined by " | " (answer/quote-tables.ts), one line a row,
 * or for a PDF's table as one line of "| a | b | | c | d |" (rows of equal width, an empty cell
 * between them); both are read here. Words are matched as sets, so a header whose words the PDF
 * parse reversed ("מעשנת לא אשה") still names its column.
 */
import { contentWords, termSet, wordFound, type Word } from './terms.ts';

/** A table of a passage: its header row and its rows, each as wide as the header. */
export interface PassageTable {
  header: string[];
  rows: string[][];
}

/** A cell bound to its column's header and its row's key (the matched cell; a number with its column's header: "גיל 65"). */
export interface TableCell {
  column: string;
  key: string;
  value: string;
}

/** The cells a question reads: one, or those of the rows and the columns it names alike. */
export interface TableRead {
  cells: TableCell[];
}

const SEPARATOR_ROW = /^[\s|:-]+$/u;
/** A cell that states a value: digits with their signs and units, no more than a few words. */
const VALUE_CELL = /^(?=[^\p{L}]*\d)[\d\s.,%₪$€()\-–+/]*(?:\s?(?:ש["״]ח|שקלים|ימים|יום|חודשים|שנים|שנה|%))?[\d\s.,%₪$€()\-–+/]*$/u;
/** A word that negates a header ("לא מעשן", "non-smoker"): two columns may differ by it alone. */
const NEGATION = /(?:^|[^\u05D0-\u05EA])[וש]?(?:לא|אינו|אינה|ללא)(?![\u05D0-\u05EA])|\b(?:non|not|no)\b/iu;
/** A header or row label longer than this is a paragraph laid out in a table, not a label. */
const MAX_LABEL_CHARS = 80;
/** A row named by its key number outranks one named by words. */
const NUMBER_KEY_SCORE = 100;
/** The most cells a lead lists (rows named × columns not chosen between): more is the whole table, which the quote shows. */
export const MAX_READ_ROWS = 4;

function cellsOf(segment: string): string[] {
  return segment.split('|').map((c) => c.trim());
}

/**
 * The rows one line holds: a line framed by bars may hold several rows of equal width with an
 * empty cell between them; any other line with " | " is one row. Null for a line that is no row.
 */
export function lineRows(line: string): string[][] | null {
  const text = line.trim();
  if (!text.includes(' | ') && !(text.startsWith('|') && text.endsWith('|'))) return null;
  if (SEPARATOR_ROW.test(text)) return [];
  const framed = text.startsWith('|') && text.endsWith('|');
  const cells = cellsOf(framed ? text.slice(1, -1) : text);
  if (cells.length < 2) return null;
  if (!framed) return [cells];
  const width = cells.indexOf('');
  if (width >= 2) {
    // "a | b | | c | d": rows of `width` cells with one empty cell between them.
    const rows: string[][] = [];
    let ok = (cells.length + 1) % (width + 1) === 0;
    for (let i = 0; ok && i < cells.length; i += width + 1) {
      const row = cells.slice(i, i + width);
      if (row.length !== width || row.some((c) => c === '') || (i + width < cells.length && cells[i + width] !== '')) ok = false;
      else rows.push(row);
    }
    if (ok && rows.length > 1) return rows;
  }
  return [cells];
}

/** The tables of a passage's text: runs of rows of one width, the first row the header. */
export function passageTables(text: string): PassageTable[] {
  const tables: PassageTable[] = [];
  let current: string[][] = [];
  const close = () => {
    if (current.length >= 2) tables.push({ header: current[0], rows: current.slice(1) });
    current = [];
  };
  for (const line of text.split('\n')) {
    const rows = lineRows(line);
    if (rows === null) {
      close();
      continue;
    }
    for (const row of rows) {
      if (current.length > 0 && row.length !== current[0].length) close();
      // The header again: the builder repeats it over each piece of a table, and a passage widened
      // with the next piece holds it twice.
      if (current.length > 0 && row.every((cell, j) => cell === current[0][j])) continue;
      current.push(row);
    }
  }
  close();
  return tables;
}

function isValue(cell: string): boolean {
  return VALUE_CELL.test(cell);
}

/** The numbers a text writes in digits, thousands separators left out ("10,000" → "10000"). */
function numbersIn(text: string): string[] {
  return (text.match(/\d[\d,]*(?:\.\d+)?/gu) ?? []).map((n) => n.replace(/,/g, ''));
}

/** Question words a text holds (a header or a row's label). */
function wordsFound(words: readonly Word[], text: string): number {
  const terms = termSet(text);
  return words.filter((w) => wordFound(w, terms)).length;
}

const PROCLITICS = /^[ובלמהשכ]{1,2}$/u;

/**
 * Whether a one-word row label is a word of the question with its proclitics ("ביד" names the
 * row "יד"): the tokenizer keeps two-letter stems whole, and a body part or a plan is often one
 * short word.
 */
function labelNamed(label: string, question: string): boolean {
  if (!/^[\u05D0-\u05EA]{2,}$/u.test(label)) return false;
  return (question.match(/[\u05D0-\u05EA]+/gu) ?? []).some((w) => w === label || (w.endsWith(label) && PROCLITICS.test(w.slice(0, w.length - label.length)) && w.length - label.length <= 2));
}

/**
 * The cells of `table` that `question` asks for: in the rows it names (by a number of theirs in a
 * column of keys, an age or a year, or by a word of their label), the value column whose header
 * holds the most of its words, or the only value column. Where it names several rows, each is
 * read; where columns differ only by a negation the question does not speak of, each is read, so
 * the answer lists the cases rather than choosing one. Null when it names no row, or no column
 * of several, or more than MAX_READ_ROWS cells: a table the question does not point into is the
 * quote's to show.
 */
export function readTable(table: PassageTable, question: string, words: readonly Word[] = contentWords(question)): TableRead | null {
  const { header, rows } = table;
  // A header row of numbers or of paragraphs is a layout, not the header of a table.
  if (header.some((h) => h.length > MAX_LABEL_CHARS) || header.filter(isValue).length > header.length / 2) return null;
  const negated = NEGATION.test(question);
  const given = new Set(numbersIn(question));
  const keyColumns = new Set(header.map((_, j) => j).filter((j) => isKeyColumn(rows.map((r) => r[j]))));
  // A row named by a number the question gives in a key column (an age), or by its label's words.
  const named: { row: string[]; key: number; score: number }[] = [];
  for (const row of rows) {
    let key = -1;
    let score = 0;
    row.forEach((cell, j) => {
      if (keyColumns.has(j) && keyNamed(cell, given)) {
        key = j;
        score = NUMBER_KEY_SCORE;
      } else if (!isValue(cell) && cell.length <= MAX_LABEL_CHARS && score < NUMBER_KEY_SCORE) {
        const found = Math.max(wordsFound(words, cell), labelNamed(cell, question) ? 1 : 0);
        if (found > score) {
          key = j;
          score = found;
        }
      }
    });
    if (key >= 0 && score > 0) named.push({ row, key, score });
  }
  if (named.length === 0) return null;
  const best = Math.max(...named.map((r) => r.score));
  const chosen = named.filter((r) => r.score === best);
  if (chosen.length > MAX_READ_ROWS) return null;
  const keys = new Set(chosen.map((r) => r.key));
  // The column: a value column (never the rows' key) whose header states no number the question
  // does not ("10 מנות" is not the column of a customer with 4), named by the question's words.
  const columns = header
    .map((h, j) => ({ j, found: wordsFound(words, h), negation: negationOf(h, reversedTable(header, keys)) }))
    .filter((c) => !keys.has(c.j) && chosen.every((r) => isValue(r.row[c.j] ?? '')))
    .filter((c) => numbersIn(header[c.j]).every((n) => given.has(n)));
  if (columns.length === 0) return null;
  const most = Math.max(...columns.map((c) => c.found));
  let namedColumns = columns.length === 1 ? columns : columns.filter((c) => most > 0 && c.found === most);
  // Two columns told apart by a negation alone ("אשה מעשנת", "אשה לא מעשנת"): the question
  // decides only where it speaks of what is negated ("ולא מעשנת", "מעשן"); "לאשה בת 65" says
  // nothing of smoking, and both are listed.
  const governed = namedColumns.length > 1 ? namedColumns.map((c) => c.negation).find((g) => g !== null) : undefined;
  if (governed && wordsFound(words, governed) > 0) namedColumns = namedColumns.filter((c) => (c.negation !== null) === negated);
  if (namedColumns.length === 0 || namedColumns.length * chosen.length > MAX_READ_ROWS) return null;
  const cells: TableCell[] = [];
  for (const r of chosen) {
    const keyCell = r.row[r.key];
    const key = isValue(keyCell) ? `${header[r.key]} ${keyCell}` : keyCell;
    for (const c of namedColumns) cells.push({ column: header[c.j], key, value: r.row[c.j] });
  }
  return { cells };
}

/**
 * Whether a table is in the visual order a PDF parse leaves a right-to-left table in: its rows'
 * key is the last cell, where a Hebrew table read in order has it first. Such a table's cells have
 * their words reversed too ("מעשן לא גבר").
 */
function reversedTable(header: readonly string[], keys: ReadonlySet<number>): boolean {
  return header.length > 1 && keys.has(header.length - 1) && !keys.has(0);
}

/** The word a header negates ("לא מעשן" → מעשן; in a reversed table the word before the negation), or null. */
function negationOf(header: string, reversed: boolean): string | null {
  const words = header.split(/\s+/u);
  const at = words.findIndex((w) => NEGATION.test(w));
  if (at < 0) return null;
  return words[reversed ? at - 1 : at + 1] ?? words[reversed ? at + 1 : at - 1] ?? null;
}

/** A band of a key column ("21-30", "30-21" as a PDF may reverse it): its ends, the smaller first; null for any other cell. */
function band(cell: string): [number, number] | null {
  const m = cell.trim().match(/^(\d{1,3})\s*[-–]\s*(\d{1,3})$/u);
  if (!m) return null;
  const [a, b] = [Number(m[1]), Number(m[2])];
  return a <= b ? [a, b] : [b, a];
}

/** Whether a key cell is named by a number the question gives: the number itself, or a band that holds it ("אני בן 35" names "31-40"). */
function keyNamed(cell: string, given: ReadonlySet<string>): boolean {
  const whole = cell.trim();
  if (/^\d{1,4}$/u.test(whole) && given.has(whole)) return true;
  const range = band(cell);
  return range !== null && [...given].some((n) => /^\d{1,3}$/u.test(n) && Number(n) >= range[0] && Number(n) <= range[1]);
}

/**
 * Whether a column holds the rows' keys as numbers: whole numbers of up to four digits, or bands
 * of them ("21-30"), one a row, in order (ages 65, 66, 67…; age bands; years). A number the
 * question gives names a row only there: "מדד יסודי 100" must not pick the row whose sum happens
 * to be 100.
 */
function isKeyColumn(cells: readonly (string | undefined)[]): boolean {
  if (cells.length < 2) return false;
  const values = cells.map((c) => {
    if (c && /^\d{1,4}$/u.test(c.trim())) return Number(c);
    const range = c ? band(c) : null;
    return range ? range[0] : Number.NaN;
  });
  if (values.some(Number.isNaN)) return false;
  const up = values.every((v, i) => i === 0 || v > values[i - 1]);
  const down = values.every((v, i) => i === 0 || v < values[i - 1]);
  return up || down;
}
