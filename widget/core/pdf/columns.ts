/**
 * Multi-column pages: lines grouped by baseline run across columns ("left text | right text"),
 * which interleaves two unrelated passages. This finds a vertical gutter that prose lines on both
 * sides respect and reads the columns one after the other (right column first on Hebrew pages).
 * Narrow columns are left alone: those are tables, read row by row.
 */
import type { LineCell, PdfLine } from './lines.ts';

const BIN = 2;
/** Share of lines allowed to cross the gutter (titles, full-width paragraphs between columns). */
const MAX_CROSSING = 0.15;
/** Median cell width, in font sizes, from which a column holds prose rather than table cells. */
const PROSE_COLUMN_EM = 10;
const MIN_SIDE_LINES = 4;
const MAX_DEPTH = 2;

interface Gutter {
  x: number;
}

function median(values: number[]): number {
  if (values.length === 0) return 0;
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)];
}

function findGutter(lines: readonly PdfLine[]): Gutter | null {
  if (lines.length < 2 * MIN_SIDE_LINES) return null;
  const minX = Math.min(...lines.map((l) => Math.min(...l.cells.map((c) => c.x))));
  const maxX = Math.max(...lines.map((l) => Math.max(...l.cells.map((c) => c.right))));
  const width = maxX - minX;
  if (width <= 0) return null;
  const bins = Math.ceil(width / BIN) + 1;
  const coverage = new Array<number>(bins).fill(0);
  for (const line of lines) {
    const covered = new Set<number>();
    for (const cell of line.cells) {
      for (let b = Math.floor((cell.x - minX) / BIN); b <= Math.floor((cell.right - minX) / BIN); b++) covered.add(b);
    }
    for (const b of covered) if (b >= 0 && b < bins) coverage[b]++;
  }
  // The gutter must sit in the middle part of the text, not at a ragged edge.
  const from = Math.floor(bins * 0.2);
  const to = Math.ceil(bins * 0.8);
  let best: { start: number; end: number; value: number } | null = null;
  for (let b = from; b < to; b++) {
    let end = b;
    while (end + 1 < to && coverage[end + 1] === coverage[b]) end++;
    const run = { start: b, end, value: coverage[b] };
    if (!best || run.value < best.value || (run.value === best.value && run.end - run.start > best.end - best.start)) best = run;
    b = end;
  }
  if (!best || best.value > MAX_CROSSING * lines.length) return null;
  const x = minX + ((best.start + best.end + 1) / 2) * BIN;

  const leftCells: LineCell[] = [];
  const rightCells: LineCell[] = [];
  let leftLines = 0;
  let rightLines = 0;
  const sizes: number[] = [];
  for (const line of lines) {
    const left = line.cells.filter((c) => c.right <= x);
    const right = line.cells.filter((c) => c.x >= x);
    if (left.length) leftLines++;
    if (right.length) rightLines++;
    leftCells.push(...left);
    rightCells.push(...right);
    sizes.push(line.size);
  }
  if (leftLines < MIN_SIDE_LINES || rightLines < MIN_SIDE_LINES) return null;
  const em = median(sizes) || 1;
  const prose = (cells: LineCell[]) => median(cells.map((c) => c.right - c.x)) >= PROSE_COLUMN_EM * em;
  return prose(leftCells) && prose(rightCells) ? { x } : null;
}

function lineOf(line: PdfLine, cells: LineCell[]): PdfLine {
  return { ...line, cells, text: cells.map((c) => c.text).join(' ') };
}

/** Splits lines at the gutter; a line crossing it stays whole and ends the column region. */
function splitAt(lines: readonly PdfLine[], gutter: Gutter, depth: number): PdfLine[] {
  const out: PdfLine[] = [];
  let left: PdfLine[] = [];
  let right: PdfLine[] = [];
  const flush = () => {
    const rtl = [...left, ...right].filter((l) => l.rtl).length * 2 > left.length + right.length;
    const first = rtl ? right : left;
    const second = rtl ? left : right;
    out.push(...orderColumns(first, depth + 1), ...orderColumns(second, depth + 1));
    left = [];
    right = [];
  };
  for (const line of lines) {
    const crossing = line.cells.some((c) => c.x < gutter.x && c.right > gutter.x);
    if (crossing) {
      flush();
      out.push(line);
      continue;
    }
    const l = line.cells.filter((c) => c.right <= gutter.x);
    const r = line.cells.filter((c) => c.x >= gutter.x);
    if (l.length) left.push(lineOf(line, l));
    if (r.length) right.push(lineOf(line, r));
  }
  flush();
  return out;
}

/** Reorders a page's lines so that each text column is read to its end before the next. */
export function orderColumns(lines: readonly PdfLine[], depth = 0): PdfLine[] {
  const flat = lines.filter((l) => !l.rotated);
  const rotated = lines.filter((l) => l.rotated);
  if (depth >= MAX_DEPTH) return [...lines];
  const gutter = findGutter(flat);
  if (!gutter) return [...lines];
  return [...splitAt(flat, gutter, depth), ...rotated];
}
