/**
 * The names policy documents give their parts ("פרק ב", "הגדרות", "PART 2", "Table of contents"):
 * generic section names, never a document's title. The one list: the builder's text parser, the
 * chunker's heading detection (headings.ts) and the title a customer's own document is searched
 * under (widget/core/device) all read it.
 */
/** Top-level parts of a policy, Hebrew and English, numbered or lettered ("פרק ב'", "שער 3", "PART 2 -"). */
export const CHAPTER_NAME = /^(?:פרק|חלק|נספח|שער|chapter|part|section|appendix|schedule)\s+[\w\u05D0-\u05EA'"׳״.-]{1,8}(?:\s*[-–:.]\s*.*)?$/iu;
/** Section names, lower-cased, as a line reads once its numbering and trailing colon are gone. */
export const SECTION_NAMES: ReadonlySet<string> = new Set([
  'definitions',
  'exclusions',
  'general exclusions',
  'cover',
  'coverage',
  'what is covered',
  'what is not covered',
  'claims',
  'making a claim',
  'general conditions',
  'special conditions',
  'conditions',
  'preamble',
  'introduction',
  'table of contents',
  'contents',
  'policy schedule',
  'the schedule',
  'important information',
  'extensions',
  'הגדרות',
  'חריגים',
  'חריגים כלליים',
  'סייגים',
  'סייגים כלליים',
  'כיסויים',
  'כיסוי',
  'הכיסוי',
  'הכיסויים',
  'תנאים כלליים',
  'תנאים מיוחדים',
  'תביעות',
  'הגשת תביעה',
  'מבוא',
  'הקדמה',
  'תוכן עניינים',
  'דף פרטי הביטוח',
  'הרחבות',
  'תנאים',
  'מקרה הביטוח',
  'תקופת הביטוח',
  'סכום הביטוח',
  'השתתפות עצמית',
  'דמי הביטוח',
]);
export const CLAUSE_PREFIX = /^(?:\(?\d{1,3}(?:\.\d{1,3})*[.)]?|\(?[\u05D0-\u05EA][.)]|\([a-z]{1,4}\)|[a-z][.)]|סעיף\s+\d+(?:\.\d+)*[.:]?)\s+/i;

/** The line without its clause number or bullet and a trailing colon. */
export function stripNumbering(line: string): string {
  return line
    .replace(CLAUSE_PREFIX, '')
    .replace(/[:：]\s*$/, '')
    .trim();
}

/** Level 1 for chapter-like lines ("פרק ב", "PART 2"), else null when the line is not a known name. */
export function knownSectionLevel(line: string): number | null {
  const bare = stripNumbering(line);
  if (CHAPTER_NAME.test(bare)) return 1;
  if (SECTION_NAMES.has(bare.toLowerCase())) return 2;
  return null;
}

/** A generic part name ("הגדרות", "PART 2", "Table of contents"): a section, never a document's title. */
export function isSectionName(line: string): boolean {
  return knownSectionLevel(line) !== null;
}
