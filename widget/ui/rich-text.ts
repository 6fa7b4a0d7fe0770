/**
 * Answer text → Lit templates, from a safe subset of markdown: paragraphs, line breaks, "- "
 * and "1. " lists, **bold**, `[n]` citation markers, and the site's contact details as links
 * (contact-links.ts). Text from documents or a model is only ever interpolated as text — Lit
 * escapes it — never parsed as HTML, so markup in a policy or in a model's answer shows as the
 * characters it is.
 *
 * Markers, bold and links are read only in the engine's own text. Text an engine quoted from a document
 * (a run, answer/document-text.ts) is rendered as plain text in a `<bdi>`: a "[1]" or "**" in a
 * policy shows as written, never as a citation button or bold, and its direction cannot reorder
 * the answer around it. Bidi embeddings, overrides and isolates are removed from all of it
 * (core/bidi-controls.ts): neither a document nor a model can make text display reversed.
 *
 * Direction (direction.ts): every line, list and list item has the answer's direction as its
 * `dir`, so a Hebrew line that opens with a quote is still right to left and its markers end it on
 * the left; each quote has its own document's, so an English clause in a Hebrew answer reads left
 * to right inside its line.
 *
 * Hand-written rather than a markdown library: the subset is a few dozen lines, and a full
 * markdown renderer would produce HTML strings that then need sanitising.
 */
import { html, nothing, type TemplateResult } from 'lit';
import { answerSegments, documentValue } from '../answer/document-text.ts';
import { stripBidiControls } from '../core/bidi-controls.ts';
import { splitAtLinks, type TextLink } from './contact-links.ts';
import { textLang, langDirection, type Direction } from './direction.ts';

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

/**
 * A contact detail as a link (contact-links.ts): left to right and isolated, so "*1234" or an
 * address keeps its order in a Hebrew line, and kept whole on its line rather than broken at a
 * hyphen (styles.ts, `a.contact-link`).
 */
function renderLink(link: TextLink): TemplateResult {
  const external = link.kind === 'website';
  return html`<a class="contact-link" part="answer-link" data-kind=${link.kind} href=${link.href} dir="ltr"
    target=${external ? '_blank' : nothing} rel=${external ? 'noopener noreferrer' : nothing}>${link.text}</a>`;
}

function pushText(text: string, links: readonly TextLink[], parts: (TemplateResult | string)[]): void {
  for (const piece of splitAtLinks(text, links)) parts.push(typeof piece === 'string' ? piece : renderLink(piece));
}

/** Engine text: **bold** spans, [n] / [n, m] markers and the site's contact details; everything else is text. */
function renderEngineText(text: string, cite: CitationRenderer, links: readonly TextLink[], parts: (TemplateResult | string)[]): void {
  const pattern = /\*\*([^*]+)\*\*|\[(\s*\d{1,2}(?:\s*[,،]\s*\d{1,2})*\s*)\]/g;
  let last = 0;
  for (const match of text.matchAll(pattern)) {
    const at = match.index ?? 0;
    if (at > last) pushText(text.slice(last, at), links, parts);
    if (match[1] !== undefined) parts.push(html`<strong>${match[1]}</strong>`);
    else for (const n of match[2].split(/[,،]/).map((s) => Number(s.trim()))) parts.push(cite(n));
    last = at + match[0].length;
  }
  if (last < text.length) pushText(text.slice(last), links, parts);
}

/**
 * One line: the engine's text with its markers and bold, and the document text it quotes as
 * isolated plain text in the document's own direction (the line's, for a quote without letters).
 */
export function renderInline(text: string, cite: CitationRenderer, dir: Direction, links: readonly TextLink[] = []): (TemplateResult | string)[] {
  const parts: (TemplateResult | string)[] = [];
  for (const segment of answerSegments(text)) {
    if (segment.kind === 'document') {
      const value = documentValue(segment.text);
      const lang = textLang(value);
      if (value) parts.push(html`<bdi dir=${lang ? langDirection(lang) : dir} lang=${lang ?? nothing}>${value}</bdi>`);
    } else {
      renderEngineText(stripBidiControls(segment.text), cite, links, parts);
    }
  }
  return parts;
}

/**
 * `text` as paragraphs and lists, each line in `dir`: the answer's direction, whatever a line opens
 * with; `links`, the site's contact details, as links where the engine wrote them.
 */
export function renderRichText(text: string, cite: CitationRenderer, dir: Direction, links: readonly TextLink[] = []): TemplateResult {
  const blocks = parseBlocks(text);
  return html`${blocks.map((block) => {
    if (block.kind === 'p') {
      return html`<p dir=${dir}>${block.lines.map((line) => html`<span class="line" dir=${dir}>${renderInline(line, cite, dir, links)}</span>`)}</p>`;
    }
    const items = block.items.map((item) => html`<li class="line" dir=${dir}>${renderInline(item, cite, dir, links)}</li>`);
    return block.kind === 'ul' ? html`<ul dir=${dir}>${items}</ul>` : html`<ol dir=${dir}>${items}</ol>`;
  })}`;
}
