/**
 * Sentence splitting for quoting and grounding, Hebrew and English. A sentence is returned as a
 * slice of the input, so a quote is verbatim from the passage. Splits only where a sentence mark
 * is followed by white space, or at a line break, so clause numbers (4.1, 3.2.4), sums (1,200.50)
 * and abbreviations written with gershayim (ש"ח, בע"מ) never split; list markers ("1.", "א.")
 * and Latin abbreviations (e.g., No.) stay with the text that follows them.
 */

const BOUNDARY = /[.?!;](?=\s)|\n/g;
const ABBREVIATION = /(?:^|[\s(])(?:e\.g|i\.e|etc|mr|mrs|ms|dr|no|nos|vs|st|p|pp|art|sec|cl|approx|incl|ref|fig|cf|ltd|inc)\.$/i;
/** Dotted initials: ת.ז. / U.S. — a dot after a one-letter word is not a sentence end. */
const INITIAL = /(?:^|[\s(.])\p{L}\.$/u;
/** A piece with fewer letters than this is a list marker or a number, not a sentence. */
const MIN_LETTERS = 3;

export interface SentenceSpan {
  text: string;
  start: number;
  end: number;
}

/** Sentences of `text` as trimmed slices with their offsets, in order. */
export function sentenceSpans(text: string): SentenceSpan[] {
  const cuts: number[] = [];
  for (const m of text.matchAll(BOUNDARY)) {
    const end = m.index + m[0].length;
    if (m[0] === '.') {
      const before = text.slice(Math.max(0, end - 12), end);
      if (ABBREVIATION.test(before) || INITIAL.test(before)) continue;
    }
    cuts.push(end);
  }
  cuts.push(text.length);
  const out: SentenceSpan[] = [];
  let start = 0;
  let pending = -1;
  for (const end of cuts) {
    const from = pending >= 0 ? pending : start;
    const slice = text.slice(from, end);
    start = end;
    if (!slice.trim()) {
      pending = -1;
      continue;
    }
    if ((slice.match(/\p{L}/gu) ?? []).length < MIN_LETTERS) {
      // A list marker or a bare number: it belongs to the sentence that follows it.
      pending = from;
      continue;
    }
    pending = -1;
    out.push(trimSpan(text, from, end));
  }
  if (pending >= 0 && text.slice(pending).trim()) {
    if (out.length) out[out.length - 1] = trimSpan(text, out[out.length - 1].start, text.length);
    else out.push(trimSpan(text, pending, text.length));
  }
  return out;
}

function trimSpan(text: string, start: number, end: number): SentenceSpan {
  // Leading stray punctuation ("-. ", ", ") is PDF residue of a split line: not part of the quote.
  while (start < end && /[\s\-–.,;:]/.test(text[start])) start++;
  while (end > start && /\s/.test(text[end - 1])) end--;
  return { text: text.slice(start, end), start, end };
}

export function splitSentences(text: string): string[] {
  return sentenceSpans(text).map((s) => s.text);
}

/** For display: a sentence on one line (line breaks inside a PDF paragraph mean nothing). */
export function oneLine(text: string): string {
  return text.replace(/\s+/g, ' ').trim();
}

/** Words a quote needs to say something: a heading such as "2. Cover" or a document title says nothing. */
export const MIN_QUOTE_WORDS = 4;

/**
 * Whether a sentence can stand as a quotation: not a heading or title of its own passage (those
 * are where it sits, not what it says) and at least MIN_QUOTE_WORDS words.
 */
export function isQuotable(sentence: string, headings: readonly string[] = []): boolean {
  // Clause numbers and quote marks are not words: "3. What is covered" is the heading "What is covered".
  const flat = (s: string) =>
    oneLine(s)
      .replace(/[“”"'.:\s]+$/u, '')
      .replace(/^[“”"'\s]+/u, '')
      .replace(/^\d+(?:\.\d+)*\.?\s+/u, '')
      .trim();
  const text = flat(sentence);
  if (text.split(/\s+/u).filter((w) => /[\p{L}\p{N}]/u.test(w)).length < MIN_QUOTE_WORDS) return false;
  return !headings.some((h) => h && flat(h) === text);
}
