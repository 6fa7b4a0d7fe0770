/**
 * Heading detection inside text: parsers of plain text (the pre-parsed corpus, scraped pages) find
 * headings less reliably than the PDF parser, so the chunker looks at the lines itself.
 */
import { parseClauseLine, clauseDepth, type ClauseLine } from './clause.ts';
import { CHAPTER_NAME, SECTION_NAMES } from './section-names.ts';

// Longer titles that open with a section name ("הגדרות כלליות לכל חלקי הפוליסה", "Exclusions to Chapter A").
const NAME_STEMS = /^(?:הגדרות|חריגים|סייגים|כיסויים|תנאים כלליים|תנאים מיוחדים|definitions|exclusions|general conditions|general exclusions|special conditions)(?:\s|$)/iu;

const FINAL_PUNCTUATION = /[.,;!?]$/;
const TITLE_MAX_CHARS = 60;

export interface DetectedHeading {
  level: number;
  title: string;
}

/** Heading text for a section path: no number, list marker or trailing colon, at most ~60 chars. */
export function cleanTitle(text: string): string {
  let title = text
    .replace(/^(?:[-•▪●◦■*]\s+)+/, '')
    .replace(/^[.:]\s+/, '')
    .replace(/\s*[:\-–]\s*$/, '')
    .replace(/\s+/g, ' ')
    .trim();
  if (title.length > TITLE_MAX_CHARS) {
    const cut = title.lastIndexOf(' ', TITLE_MAX_CHARS);
    title = `${title.slice(0, cut > 30 ? cut : TITLE_MAX_CHARS).trim()}…`;
  }
  return title;
}

function bare(text: string): string {
  return cleanTitle(text).replace(/[:.]$/, '').toLowerCase();
}

export function isAllCapsEnglish(line: string): boolean {
  const letters = line.replace(/[^A-Za-z]/g, '');
  return letters.length >= 4 && letters === letters.toUpperCase() && !/[\u05D0-\u05EA]/.test(line) && line.length <= 80;
}

export function isTitleLike(text: string): boolean {
  const t = text.trim().replace(/\s*[:\-–]$/, '');
  if (t.length < 3 || t.length > TITLE_MAX_CHARS || t.split(/\s+/).length > 9) return false;
  // A sentence mark inside ("…הפוליסה. מקרה הביטוח") makes it running text.
  if (FINAL_PUNCTUATION.test(t) || t.includes(';') || /[.!?]\s/.test(t)) return false;
  // Visual-order Hebrew lines carry their final period at the front: that is a sentence.
  if (/^[.,;!?)\]]/.test(t)) return false;
  if ((t.match(/\p{L}/gu) ?? []).length < 3) return false;
  return !/^[a-z]/.test(t);
}

/** Level of a named or chapter-like line, or null. */
export function namedLevel(text: string): number | null {
  const t = cleanTitle(text);
  if (t.length > 90) return null;
  if (CHAPTER_NAME.test(t)) return 1;
  const b = bare(text);
  if (SECTION_NAMES.has(b)) return 2;
  if (NAME_STEMS.test(b) && b.split(/\s+/).length <= 8) return 2;
  return null;
}

export interface LineContext {
  /** The line before, in the same block (a wrapped sentence continues across lines). */
  previous: string | null;
  /** The next line on the page, any block. */
  next: string | null;
  nextClause: ClauseLine | null;
  /** The numeric clause the line sits in, if any. */
  openClause?: string | null;
}

function looksLikeBody(next: string | null, line: string): boolean {
  if (next === null) return false;
  if (/^[a-z]/.test(next)) return false;
  return next.length > line.length + 10 || FINAL_PUNCTUATION.test(next) || /^[.,]\s/.test(next);
}

/**
 * Levels: 1 chapters ("פרק ב", "PART 2"), 2 named sections and ALL-CAPS lines (they hold numbered
 * clauses), 2 + depth for numbered titles ("3." → 3, "3.1" → 4), and short titles one below the
 * clause they sit in.
 *
 * The heading a text line opens, or null when it is body text. `clause` is the line's own clause
 * (numbered title lines like "3. Exclusions" are both a heading and a clause).
 */
export function detectHeading(line: string, clause: ClauseLine | null, ctx: LineContext): DetectedHeading | null {
  const text = clause ? clause.rest : line;
  const named = namedLevel(line) ?? (clause ? namedLevel(clause.rest) : null);
  if (named !== null) return { level: named, title: cleanTitle(named === 1 ? line : text) };
  // A line right under an unfinished long line is that sentence wrapping, not a title.
  if (ctx.previous !== null && !FINAL_PUNCTUATION.test(ctx.previous) && ctx.previous.length > 60 && !clause) return null;
  if (isAllCapsEnglish(text) && !clause) return { level: 2, title: cleanTitle(text) };
  if (!isTitleLike(text) && !(clause && isAllCapsEnglish(text))) return null;
  if (clause) {
    if (clause.mark.kind !== 'number') return null;
    // "3. Theft" over "3.1 …" or body text is a title; "3.1 Car" over "3.2 Bike" is a list item.
    const next = ctx.nextClause;
    if (next && !(next.mark.kind === 'number' && clauseDepth(next.mark.value) > clauseDepth(clause.mark.value)) && next.mark.kind !== 'letter') return null;
    if (!next && !looksLikeBody(ctx.next, text)) return null;
    return { level: 2 + clauseDepth(clause.mark.value), title: cleanTitle(text) };
  }
  // Below the clause it sits in, so the next clause heading of that depth replaces it.
  const level = 3 + (ctx.openClause ? clauseDepth(ctx.openClause) : 0);
  if (ctx.nextClause || looksLikeBody(ctx.next, line)) return { level, title: cleanTitle(text) };
  return null;
}

export { parseClauseLine };
