/**
 * Repairs Hebrew that pdf.js hands back in visual rather than logical order. pdf.js reorders each
 * text run with the bidi algorithm but does not mirror brackets, and a PDF that stores a run
 * already reversed (some producers do) comes out backwards. Both leave tell-tale marks:
 *  - a word that starts with a final letter (ךםןףץ) or ends with its non-final twin is a word
 *    written backwards: Hebrew never does that;
 *  - a closing bracket glued to the start of a Hebrew word, or an opening one glued to its end,
 *    is a mirrored pair.
 * Lines are only rewritten when the marks clearly outnumber the counter-evidence.
 */

export interface RepairStats {
  /** Text runs whose Hebrew was stored backwards and was reversed. */
  reversedRuns: number;
  /** Text runs whose brackets were mirrored and were swapped. */
  mirroredBrackets: number;
}

export function emptyRepairStats(): RepairStats {
  return { reversedRuns: 0, mirroredBrackets: 0 };
}

const HEB = '\u05D0-\u05EA';
// Words glued to a geresh/gershayim are abbreviations (הנ"ל, מצ"ב, התשמ"א): their last letter is
// legitimately non-final, so they carry no evidence either way.
const WORD = new RegExp(`(?<![${HEB}'"\u05F3\u05F4])[${HEB}]{2,}(?![${HEB}'"\u05F3\u05F4])`, 'g');
const FINALS = 'ךםןףץ';
const NON_FINAL_TWINS = 'כמנפצ';
const MIRROR: Record<string, string> = { '(': ')', ')': '(', '[': ']', ']': '[', '{': '}', '}': '{', '<': '>', '>': '<' };

/** Frequent policy words without final letters: seen reversed they betray a reversed run. */
const COMMON = [
  'של',
  'את',
  'על',
  'כי',
  'לפי',
  'ביטוח',
  'הביטוח',
  'פוליסה',
  'הפוליסה',
  'מבוטח',
  'המבוטח',
  'שירות',
  'השירות',
  'או',
  'הוא',
  'היא',
  'זה',
  'כמו',
  'אשר',
  'לרבות',
  'תביעה',
  'התביעה',
  'תקופת',
  'סעיף',
];
const COMMON_FORWARD = new Set(COMMON);
const COMMON_REVERSED = new Set(COMMON.map((w) => [...w].reverse().join('')).filter((w) => !COMMON_FORWARD.has(w)));

/** Evidence that a run's Hebrew words are stored backwards, and that they are stored forwards. */
export function reversalScore(text: string): { backwards: number; forwards: number } {
  let backwards = 0;
  let forwards = 0;
  for (const word of text.match(WORD) ?? []) {
    const first = word[0];
    const last = word[word.length - 1];
    if (FINALS.includes(first)) backwards++;
    if (NON_FINAL_TWINS.includes(last)) backwards++;
    if (FINALS.includes(last)) forwards++;
    if (COMMON_REVERSED.has(word)) backwards++;
    if (COMMON_FORWARD.has(word)) forwards++;
  }
  return { backwards, forwards };
}

/**
 * Reverses a visually stored line into logical order: characters are reversed, then Latin/digit
 * runs (which a reader reads left to right even inside Hebrew) are turned back, and brackets
 * are mirrored.
 */
export function visualToLogical(text: string): string {
  const reversed = [...text].reverse().join('');
  const ltrFixed = reversed.replace(/[A-Za-z0-9][A-Za-z0-9.,:/%'"\-_@+ ]*[A-Za-z0-9]|[A-Za-z0-9]/g, (run) => [...run].reverse().join(''));
  return mirrorBrackets(ltrFixed);
}

function mirrorBrackets(text: string): string {
  return text.replace(/[()[\]{}<>]/g, (c) => MIRROR[c] ?? c);
}

const HEB_LETTER = new RegExp(`[${HEB}]`);

/** Counts brackets that sit the wrong way round against Hebrew letters, and those that sit right. */
export function bracketScore(text: string): { mirrored: number; correct: number } {
  let mirrored = 0;
  let correct = 0;
  for (let i = 0; i < text.length; i++) {
    const c = text[i];
    if (c !== '(' && c !== ')') continue;
    const before = HEB_LETTER.test(text[i - 1] ?? '');
    const after = HEB_LETTER.test(text[i + 1] ?? '');
    if (c === ')' && after && !before) mirrored++;
    if (c === '(' && before && !after) mirrored++;
    if (c === '(' && after && !before) correct++;
    if (c === ')' && before && !after) correct++;
  }
  return { mirrored, correct };
}

/** Swaps brackets that are not inside a Latin/digit run (those were never reordered). */
function swapBracketsOutsideLtr(text: string): string {
  const ltr = /[A-Za-z0-9]/;
  let out = '';
  for (let i = 0; i < text.length; i++) {
    const c = text[i];
    const inLtr = ltr.test(text[i - 1] ?? '') && ltr.test(text[i + 1] ?? '');
    out += MIRROR[c] && (c === '(' || c === ')' || c === '[' || c === ']') && !inLtr ? MIRROR[c] : c;
  }
  return out;
}

/** Returns a text run (a pdf.js item) in logical order, recording what it changed in `stats`. */
export function repairHebrewLine(text: string, stats?: RepairStats): string {
  if (!HEB_LETTER.test(text)) return text;
  let out = text;
  const { backwards, forwards } = reversalScore(out);
  if (backwards >= 2 && backwards > 2 * forwards) {
    out = visualToLogical(out);
    if (stats) stats.reversedRuns++;
    return out;
  }
  return repairBrackets(out, stats);
}

/** Swaps mirrored brackets when they outnumber correctly oriented ones. */
export function repairBrackets(text: string, stats?: RepairStats): string {
  const { mirrored, correct } = bracketScore(text);
  if (mirrored <= correct) return text;
  if (stats) stats.mirroredBrackets++;
  return swapBracketsOutsideLtr(text);
}
