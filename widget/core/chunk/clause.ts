/**
 * Clause numbers at the start of a line (and, for Hebrew PDFs extracted in visual order, the
 * mirrored forms at its end). Guards keep amounts, dates and cross-references out: every number
 * part has at most two digits, a number followed by a unit is a quantity, and a number preceded by
 * "סעיף"/"section" at a line's end is a reference, not a clause start.
 */

export type ClauseMark =
  | { kind: 'number'; value: string }
  /** A lettered item: `(א)`, `א.`, `(b)`. Scoped under the numeric clause around it. */
  | { kind: 'letter'; value: string };

export interface ClauseLine {
  mark: ClauseMark;
  /** The line without its number and list marker: a heading's title when the line is one. */
  rest: string;
}

const NUM = String.raw`\d{1,2}(?:\.\d{1,2}){0,4}`;
const HEB = '\u05D0-\u05EA';
// Bullets, markdown list markers and checkboxes that converters put before the number.
const LIST_MARKER = /^(?:[-•▪●◦■□➢►*]\s+)+(?:\[[ xX]?\]\s*)?/;
const UNIT_AFTER = /^(?:%|₪|\$|€|ש["״]ח|שקל|שקלים|אלף|אלפי|מיליון|מיליוני|שנים|שנה|חודשים|חודש|ימים|יום|שעות|שעה|ק"מ|מ"ר|percent|million|thousand|days?|months?|years?|hours?|km|nis|usd)(?![\p{L}])/iu;
const REFERENCE_BEFORE = /(?:^|\s)[והבלמשכ]{0,2}(?:סעיף|סעיפים|סעיפי|פרק|עמוד|עמ'|תקנה|section|clause|paragraph|page|article)\s*$/iu;

// `bare`: no period or parenthesis closes the number, so a unit after it makes it a quantity.
const LEADING: { re: RegExp; kind: ClauseMark['kind']; bare?: boolean }[] = [
  // "סעיף 5", "Section 2.1" — the word is noise; the number is the clause.
  { re: new RegExp(String.raw`^(?:סעיף|section|clause|article)\s+(${NUM})\b[.:)]?\s*`, 'iu'), kind: 'number' },
  // "1.", "1.2.", "1)", "(1)", "7 ." (a detached period), "3.2.4" (multi-level needs no period)
  { re: new RegExp(String.raw`^\(?(${NUM})(?:\s?[.)])\s+`), kind: 'number' },
  { re: /^(\d{1,2}(?:\.\d{1,2}){1,4})\s+/, kind: 'number', bare: true },
  // Visual-order Hebrew: ".3.1.3 נזקי טבע"
  { re: new RegExp(String.raw`^\.(${NUM})\s+(?=[${HEB}"'(])`), kind: 'number' },
  // Lettered items: "א.", "(א)", "א)", "ב'." ; "(a)", "a.", "(iv)"
  { re: new RegExp(String.raw`^\(?([${HEB}])['׳]?[.)]\s+`), kind: 'letter' },
  { re: /^\(([a-z]{1,2}|[ivx]{1,4})\)\s+/, kind: 'letter' },
  { re: /^([a-z])[.)]\s+/, kind: 'letter' },
];

/** Clause forms of Hebrew lines whose numbers ended up at the end (visual order). */
const TRAILING: { re: RegExp; kind: ClauseMark['kind'] }[] = [
  // "שקיעת קרקע של מבנה הדירה. .8.5.3"
  { re: new RegExp(String.raw`\s\.(${NUM})$`), kind: 'number' },
  // ". דרכי הפיצוי 22" — the period of "22." moved to the front
  { re: new RegExp(String.raw`\s(${NUM})$`), kind: 'number' },
  // "נזק שאפשר לתקנו א."
  { re: new RegExp(String.raw`\s([${HEB}])\.$`), kind: 'letter' },
];

function startsWithText(rest: string): boolean {
  return /^[\p{L}"'(“„[]/u.test(rest);
}

/** The clause a line opens, or null. */
export function parseClauseLine(raw: string): ClauseLine | null {
  const line = raw.trim().replace(LIST_MARKER, '');
  for (const { re, kind, bare } of LEADING) {
    const m = re.exec(line);
    if (!m) continue;
    const rest = line.slice(m[0].length).trim();
    if (!startsWithText(rest) || (bare && UNIT_AFTER.test(rest))) continue;
    if (kind === 'number' && Number(m[1].split('.')[0]) === 0) continue;
    return { mark: { kind, value: m[1] }, rest };
  }
  if (!new RegExp(`[${HEB}]{2}`).test(line)) return null;
  // A converter's list item whose mirrored number landed mid-line ("- בן משפחה: .2 הוריהם…"):
  // only with the list marker and exactly one such number, which a cross-reference never has.
  if (LIST_MARKER.test(raw.trim())) {
    const mids = [...line.matchAll(new RegExp(String.raw`(?<=\s)\.(${NUM})(?=\s)`, 'g'))];
    if (mids.length === 1 && !REFERENCE_BEFORE.test(line.slice(0, mids[0].index).trim())) {
      const rest = (line.slice(0, mids[0].index) + line.slice(mids[0].index + mids[0][0].length)).replace(/\s+/g, ' ').trim();
      return { mark: { kind: 'number', value: mids[0][1] }, rest };
    }
  }
  // A mirrored line keeps its sentence-final period at the front; a trailing bare number is only a
  // clause number when that mirrored period is there.
  const mirrored = /^[.:]\s/.test(line);
  for (const [index, { re, kind }] of TRAILING.entries()) {
    if (index === 1 && !mirrored) continue;
    const m = re.exec(line);
    if (!m) continue;
    const before = line.slice(0, m.index).trim();
    if (REFERENCE_BEFORE.test(before) || /\d\s*[-–]\s*$/.test(before)) continue;
    const rest = before.replace(/^[.:]\s+/, '').trim();
    if (!new RegExp(`[${HEB}]{2}`).test(rest)) continue;
    return { mark: { kind, value: m[1] }, rest };
  }
  return null;
}

/** "3.2.4" → 3; lettered items count one below their parent. */
export function clauseDepth(value: string): number {
  return value.split('.').length;
}

/** Top-level part of a clause: "3.2(א)" → "3". */
export function topClause(clause: string | null): string | null {
  if (clause === null) return null;
  const m = /^\d+/.exec(clause);
  return m ? m[0] : clause;
}
