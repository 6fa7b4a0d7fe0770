/**
 * The script the crawler runs inside a rendered page: the links it ends up with (including those
 * JavaScript added) and its main content as a small standalone HTML document.
 *
 * It is a string, not a function handed to `page.evaluate`, because a function is shipped by its
 * source text, and the TypeScript loader may add helper calls to that text that do not exist in
 * the page.
 */

export interface PageLink {
  href: string;
  text: string;
}

export interface PageSnapshot {
  html: string;
  title: string;
  links: PageLink[];
}

/**
 * Keeps `<main>` (or the body when there is none) without scripts, styles and embeds; headings,
 * tables, lists and collapsed accordion text stay, because the builder's HTML parser reads them.
 * An `<h1>` outside `<main>` is kept too: it is often the page's only title.
 */
export const PAGE_SNAPSHOT_SCRIPT = `(() => {
  const links = [];
  for (const a of document.querySelectorAll('a[href], area[href]')) {
    if (a.href) links.push({ href: a.href, text: (a.textContent || '').replace(/\\s+/g, ' ').trim().slice(0, 200) });
  }
  const out = document.implementation.createHTMLDocument('');
  const root = document.documentElement;
  for (const name of ['lang', 'dir']) {
    const value = root.getAttribute(name);
    if (value) out.documentElement.setAttribute(name, value);
  }
  const charset = out.createElement('meta');
  charset.setAttribute('charset', 'utf-8');
  out.head.append(charset);
  out.title = document.title;
  const canonical = out.createElement('link');
  canonical.setAttribute('rel', 'canonical');
  canonical.setAttribute('href', location.href);
  out.head.append(canonical);
  const main = document.querySelector('main, [role="main"]');
  const source = main || document.body;
  if (source) {
    const copy = source.cloneNode(true);
    for (const el of copy.querySelectorAll('script, style, noscript, template, link, meta, iframe, object, embed, canvas')) el.remove();
    if (main && !main.querySelector('h1')) {
      const h1 = document.querySelector('h1');
      if (h1) out.body.append(h1.cloneNode(true));
    }
    if (main) out.body.append(copy);
    else out.body.append(...copy.childNodes);
  }
  return { html: '<!doctype html>\\n' + out.documentElement.outerHTML + '\\n', title: document.title, links };
})()`;
