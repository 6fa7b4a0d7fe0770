/**
 * Text items (pdf.js) → visual lines. A line is what a reader sees on one baseline; it is cut
 * into cells where the horizontal gap is far wider than a word space (table columns, side-by-side
 * text). Items keep pdf.js's per-item logical order; this file decides the order *between* items.
 */

/** The part of a pdf.js TextItem this module needs (kept structural so tests can build items). */
export interface PdfTextItem {
  str: string;
  /** [a, b, c, d, e, f]: text matrix; (e, f) is the baseline origin, (a, b) the run direction. */
  transform: number[];
  width: number;
  height: number;
}

/** A run of items separated from its neighbours on the same line by a wide gap. */
export interface LineCell {
  text: string;
  /** Left edge in page units (of the line's own reading frame). */
  x: number;
  right: number;
}

export interface PdfLine {
  /** Baseline position in the line's frame; larger is higher on the page. */
  y: number;
  /** Dominant font size (points) by character count. */
  size: number;
  rtl: boolean;
  /** Text not running left to right on the page (side notes); never part of a column layout. */
  rotated: boolean;
  /** Cells in reading order (right-to-left for Hebrew-dominant lines). */
  cells: LineCell[];
  /** Cells joined with single spaces: the line as prose. */
  text: string;
}

interface Placed {
  str: string;
  x: number;
  right: number;
  y: number;
  size: number;
  angle: number;
}

const HEBREW = /[\u0590-\u05FF]/;
const HEBREW_G = /[\u05D0-\u05EA]/g;
const LATIN_G = /[A-Za-z]/g;
const LTR_STRONG = /[A-Za-z0-9]/;

/** A gap wider than this many font sizes separates cells rather than words. */
const CELL_GAP_EM = 1.8;
/** A gap wider than this many font sizes needs a space between the items. */
const SPACE_GAP_EM = 0.15;

export function isHebrewDominant(text: string): boolean {
  const he = text.match(HEBREW_G)?.length ?? 0;
  const la = text.match(LATIN_G)?.length ?? 0;
  return he > 0 && he >= la;
}

/** Groups a page's text items into lines, top to bottom; rotated text forms lines of its own. */
export function buildLines(items: readonly PdfTextItem[]): PdfLine[] {
  const byAngle = new Map<number, Placed[]>();
  for (const item of items) {
    if (item.str.length === 0 || item.transform.length < 6) continue;
    const [a, b, c, d, e, f] = item.transform;
    // Rotated side notes (print codes, margins) are read in their own frame so they stay whole.
    const angle = Math.round(Math.atan2(b, a) / (Math.PI / 2)) * 90;
    const rad = (angle * Math.PI) / 180;
    const cos = Math.round(Math.cos(rad));
    const sin = Math.round(Math.sin(rad));
    const x = e * cos + f * sin;
    const y = -e * sin + f * cos;
    const size = Math.hypot(c, d) || item.height || Math.hypot(a, b) || 1;
    const placed = { str: item.str, x, right: x + Math.max(0, item.width), y, size, angle };
    const list = byAngle.get(angle) ?? [];
    list.push(placed);
    byAngle.set(angle, list);
  }
  const lines: PdfLine[] = [];
  const angles = [...byAngle.keys()].sort((p, q) => (p === 0 ? -1 : q === 0 ? 1 : p - q));
  for (const angle of angles) lines.push(...groupLines(byAngle.get(angle) ?? []));
  return lines;
}

function groupLines(placed: Placed[]): PdfLine[] {
  const sorted = [...placed].sort((p, q) => q.y - p.y || p.x - q.x);
  const groups: Placed[][] = [];
  let current: Placed[] = [];
  let baseline = 0;
  let baseSize = 0;
  for (const item of sorted) {
    const whitespace = item.str.trim() === '';
    // Tolerance relative to the smaller font: superscripts and mixed sizes still share a line.
    const tolerance = 0.5 * Math.min(item.size, baseSize || item.size);
    if (current.length > 0 && Math.abs(item.y - baseline) <= tolerance) {
      current.push(item);
      continue;
    }
    if (whitespace && current.length === 0) continue;
    if (current.length > 0) groups.push(current);
    current = [item];
    baseline = item.y;
    baseSize = item.size;
  }
  if (current.length > 0) groups.push(current);
  return groups.map(toLine).filter((line): line is PdfLine => line !== null);
}

function toLine(group: Placed[]): PdfLine | null {
  const items = group.filter((p) => p.str.trim() !== '' || p.right - p.x > 0);
  items.sort((p, q) => p.x - q.x);
  const content = items.filter((p) => p.str.trim() !== '');
  if (content.length === 0) return null;
  const size = dominantSize(content);
  const rtl = isHebrewDominant(content.map((p) => p.str).join(' '));

  // Split into cells at wide gaps (in visual, left-to-right order).
  const visualCells: Placed[][] = [];
  let cell: Placed[] = [];
  let cellRight = -Infinity;
  for (const item of content) {
    if (cell.length > 0 && item.x - cellRight > CELL_GAP_EM * size) {
      visualCells.push(cell);
      cell = [];
    }
    cell.push(item);
    cellRight = Math.max(cellRight, item.right);
  }
  if (cell.length > 0) visualCells.push(cell);

  const cells = visualCells.map((c) => toCell(c, rtl, size));
  if (rtl) cells.reverse();
  const y = group.reduce((sum, p) => sum + p.y, 0) / group.length;
  return { y, size, rtl, rotated: group[0].angle !== 0, cells, text: cells.map((c) => c.text).join(' ') };
}

function toCell(items: Placed[], rtl: boolean, size: number): LineCell {
  // Decide spaces on visual neighbours, before reordering.
  const gapsAfter: boolean[] = items.map((item, i) => {
    const next = items[i + 1];
    if (!next) return false;
    return next.x - item.right > SPACE_GAP_EM * Math.min(size, item.size, next.size);
  });
  const order = rtl ? rtlOrder(items) : items.map((_, i) => i);
  let text = '';
  for (let k = 0; k < order.length; k++) {
    const i = order[k];
    if (k > 0) {
      const prev = order[k - 1];
      // Visual neighbours are spaced by their gap; a jump across a bidi run always is.
      const needsSpace = Math.abs(prev - i) === 1 ? gapsAfter[Math.min(prev, i)] : true;
      if (needsSpace && !/\s$/.test(text) && !/^\s/.test(items[i].str)) text += ' ';
    }
    text += items[i].str;
  }
  return {
    text: text.replace(/\s+/g, ' ').trim(),
    x: items[0].x,
    right: Math.max(...items.map((p) => p.right)),
  };
}

/**
 * Right-to-left reading order over visually sorted items: items are taken right to left, except
 * that runs of Latin/digit items (with the neutrals between them) keep their left-to-right order,
 * as the Unicode bidi algorithm does for embedded LTR runs.
 */
function rtlOrder(items: Placed[]): number[] {
  const kind = items.map((p) => (HEBREW.test(p.str) ? 'R' : LTR_STRONG.test(p.str) ? 'L' : 'N'));
  // Neutrals between two L items belong to the L run.
  const resolved = kind.map((k, i) => {
    if (k !== 'N') return k;
    let before = 'R';
    for (let j = i - 1; j >= 0; j--)
      if (kind[j] !== 'N') {
        before = kind[j];
        break;
      }
    let after = 'R';
    for (let j = i + 1; j < kind.length; j++)
      if (kind[j] !== 'N') {
        after = kind[j];
        break;
      }
    return before === 'L' && after === 'L' ? 'L' : 'R';
  });
  const order: number[] = [];
  let i = items.length - 1;
  while (i >= 0) {
    if (resolved[i] === 'L') {
      let start = i;
      while (start - 1 >= 0 && resolved[start - 1] === 'L') start--;
      for (let j = start; j <= i; j++) order.push(j);
      i = start - 1;
    } else {
      order.push(i);
      i--;
    }
  }
  return order;
}

function dominantSize(items: Placed[]): number {
  const weight = new Map<number, number>();
  for (const p of items) {
    const key = Math.round(p.size * 2) / 2;
    weight.set(key, (weight.get(key) ?? 0) + p.str.trim().length);
  }
  let best = items[0].size;
  let bestWeight = -1;
  for (const [size, w] of weight) {
    if (w > bestWeight || (w === bestWeight && size > best)) {
      best = size;
      bestWeight = w;
    }
  }
  return best;
}
