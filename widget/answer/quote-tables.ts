/**
 * Table rows in a quote. The builder keeps a Markdown or PDF table as one line per row, its cells
 * joined by " | " (builder/parse/markdown.ts), and repeats the header row at the top of every piece
 * of the table it indexes. A quote that holds a row would show those raw `|` lines; here the loop
 * finds the row's header in its passage (`tableHeaderFor`), and the source card reads the quote back
 * as text and tables (`quoteBlocks`) to render real table rows under that header.
 *
 * Only what the passage shows to be a table is one: a row is a line of the passage's run of lines
 * with the same number of cells, and the run's first line is its header. A sentence that merely
 * holds a `|` (a running header, "A | B | C") stays text. A PDF's table that reached the index
 * packed in one line ("| a | b | | c | d |": rows of equal width, an empty cell between them,
 * text/table-cells.ts) is a table too, its first row the header.
 */
import { lineRows } from '../text/table-cells.ts';

/** Between the cells of a row, as the builder writes it. */
export const CELL_SEPARATOR = ' | ';
/** Between the pieces of a quote taken from several places of a passage (engines/extractive.ts). */
export const QUOTE_JOINER = ' … ';

/** A quote, read back: text as it is, or rows of one table under its header. */
export type QuoteBlock = { kind: 'text'; text: string } | { kind: 'table'; header: string[]; rows: string[][] };

/** The cells of a row line; null for a line with fewer than two. */
export function rowCells(line: string): string[] | null {
  const cells = line.trim().split(CELL_SEPARATOR);
  return cells.length >= 2 ? cells.map((c) => c.trim()) : null;
}

/** A line as a quote holds it: one line, its spacing collapsed. */
const oneLine = (text: string): string => text.replace(/\s+/g, ' ').trim();

/**
 * The header row of the table a quoted row belongs to, as written in `passage` ("a | b"); null when
 * no piece of the quote is a row of a table in the passage. A quoted header is its own header.
 */
export function tableHeaderFor(passage: string, quote: string): string | null {
  const lines = passage.split('\n').map(oneLine);
  for (const piece of quote.split(QUOTE_JOINER).map(oneLine)) {
    const cells = rowCells(piece);
    if (!cells) continue;
    const at = lines.indexOf(piece);
    if (at < 0) continue;
    const packed = lineRows(piece);
    if (packed && packed.length > 1) return packed[0].join(CELL_SEPARATOR);
    let top = at;
    while (top > 0 && rowCells(lines[top - 1])?.length === cells.length) top--;
    // A lone line with bars, no header above it and no row under it, is a sentence, not a table.
    if (top === at && rowCells(lines[at + 1] ?? '')?.length !== cells.length) continue;
    return lines[top];
  }
  return null;
}

/**
 * `quote` as text and table blocks, in order. Pieces that are rows under `header` (same number of
 * cells) gather into one table per run; a piece equal to the header is the table's header and not
 * a row of it. Without a header the quote is one text block, as written.
 */
export function quoteBlocks(quote: string, header: string | null | undefined): QuoteBlock[] {
  const head = header ? rowCells(header) : null;
  if (!head) return [{ kind: 'text', text: quote }];
  const blocks: QuoteBlock[] = [];
  for (const piece of quote.split(QUOTE_JOINER)) {
    const packed = lineRows(piece);
    if (packed && packed.length > 1 && packed.every((row) => row.length === head.length)) {
      // A packed table's rows, its header among them once.
      const rows = packed.filter((row) => row.join(CELL_SEPARATOR) !== head.join(CELL_SEPARATOR));
      const last = blocks[blocks.length - 1];
      if (last?.kind === 'table') last.rows.push(...rows);
      else blocks.push({ kind: 'table', header: head, rows });
      continue;
    }
    const cells = rowCells(piece);
    const last = blocks[blocks.length - 1];
    if (cells && cells.length === head.length) {
      const isHeader = oneLine(piece) === oneLine(header!);
      if (last?.kind === 'table') {
        if (!isHeader) last.rows.push(cells);
      } else {
        blocks.push({ kind: 'table', header: head, rows: isHeader ? [] : [cells] });
      }
    } else if (last?.kind === 'text') {
      last.text += `${QUOTE_JOINER}${piece}`;
    } else {
      blocks.push({ kind: 'text', text: piece });
    }
  }
  return blocks;
}
