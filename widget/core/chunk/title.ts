/**
 * A document's display title: what the citation list shows when the source names none.
 */
import type { ParsedPage } from '../schema.ts';
import { isSectionName } from './section-names.ts';

const MAX_TITLE = 80;
/** Only the top of a document is searched: a line deep inside is a section, not the title. */
const BLOCKS_SEARCHED = 6;
// Words PDF front pages put above the real title.
const NOT_A_TITLE = /^(translation|תרגום|draft|טיוטה|index|אינדקס|page( \d+)?|עמוד( \d+)?|מתוך)$/i;

function isTitleLike(line: string): boolean {
  if (line.length === 0 || line.length > MAX_TITLE || line.startsWith('|')) return false;
  // A salutation ("מבוטח נכבד,") or a form label ("Name:") is not a title either.
  if (isSectionName(line) || NOT_A_TITLE.test(line) || /[,:;]$/.test(line)) return false;
  // Mostly letters: not a row of numbers or a reversed table fragment.
  const letters = line.match(/\p{L}/gu)?.length ?? 0;
  return letters >= 4 && letters >= line.replace(/\s/g, '').length / 2;
}

/**
 * The first heading near the top, else the first short line there, else the file name. Generic
 * part names (a table of contents, "Definitions") are skipped. Scraped page text starts with the
 * HTML `<title>`, "Page name | Site name", run into the body: the part before the bar is the name.
 */
export function deriveTitle(pages: readonly ParsedPage[], file: string): string {
  const top = pages
    .flatMap((p) => p.blocks)
    .filter((b) => b.text.trim())
    .slice(0, BLOCKS_SEARCHED);
  const heading = top.find((b) => b.type === 'heading' && isTitleLike(b.text.replace(/\s+/g, ' ').trim()));
  if (heading) return heading.text.replace(/\s+/g, ' ').trim();
  for (const block of top) {
    if (block.type === 'row') continue;
    for (const raw of block.text.split('\n')) {
      const line = raw.replace(/\s+/g, ' ').trim();
      const bar = line.indexOf(' | ');
      if (bar > 0 && isTitleLike(line.slice(0, bar).trim())) return line.slice(0, bar).trim();
      if (isTitleLike(line)) return line;
    }
  }
  return fileTitle(file);
}

/** `files/תנאי-פוליסה_2024.pdf.json` → `תנאי פוליסה 2024`. */
export function fileTitle(file: string): string {
  const base = file.split('/').pop() ?? file;
  const stem = base.replace(/(\.[a-z0-9]{1,5})+$/i, '');
  return stem.replace(/[-_]+/g, ' ').replace(/\s+/g, ' ').trim() || base;
}
