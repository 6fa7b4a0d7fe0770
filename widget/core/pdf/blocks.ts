/**
 * Lines → Blocks. Font size decides headings (against the document's body size, so levels agree
 * across pages); aligned multi-cell lines are table rows; the remaining lines are joined into
 * paragraphs, with every numbered clause or bullet starting a block of its own so the chunker
 * sees clause numbers at block starts.
 */
import type { Block } from '../schema.ts';
import type { LineCell, PdfLine } from './lines.ts';

/** Size ratio over the body text from which a line counts as a heading. */
const HEADING_RATIO = 1.15;
const MAX_HEADING_CHARS = 150;
const MAX_HEADING_LEVEL = 3;
/** Cells starting within this many points are in the same column. */
const COLUMN_TOLERANCE = 4;

const CLAUSE_START = new RegExp(
  [
    String.raw`^\d{1,3}(?:\.\d{1,3})+\.?(?=\s|$)`, // 1.1  3.2.4  2.1.
    String.raw`^\d{1,3}\.(?=\s|$)`, // 1.
    String.raw`^\(\s*[\u05D0-\u05EA]{1,2}\s*\)`, // (א)
    String.raw`^[\u05D0-\u05EA]['׳]?\.(?=\s)`, // א.
    String.raw`^\((?:\d{1,3}|[a-z]{1,3})\)(?=\s)`, // (1) (a) (iv)
    String.raw`^סעיף\s+\d`, // סעיף 5
    String.raw`^(?:Section|Clause)\s+\d`,
  ].join('|'),
);
const BULLET_START = /^[•●▪■◦‣∙·–-]\s/;

/** Whether a line opens a clause or list item (and so must start a new block). */
export function startsClause(text: string): boolean {
  return CLAUSE_START.test(text) || BULLET_START.test(text);
}

export interface DocumentStyle {
  bodySize: number;
  /** Heading sizes, largest first; a heading's level is its index + 1 (capped). */
  headingSizes: number[];
}

/** Body size = the size carrying most characters; heading sizes = larger sizes on short lines. */
export function documentStyle(pages: readonly PdfLine[][]): DocumentStyle {
  const weight = new Map<number, number>();
  for (const line of pages.flat()) {
    const key = roundSize(line.size);
    weight.set(key, (weight.get(key) ?? 0) + line.text.length);
  }
  let bodySize = 0;
  let best = -1;
  for (const [size, w] of weight)
    if (w > best) {
      best = w;
      bodySize = size;
    }
  const headingSizes = new Set<number>();
  for (const line of pages.flat()) {
    if (isHeadingCandidate(line, bodySize)) headingSizes.add(roundSize(line.size));
  }
  return { bodySize, headingSizes: [...headingSizes].sort((a, b) => b - a) };
}

function roundSize(size: number): number {
  return Math.round(size * 2) / 2;
}

function isHeadingCandidate(line: PdfLine, bodySize: number): boolean {
  return bodySize > 0 && line.cells.length === 1 && line.size >= bodySize * HEADING_RATIO && line.text.length <= MAX_HEADING_CHARS && /\p{L}/u.test(line.text);
}

function headingLevel(line: PdfLine, style: DocumentStyle): number {
  const index = style.headingSizes.indexOf(roundSize(line.size));
  return Math.min(MAX_HEADING_LEVEL, index < 0 ? MAX_HEADING_LEVEL : index + 1);
}

/** Column anchor of a cell: its left edge, or its right edge in right-to-left lines. */
function anchor(cell: LineCell, rtl: boolean): number {
  return rtl ? cell.right : cell.x;
}

/** A clause number standing alone in the first cell belongs to the text after it (hanging indent). */
function mergeClauseNumbers(line: PdfLine): PdfLine {
  if (line.cells.length < 2 || !/^(?:\d{1,3}(?:\.\d{1,3})*\.?|\(?[\u05D0-\u05EAa-z]\)|[•●▪■◦–-])$/.test(line.cells[0].text)) {
    return line;
  }
  const [first, second, ...rest] = line.cells;
  const merged: LineCell = {
    text: `${first.text} ${second.text}`,
    x: Math.min(first.x, second.x),
    right: Math.max(first.right, second.right),
  };
  const cells = [merged, ...rest];
  return { ...line, cells, text: cells.map((c) => c.text).join(' ') };
}

/** Multi-cell lines whose column anchors recur on another multi-cell line of the page. */
function findRows(lines: readonly PdfLine[]): Set<PdfLine> {
  const multi = lines.filter((l) => l.cells.length >= 2);
  const rows = new Set<PdfLine>();
  for (const line of multi) {
    const mine = line.cells.map((c) => anchor(c, line.rtl));
    const aligned = multi.some((other) => {
      if (other === line) return false;
      const theirs = other.cells.map((c) => anchor(c, other.rtl));
      const shared = mine.filter((a) => theirs.some((b) => Math.abs(a - b) <= COLUMN_TOLERANCE));
      return shared.length >= 2;
    });
    if (aligned) rows.add(line);
  }
  return rows;
}

/**
 * Baseline step between wrapped lines of one paragraph: the tight end of the page's steps (a low
 * percentile, since pages with many short paragraphs have more paragraph gaps than line wraps).
 */
function typicalSpacing(lines: readonly PdfLine[]): number | null {
  const steps: number[] = [];
  for (let i = 1; i < lines.length; i++) {
    const step = lines[i - 1].y - lines[i].y;
    const size = lines[i].size;
    if (step > 0.8 * size && step < 2.5 * size && Math.abs(lines[i - 1].size - size) < 0.5) steps.push(step);
  }
  if (steps.length === 0) return null;
  steps.sort((a, b) => a - b);
  return steps[Math.floor(steps.length * 0.2)];
}

function joinWrapped(previous: string, next: string): string {
  if (/[a-z]-$/.test(previous) && /^[a-z]/.test(next)) return previous.slice(0, -1) + next;
  return `${previous} ${next}`;
}

/** Builds a page's blocks from its lines (top to bottom). */
export function linesToBlocks(rawLines: readonly PdfLine[], style: DocumentStyle): Block[] {
  const lines = rawLines.map(mergeClauseNumbers);
  const rows = findRows(lines);
  const spacing = typicalSpacing(lines.filter((l) => !rows.has(l)));
  const blocks: Block[] = [];
  let open: { block: Block; line: PdfLine } | null = null;

  for (const line of lines) {
    if (rows.has(line)) {
      blocks.push({ type: 'row', text: line.cells.map((c) => c.text).join(' | ') });
      open = null;
      continue;
    }
    if (isHeadingCandidate(line, style.bodySize)) {
      const level = headingLevel(line, style);
      const last = blocks[blocks.length - 1];
      const step = open ? open.line.y - line.y : Infinity;
      // A heading wrapped over two lines of the same size is one heading.
      if (open && last?.type === 'heading' && last.level === level && step > 0 && step < 1.6 * line.size) {
        last.text = joinWrapped(last.text, line.text);
        open = { block: last, line };
      } else {
        const block: Block = { type: 'heading', text: line.text, level };
        blocks.push(block);
        open = { block, line };
      }
      continue;
    }
    const step = open ? open.line.y - line.y : Infinity;
    const limit = spacing !== null ? spacing * 1.15 + 0.5 : line.size * 1.6;
    const continues =
      open !== null && open.block.type === 'text' && step > 0 && step <= limit && Math.abs(open.line.size - line.size) <= 0.1 * line.size && open.line.rtl === line.rtl && !startsClause(line.text);
    if (continues && open) {
      open.block.text = joinWrapped(open.block.text, line.text);
      open.line = line;
    } else {
      const block: Block = { type: 'text', text: line.text };
      blocks.push(block);
      open = { block, line };
    }
  }
  return blocks.filter((b) => b.text.trim().length > 0);
}
