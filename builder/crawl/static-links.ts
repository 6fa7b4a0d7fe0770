/**
 * Links of an HTML page read without running it (`--no-render`), honouring `<base href>`.
 */
import { parse, type DefaultTreeAdapterTypes } from 'parse5';
import type { PageLink } from './page-snapshot.ts';

type Node = DefaultTreeAdapterTypes.Node;
type Element = DefaultTreeAdapterTypes.Element;

function isElement(node: Node): node is Element {
  return 'tagName' in node;
}

function textOf(node: Node): string {
  if (node.nodeName === '#text') return (node as DefaultTreeAdapterTypes.TextNode).value;
  return 'childNodes' in node ? node.childNodes.map(textOf).join('') : '';
}

function attr(element: Element, name: string): string | undefined {
  return element.attrs.find((a) => a.name === name)?.value;
}

export function staticLinks(html: string, pageUrl: string): PageLink[] {
  const anchors: Element[] = [];
  let base = pageUrl;
  let baseSeen = false;
  const walk = (node: Node): void => {
    for (const child of 'childNodes' in node ? node.childNodes : []) {
      if (!isElement(child)) continue;
      // As in browsers, only the first <base href> counts, and an unparsable one is ignored.
      if (child.tagName === 'base' && attr(child, 'href') && !baseSeen) {
        baseSeen = true;
        base = URL.canParse(attr(child, 'href')!, pageUrl) ? new URL(attr(child, 'href')!, pageUrl).href : pageUrl;
      }
      if ((child.tagName === 'a' || child.tagName === 'area') && attr(child, 'href')) anchors.push(child);
      walk(child);
    }
  };
  walk(parse(html));
  const links: PageLink[] = [];
  for (const anchor of anchors) {
    try {
      links.push({ href: new URL(attr(anchor, 'href')!.trim(), base).href, text: textOf(anchor).replace(/\s+/g, ' ').trim().slice(0, 200) });
    } catch {
      // An unparsable href is a broken link on the site, not a reason to stop reading the page.
    }
  }
  return links;
}
