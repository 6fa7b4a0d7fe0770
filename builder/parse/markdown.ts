/**
 * Markdown → blocks. A small line-based reader rather than a Markdown library: the builder needs
 * only the structure (ATX/setext headings, paragraphs, list items, pipe tables, code fences), not
 * HTML rendering, and this tiny subset is not worth a dependency.
 */
import type { Block, ParsedPage } from '../../widget/core/schema.ts';
import { finishNow, type Steps } from '../../widget/core/steps.ts';

const ATX_HEADING = /^ {0,3}(#{1,6})\s+(.*?)(?:\s+#+)?\s*$/;
const FENCE = /^ {0,3}(```+|~~~+)/;
const LIST_ITEM = /^\s*([-*+]|\d{1,9}[.)])\s+(.*)$/;
const TABLE_SEPARATOR = /^\s*\|?\s*:?-{1,}:?\s*(\|\s*:?-{1,}:?\s*)*\|?\s*$/;
const RULE = /^ {0,3}([-*_])(\s*\1){2,}\s*$/;

/** Inline markup off: links and images keep their text, emphasis and code marks go. */
function inline(text: string): string {
  return text
    .replace(/!\[([^\]]*)\]\([^)]*\)/g, '$1')
    .replace(/\[([^\]]+)\]\([^)]*\)/g, '$1')
    .replace(/<\/?[a-z][^>]*>/gi, '')
    .replace(/(\*\*|__)(.+?)\1/g, '$2')
    .replace(/(^|[^\w*])[*_]([^*_\s][^*_]*?)[*_](?=[^\w*]|$)/g, '$1$2')
    .replace(/`([^`]+)`/g, '$1')
    .replace(/\\([\\`*_{}[\]()#+\-.!|>])/g, '$1')
    .replace(/\s+/g, ' ')
    .trim();
}

function splitRow(line: string): string[] {
  const trimmed = line
    .trim()
    .replace(/^\|/, '')
    .replace(/(?<!\\)\|$/, '');
  return trimmed
    .split(/(?<!\\)\|/)
    .map((cell) => inline(cell.replace(/\\\|/g, '|')))
    .filter(Boolean);
}

function isTableLine(line: string, next: string | undefined, inTable: boolean): boolean {
  if (!line.includes('|')) return false;
  return inTable || line.trim().startsWith('|') || (!!next?.includes('|') && next.includes('-') && TABLE_SEPARATOR.test(next));
}

export function parseMarkdown(md: string, file: string): ParsedPage[] {
  return finishNow(parseMarkdownSteps(md, file));
}

/** `parseMarkdown` as steps, one per line (the build runs it with pauses: widget/core/steps.ts). */
export function* parseMarkdownSteps(md: string, _file: string): Steps<ParsedPage[]> {
  const lines = md.replace(/^\uFEFF/, '').split(/\r\n|\r|\n/);
  const blocks: Block[] = [];
  let paragraph: string[] = [];
  let inTable = false;
  const flush = (): void => {
    const text = inline(paragraph.join(' '));
    if (text) blocks.push({ type: 'text', text });
    paragraph = [];
  };

  for (let i = 0; i < lines.length; i++) {
    yield;
    const line = lines[i];
    const fence = FENCE.exec(line);
    if (fence) {
      flush();
      const code: string[] = [];
      const close = new RegExp(`^ {0,3}${fence[1][0] === '`' ? '`' : '~'}{${fence[1].length},}\\s*$`);
      for (i++; i < lines.length && !close.test(lines[i]); i++) code.push(lines[i]);
      const text = code.join('\n').trim();
      if (text) blocks.push({ type: 'text', text });
      continue;
    }
    if (line.trim() === '') {
      flush();
      inTable = false;
      continue;
    }
    if (isTableLine(line, lines[i + 1], inTable)) {
      flush();
      inTable = true;
      if (TABLE_SEPARATOR.test(line) && line.includes('-')) continue;
      const cells = splitRow(line);
      if (cells.length) blocks.push({ type: 'row', text: cells.join(' | ') });
      continue;
    }
    inTable = false;
    const atx = ATX_HEADING.exec(line);
    if (atx) {
      flush();
      const text = inline(atx[2]);
      if (text) blocks.push({ type: 'heading', text, level: atx[1].length });
      continue;
    }
    // Setext: a single paragraph line underlined with === (level 1) or --- (level 2).
    if (paragraph.length === 1 && /^ {0,3}(=+|-+)\s*$/.test(line)) {
      const text = inline(paragraph[0]);
      paragraph = [];
      if (text) blocks.push({ type: 'heading', text, level: line.trim()[0] === '=' ? 1 : 2 });
      continue;
    }
    if (RULE.test(line)) {
      flush();
      continue;
    }
    const item = LIST_ITEM.exec(line);
    if (item) {
      flush();
      // Numbered items keep their number: it is often the clause number a citation needs.
      paragraph.push(/^\d/.test(item[1]) ? `${item[1]} ${item[2]}` : item[2]);
      continue;
    }
    paragraph.push(line.replace(/^\s*>\s?/, ''));
  }
  flush();
  return [{ page: 1, blocks }];
}
