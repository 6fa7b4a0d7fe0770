/**
 * HTML → blocks of the page's main content. Navigation, footers, cookie banners and scripts would
 * otherwise repeat on every page of a site and drown the real answers in boilerplate.
 */
import { parse, type DefaultTreeAdapterTypes } from 'parse5';
import type { Block, ParsedPage } from '../../widget/core/schema.ts';
import { parseText } from './text.ts';

type Node = DefaultTreeAdapterTypes.Node;
type Element = DefaultTreeAdapterTypes.Element;

const DROPPED_TAGS = new Set([
  'script',
  'style',
  'noscript',
  'nav',
  'header',
  'footer',
  'aside',
  'form',
  'svg',
  'iframe',
  'template',
  'button',
  'select',
  'textarea',
  'input',
  'dialog',
  'canvas',
  'video',
  'audio',
  'object',
  'embed',
  'head',
]);
const DROPPED_ROLES = new Set(['navigation', 'banner', 'contentinfo', 'search', 'menu', 'menubar', 'dialog', 'alertdialog']);
// Class/id words of site chrome; matched as whole dash/underscore-separated words so "menu" does
// not drop "menuhin" and "nav" does not drop "canvas-text".
const CHROME_WORDS =
  /(?:^|[\s_-])(cookies?|consent|gdpr|menu|menus|navbar|nav|navigation|breadcrumbs?|skip-?link|skip-?to|sidebar|share|social|popup|modal|megamenu|site-?header|site-?footer)(?:$|[\s_-])/i;
const INLINE_TAGS = new Set([
  'a',
  'abbr',
  'b',
  'bdi',
  'bdo',
  'cite',
  'code',
  'data',
  'del',
  'dfn',
  'em',
  'font',
  'i',
  'ins',
  'kbd',
  'label',
  'mark',
  'q',
  's',
  'samp',
  'small',
  'span',
  'strong',
  'sub',
  'sup',
  'time',
  'u',
  'var',
  'wbr',
  'img',
  'big',
  'nobr',
]);
const HEADING = /^h([1-6])$/;

function attr(element: Element, name: string): string | undefined {
  return element.attrs.find((a) => a.name === name)?.value;
}

function isDropped(element: Element): boolean {
  if (DROPPED_TAGS.has(element.tagName)) return true;
  const role = attr(element, 'role');
  if (role && DROPPED_ROLES.has(role.toLowerCase())) return true;
  if (attr(element, 'hidden') !== undefined || attr(element, 'aria-hidden') === 'true') return true;
  if (/display\s*:\s*none/i.test(attr(element, 'style') ?? '')) return true;
  const names = `${attr(element, 'class') ?? ''} ${attr(element, 'id') ?? ''}`;
  return CHROME_WORDS.test(names);
}

function children(node: Node): Node[] {
  if ('tagName' in node && node.tagName === 'template') return [];
  return 'childNodes' in node ? node.childNodes : [];
}

function isElement(node: Node): node is Element {
  return 'tagName' in node;
}

function findAll(node: Node, match: (e: Element) => boolean, out: Element[] = []): Element[] {
  for (const child of children(node)) {
    if (!isElement(child)) continue;
    if (match(child)) out.push(child);
    else findAll(child, match, out);
  }
  return out;
}

/** Text of a subtree with chrome removed, `<br>` kept as a newline. */
function textOf(node: Node): string {
  if (node.nodeName === '#text') return (node as DefaultTreeAdapterTypes.TextNode).value;
  if (!isElement(node) && node.nodeName !== '#document' && node.nodeName !== '#document-fragment') return '';
  if (isElement(node)) {
    if (isDropped(node)) return '';
    if (node.tagName === 'br') return '\n';
  }
  const inner = children(node).map(textOf).join('');
  return isElement(node) && !INLINE_TAGS.has(node.tagName) ? ` ${inner} ` : inner;
}

/** Collapses spaces line by line; `<br>` line breaks survive, empty lines do not. */
function normalise(text: string): string {
  return text
    .split('\n')
    .map((line) => line.replace(/\s+/g, ' ').trim())
    .filter(Boolean)
    .join('\n');
}

class BlockCollector {
  readonly blocks: Block[] = [];
  private buffer = '';

  flush(): void {
    const text = normalise(this.buffer);
    if (text) this.blocks.push({ type: 'text', text });
    this.buffer = '';
  }

  walk(node: Node): void {
    if (node.nodeName === '#text') {
      this.buffer += (node as DefaultTreeAdapterTypes.TextNode).value;
      return;
    }
    if (!isElement(node)) {
      if (node.nodeName === '#document' || node.nodeName === '#document-fragment') children(node).forEach((c) => this.walk(c));
      return;
    }
    if (isDropped(node)) return;
    const tag = node.tagName;
    if (tag === 'br') {
      this.buffer += '\n';
      return;
    }
    if (INLINE_TAGS.has(tag)) {
      children(node).forEach((c) => this.walk(c));
      return;
    }
    this.flush();
    const heading = HEADING.exec(tag);
    if (heading) {
      const text = normalise(textOf(node)).replace(/\n/g, ' ');
      if (text) this.blocks.push({ type: 'heading', text, level: Number(heading[1]) });
    } else if (tag === 'table') {
      this.table(node);
    } else {
      children(node).forEach((c) => this.walk(c));
    }
    this.flush();
  }

  private table(table: Element): void {
    // Only this table's own caption and rows: a nested table is read as text inside its cell.
    const own = findAll(table, (e) => e.tagName === 'tr' || e.tagName === 'caption' || e.tagName === 'table');
    for (const element of own) {
      if (element.tagName === 'caption') {
        const text = normalise(textOf(element)).replace(/\n/g, ' ');
        if (text) this.blocks.push({ type: 'text', text });
        continue;
      }
      if (element.tagName !== 'tr') continue;
      const cells = children(element)
        .filter((c): c is Element => isElement(c) && (c.tagName === 'td' || c.tagName === 'th') && !isDropped(c))
        .map((cell) => normalise(textOf(cell)).replace(/\n/g, ' '))
        .filter(Boolean);
      if (cells.length) this.blocks.push({ type: 'row', text: cells.join(' | ') });
    }
  }
}

/** The element holding the main content: `<main>`, `[role=main]`, else the articles, else the body. */
function contentRoots(document: Node): Node[] {
  const main = findAll(document, (e) => e.tagName === 'main' || attr(e, 'role') === 'main');
  if (main.length) return main;
  const articles = findAll(document, (e) => e.tagName === 'article');
  if (articles.length) return articles;
  return [document];
}

export function parseHtml(html: string, _file: string): ParsedPage[] {
  const document = parse(html.replace(/^\uFEFF/, ''));
  const collector = new BlockCollector();
  for (const root of contentRoots(document)) collector.walk(root);
  collector.flush();
  return [{ page: 1, blocks: collector.blocks }];
}

const HTML_SIGNS = /<(?:!doctype\s+html|html|head|body|div|p|span|table|main|article|section|h[1-6]|ul|ol|li|a|br|meta|title|script|link)[\s>/]/i;

/**
 * True when a web file holds markup; scrapers also save a page's visible TEXT under `.aspx`/`.html`
 * names (the shared Harel scrape does), and parsing that as HTML would keep the boilerplate anyway
 * while losing the line structure.
 */
export function looksLikeHtml(content: string): boolean {
  return HTML_SIGNS.test(content.slice(0, 20_000));
}

/** A `.html`/`.htm`/`.aspx` file: parsed as HTML when it is markup, else as plain text. */
export function parseWebFile(content: string, file: string): { kind: 'html' | 'txt'; pages: ParsedPage[] } {
  return looksLikeHtml(content) ? { kind: 'html', pages: parseHtml(content, file) } : { kind: 'txt', pages: parseText(content, file) };
}
