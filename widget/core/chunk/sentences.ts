/**
 * Sentence splitting for passages that exceed the token bound, and the packing of those sentences
 * into overlapping pieces. Splits only where a sentence mark is followed by white space (or at a line
 * end), so numbers (1.200, 3.2.4) never split, and merges back pieces that are only a number, a
 * letter item ("א.", "1.") or an abbreviation, so list markers stay with their text.
 */

const BOUNDARY = /[.?!;](?=\s)|\n/g;
const ABBREVIATION = /(?:^|[\s(])(?:e\.g|i\.e|mr|mrs|ms|dr|no|nos|vs|st|p|pp|art|sec|cl|approx|incl|ref|fig|cf)\.$/i;

/** Sentences of `text`, trimmed, in order; joining them with spaces gives the text back (modulo spacing). */
export function splitSentences(text: string): string[] {
  const raw: string[] = [];
  let start = 0;
  for (const m of text.matchAll(BOUNDARY)) {
    const end = m.index + m[0].length;
    raw.push(text.slice(start, end));
    start = end;
  }
  raw.push(text.slice(start));
  const out: string[] = [];
  let carry = '';
  for (const piece of raw) {
    const joined = carry ? carry + piece : piece;
    const trimmed = joined.trim();
    if (!trimmed) {
      carry = '';
      continue;
    }
    const letters = (trimmed.match(/\p{L}/gu) ?? []).length;
    if (letters < 3 || ABBREVIATION.test(trimmed)) {
      carry = joined.endsWith('\n') ? `${joined.slice(0, -1)} ` : joined;
      continue;
    }
    out.push(trimmed);
    carry = '';
  }
  if (carry.trim()) {
    if (out.length) out[out.length - 1] += ` ${carry.trim()}`;
    else out.push(carry.trim());
  }
  return out;
}

/** Words packed into runs of at most `limit` tokens: the last resort for a sentence longer than the bound. */
export function splitWords(sentence: string, limit: number, countTokens: (t: string) => number): string[] {
  const words = sentence
    .split(/\s+/)
    .filter(Boolean)
    .flatMap((w) => cutWord(w, limit, countTokens));
  const out: string[] = [];
  let current: string[] = [];
  let used = 0;
  for (const word of words) {
    const cost = countTokens(word);
    if (current.length && used + cost > limit) {
      out.push(current.join(' '));
      current = [];
      used = 0;
    }
    current.push(word);
    used += cost;
  }
  if (current.length) out.push(current.join(' '));
  return out;
}

/** A "word" longer than the bound (a run of symbols, a URL) cut into character runs. */
function cutWord(word: string, limit: number, countTokens: (t: string) => number): string[] {
  if (countTokens(word) <= limit) return [word];
  const parts: string[] = [];
  let start = 0;
  while (start < word.length) {
    let end = Math.min(word.length, start + limit);
    while (end > start + 1 && countTokens(word.slice(start, end)) > limit) end = start + Math.floor((end - start) / 2);
    parts.push(word.slice(start, end));
    start = end;
  }
  return parts;
}

export interface Piece {
  text: string;
  tokens: number;
}

/**
 * Consecutive pieces of at most `limit` tokens; each piece after the first starts with the last
 * sentences of the one before (up to `overlapTokens`, or one sentence up to 1.5× that), so a fact
 * cut at a piece border is whole in at least one piece.
 */
export function packSentences(sentences: string[], limit: number, overlapTokens: number, countTokens: (t: string) => number): Piece[] {
  const units: Piece[] = [];
  for (const s of sentences) {
    const tokens = countTokens(s);
    if (tokens <= limit) units.push({ text: s, tokens });
    else for (const w of splitWords(s, limit, countTokens)) units.push({ text: w, tokens: countTokens(w) });
  }
  const pieces: Piece[] = [];
  let i = 0;
  let previousStart = 0;
  while (i < units.length) {
    let from = i;
    if (pieces.length) {
      // Overlap: walk back from the previous piece's end, never back to its own first unit.
      let back = 0;
      while (from - 1 > previousStart && back + units[from - 1].tokens <= overlapTokens) back += units[--from].tokens;
      if (back === 0 && from - 1 > previousStart && units[from - 1].tokens <= overlapTokens * 1.5) back += units[--from].tokens;
      // The overlap yields to the new content when both do not fit.
      while (from < i && back + units[i].tokens > limit) back -= units[from++].tokens;
    }
    let used = 0;
    for (let m = from; m < i; m++) used += units[m].tokens;
    let j = i;
    while (j < units.length && (j === i || used + units[j].tokens <= limit)) used += units[j++].tokens;
    pieces.push({
      text: units
        .slice(from, j)
        .map((u) => u.text)
        .join(' '),
      tokens: used,
    });
    previousStart = i;
    i = j;
  }
  return pieces;
}
