/**
 * Mines query-expansion equivalents from the corpus: a term and the short definition a policy
 * gives it ("X" פירושו Y), the alias a contract introduces (X (להלן: "Y")), acronyms spelled out
 * beside them (Clearing House Interbank Payment System (CHIPS)), and English terms written next
 * to their Hebrew ones (פגיעה מוחית (BRAIN DAMAGE)). "(להלן: "Y")" aliases are not mined: on
 * the corpus their antecedent is a clause fragment far more often than a term (יצורף לתעודת
 * הביטוח ↔ הספח), and the tokenizer already meets the common case (רכב ↔ הרכב). A noisy lexicon hurts retrieval more than a
 * small one, so every rule errs towards leaving a candidate out: phrases must start at a clear
 * boundary, stay short, be found in more than one document (unless an acronym's letters prove
 * it), and not be so common that they would expand every question.
 */
import { normalizeText, tokenize } from '../../widget/core/tokenizer/index.ts';
import { LEXICON } from '../../widget/core/retrieval/lexicon.ts';
import type { MinedEntry, MinedKind, MinedLexicon } from '../../widget/core/retrieval/mined-lexicon.ts';
import { finishNow, type Steps } from '../../widget/core/steps.ts';

export interface MineOptions {
  /** Documents a definition must be found in (acronyms and translations, checked by letters and length, need one). */
  minDocs?: number;
  /** A phrase in more than this share of chunks is too common to trigger or be added. */
  maxChunkShare?: number;
  /** Most entries kept, by how many documents vouch for them. */
  maxEntries?: number;
  /** Longest phrase, in words. */
  maxWords?: number;
}

export interface MinePage {
  doc: number;
  text: string;
}

export interface Candidate {
  phrases: [string, string];
  kind: MinedKind;
}

const HEB = String.raw`[\u05D0-\u05EA]+(?:["'\-][\u05D0-\u05EA]+)*'?`;
const EN = String.raw`[A-Za-z][A-Za-z'\-]*`;
const MAX_WORDS = 4;
const run = (word: string, n: number) => String.raw`((?:${word}[ \t]+){0,${n - 1}}${word})`;

const HE_EN = new RegExp(String.raw`${run(HEB, MAX_WORDS)}[ \t]*\([ \t]*${run(EN, 5)}[ \t]*\)`, 'g');
const EN_HE = new RegExp(String.raw`${run(EN, 5)}[ \t]*\([ \t]*${run(HEB, MAX_WORDS)}[ \t]*\)`, 'g');
const ACRONYM = /\(\s*([A-Z]{2,6}|[\u05D0-\u05EA]{1,4}"[\u05D0-\u05EA])\s*\)/g;
const DEFINITION = new RegExp(String.raw`"(${run(HEB, 3).slice(1, -1)})"[ \t]*[-–—:]?[ \t]*(?:פירושו|פירושה|משמעו|משמעה)[ \t]*[:\-–—]?[ \t]*(${run(HEB, 3).slice(1, -1)})[ \t]*(?=[.;]|$)`, 'gm');
const EN_DEFINITION = new RegExp(String.raw`"(${run(EN, 4).slice(1, -1)})"[ \t]+means[ \t]+(?:the[ \t]+|an?[ \t]+)?(${run(EN, 3).slice(1, -1)})[ \t]*(?=[.;]|$)`, 'gm');

// A phrase starts where a sentence, a list item, a clause number or a quotation does.
const BOUNDARY = /(?:^|[.:;,\-–—()"\d•*])\s*$/;
// Hebrew years (התשמ"א) and statutes name the law an alias abbreviates, not an insurance term.
const NOT_A_TERM = /^(?:ה?ת[\u05D0-\u05EA]{0,3}"[\u05D0-\u05EA]|(?:חוק|פקודת|תקנות)\b.*)$/u;
const EN_FILLER = new Set(['of', 'and', 'the', 'for', 'in', 'to', 'on', 'by', 'with', 'a', 'an']);

/** The longest tail of `words` (ending at `end` in `line`) that starts at a boundary, or null. */
function boundedTail(line: string, start: number, phrase: string, maxWords: number): string | null {
  const words = phrase.split(/[ \t]+/);
  for (let n = Math.min(words.length, maxWords); n >= 1; n--) {
    const tail = words.slice(-n).join(' ');
    const cut = start + phrase.lastIndexOf(words.slice(-n).join(' ').split(' ')[0], phrase.length - tail.length);
    if (BOUNDARY.test(line.slice(0, cut))) return tail;
  }
  return null;
}

function initials(words: string[]): string {
  return words.map((w) => w[0]).join('');
}

/** The words before an acronym whose initials spell it (fillers like "of" may sit between). */
function spelledOut(before: string, acronym: string): string | null {
  const hebrew = /[\u05D0-\u05EA]/.test(acronym);
  const letters = normalizeText(acronym.replace(/"/g, '')).toLowerCase();
  const words = (before.match(new RegExp(hebrew ? HEB : EN, 'g')) ?? []).slice(-(letters.length + 3));
  for (let n = letters.length; n <= words.length; n++) {
    const tail = words.slice(-n);
    const content = hebrew ? tail : tail.filter((w) => !EN_FILLER.has(w.toLowerCase()));
    if (content.length !== letters.length || (!hebrew && EN_FILLER.has(tail[0].toLowerCase()))) continue;
    if (normalizeText(initials(content)).toLowerCase() === letters) return tail.join(' ');
  }
  return null;
}

/**
 * PDF text extracted in visual order keeps Hebrew words in order but mirrors the parentheses:
 * "סרטן )CANCER(". A line whose first parenthesis closes gets its pairs turned around.
 */
function unmirror(line: string): string {
  const first = line.search(/[()]/);
  if (first < 0 || line[first] !== ')') return line;
  return line.replace(/\)([^()]{1,80})\(/g, '($1)');
}

/** A translation says about as much in both languages: content words differ by at most one. */
function comparable(a: string, b: string): boolean {
  const words = (s: string) => s.split(/[ \t]+/).filter((w) => !EN_FILLER.has(w.toLowerCase())).length;
  return Math.abs(words(a) - words(b)) <= 1;
}

/** Candidate pairs in one page of text, before any corpus-wide filtering. */
export function extractCandidates(text: string): Candidate[] {
  const out: Candidate[] = [];
  for (const raw of text.split('\n')) {
    const line = unmirror(raw.replace(/\s+/g, ' ').trim());
    if (!line) continue;
    for (const m of line.matchAll(HE_EN)) {
      const he = boundedTail(line, m.index, m[1], MAX_WORDS);
      if (he && comparable(he, m[2])) out.push({ phrases: [he, m[2]], kind: 'translation' });
    }
    for (const m of line.matchAll(EN_HE)) {
      const en = boundedTail(line, m.index, m[1], 5);
      if (en && comparable(en, m[2])) out.push({ phrases: [en, m[2]], kind: 'translation' });
    }
    for (const m of line.matchAll(ACRONYM)) {
      const full = spelledOut(line.slice(0, m.index), m[1]);
      if (full) out.push({ phrases: [full, m[1]], kind: 'acronym' });
    }
    for (const re of [DEFINITION, EN_DEFINITION]) {
      for (const m of line.matchAll(re)) out.push({ phrases: [m[1], m[2]], kind: 'definition' });
    }
  }
  return out;
}

/** Query terms of a phrase, with leading filler words (stop words, "the") dropped from the text. */
function clean(phrase: string): { text: string; terms: string[] } | null {
  const words = phrase.replace(/["]/g, (q, i: number, s: string) => (/[\u05D0-\u05EA]/.test(s[i - 1] ?? '') && /[\u05D0-\u05EA]/.test(s[i + 1] ?? '') ? q : '')).split(' ');
  while (words.length && tokenize(words[0]).length === 0) words.shift();
  while (words.length && tokenize(words[words.length - 1]).length === 0) words.pop();
  const text = words.join(' ').trim();
  const terms = tokenize(text, { forQuery: true });
  if (!text || terms.length === 0 || text.length > 40 || text.replace(/[^\p{L}]/gu, '').length < 2 || NOT_A_TERM.test(text)) return null;
  return { text, terms };
}

/** The surface term of each word: what a phrase is known by, prefixes and all. */
function key(terms: string[]): string {
  return [...terms].sort().join(' ');
}

const CURATED_KEYS = LEXICON.map((group) => new Set(group.map((p) => key(tokenize(p, { forQuery: true })))));

/** Mines the corpus's pages into a lexicon; `chunkTexts` measure how common a phrase is. */
export function mineLexicon(pages: Iterable<MinePage>, chunkTexts: readonly string[], options: MineOptions = {}): MinedLexicon {
  return finishNow(mineLexiconSteps(pages, chunkTexts, options));
}

/** `mineLexicon` as steps, one per line of text and per chunk (the build runs it with pauses: widget/core/steps.ts). */
export function* mineLexiconSteps(pages: Iterable<MinePage>, chunkTexts: readonly string[], options: MineOptions = {}): Steps<MinedLexicon> {
  const minDocs = options.minDocs ?? 2;
  const maxShare = options.maxChunkShare ?? 0.02;
  const maxEntries = options.maxEntries ?? 400;
  const maxWords = options.maxWords ?? MAX_WORDS;
  const pairs = new Map<string, { kind: MinedKind; docs: Set<number>; forms: [Map<string, number>, Map<string, number>]; terms: [string[], string[]] }>();
  // extractCandidates reads line by line: a page's lines one at a time give the same candidates.
  for (const page of pages)
    for (const line of page.text.split('\n')) {
      yield;
      for (const c of extractCandidates(line)) {
        const a = clean(c.phrases[0]);
        const b = clean(c.phrases[1]);
        if (!a || !b) continue;
        if (a.text.split(' ').length > maxWords || b.text.split(' ').length > maxWords) continue;
        const [ka, kb] = [key(a.terms), key(b.terms)];
        // One side inside the other ("רכב" / "הרכב") adds nothing a prefix-aware tokenizer lacks.
        if (a.terms.every((t) => b.terms.includes(t)) || b.terms.every((t) => a.terms.includes(t))) continue;
        if (CURATED_KEYS.some((g) => g.has(ka) && g.has(kb))) continue;
        const [first, second] = ka < kb ? [a, b] : [b, a];
        const id = `${key(first.terms)}\u0000${key(second.terms)}`;
        let entry = pairs.get(id);
        if (!entry) pairs.set(id, (entry = { kind: c.kind, docs: new Set(), forms: [new Map(), new Map()], terms: [first.terms, second.terms] }));
        entry.docs.add(page.doc);
        entry.forms[0].set(first.text, (entry.forms[0].get(first.text) ?? 0) + 1);
        entry.forms[1].set(second.text, (entry.forms[1].get(second.text) ?? 0) + 1);
      }
    }
  const needed = new Set([...pairs.values()].flatMap((e) => [...e.terms[0], ...e.terms[1]]));
  const df = new Map<string, number>();
  for (const text of chunkTexts) {
    yield;
    for (const t of new Set(tokenize(text))) if (needed.has(t)) df.set(t, (df.get(t) ?? 0) + 1);
  }
  const maxDf = Math.max(1, maxShare * chunkTexts.length);
  // A phrase is about as common as its rarest word.
  const common = (terms: string[]) => Math.min(...terms.map((t) => df.get(t) ?? 0)) > maxDf;
  const entries: MinedEntry[] = [];
  for (const e of pairs.values()) {
    const vouched = e.kind === 'definition' ? e.docs.size >= minDocs : e.docs.size >= 1;
    if (!vouched || common(e.terms[0]) || common(e.terms[1])) continue;
    const best = (forms: Map<string, number>) => [...forms].sort((x, y) => y[1] - x[1] || (x[0] < y[0] ? -1 : 1))[0][0];
    entries.push({ phrases: [best(e.forms[0]), best(e.forms[1])], kind: e.kind, docs: e.docs.size });
  }
  entries.sort((x, y) => y.docs - x.docs || (x.phrases.join('|') < y.phrases.join('|') ? -1 : 1));
  return { version: 1, entries: entries.slice(0, maxEntries) };
}
