/**
 * Answer text → Lit templates, from a safe subset of markdown: paragraphs, line breaks, "- "
 * and "1. " lists, **bold**, and `[n]` citation markers. Text from documents or a model is only
 * ever interpolated as text — Lit escapes it — never parsed as HTML, so markup in a policy or in
 * a model's answer shows as the characters it is.
 *
 * Hand-written rather than a markdown library: the subset is a few dozen lines, and a full
 * markdown renderer would produce HTML strings that then need sanitising.
 */
import { html, nothing, type TemplateResult } from 'lit';

export type CitationRenderer = (n: number) => TemplateResult | string;

type Block = { kind: 'p'; lines: string[] } | { kind: 'ul' | 'ol'; items: string[] };

const BULLET = /^\s*[-*•]\s+(.*)$/;
const NUMBERED = /^\s*\d{1,2}[.)]\s+(.*)$/;

/** Splits text into paragraphs and lists. Exported for tests. */
export function parseBlocks(text: string): Block[] {
  const blocks: Block[] = [];
  let current: Block | null = null;
  for (const line of text.replace(/\r\n?/g, '\n').split('\n')) {
    if (!line.trim()) {
      current = null;
      continue;
    }
    const bullet = BULLET.exec(line);
    const numbered = bullet ? null : NUMBERED.exec(line);
    const kind = bullet ? 'ul' : numbered ? 'ol' : 'p';
    const content = bullet?.[1] ?? numbered?.[1] ?? line;
    if (!current || current.kind !== kind) {
      current = kind === 'p' ? { kind, lines: [] } : { kind, items: [] };
      blocks.push(current);
    }
    if (current.kind === 'p') current.lines.push(content);
    else current.items.push(content);
  }
  return blocks;
}

/** One line: **bold** spans and [n] / [n, m] markers; everything else is text. */
export function renderInline(text: string, cite: CitationRenderer): (TemplateResult | string)[] {
  const parts: (TemplateResult | string)[] = [];
  const pattern = /\*\*([^*]+)\*\*|\[(\s*\d{1,2}(?:\s*[,،]\s*\d{1,2})*\s*)\]/g;
  let last = 0;
  for (const match of text.matchAll(pattern)) {
    const at = match.index ?? 0;
    if (at > last) parts.push(text.slice(last, at));
    if (match[1] !== undefined) parts.push(html`<strong>${match[1]}</strong>`);
    else for (const n of match[2].split(/[,،]/).map((s) => Number(s.trim()))) parts.push(cite(n));
    last = at + match[0].length;
  }
  if (last < text.length) parts.push(text.slice(last));
  return parts;
}

export function renderRichText(text: string, cite: CitationRenderer): TemplateResult {
  const blocks = parseBlocks(text);
  return html`${blocks.map((block) => {
    if (block.kind === 'p') {
      return html`<p>${block.lines.map((line, i) => html`${i ? html`<br />` : nothing}${renderInline(line, cite)}`)}</p>`;
    }
    const items = block.items.map((item) => html`<li>${renderInline(item, cite)}</li>`);
    return block.kind === 'ul' ? html`<ul>${items}</ul>` : html`<ol>${items}</ol>`;
  })}`;
}
