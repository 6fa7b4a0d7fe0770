import { describe, expect, it } from 'vitest';
import { looksLikeHtml, parseHtml, parseWebFile } from '../../../builder/parse/html.ts';
import type { Block } from '../../../widget/core/schema.ts';

const PAGE = `<!doctype html>
<html lang="he" dir="rtl">
<head><title>ביטוח דירה | הראל</title><style>p { color: red }</style></head>
<body>
  <header><div class="logo">הראל</div><ul><li>ביטוח רכב</li></ul></header>
  <nav><a href="/">דף הבית</a> <a href="/car">ביטוח רכב</a></nav>
  <div id="cookie-banner">We use cookies. <button>Accept</button></div>
  <div class="main-menu">תפריט ראשי</div>
  <div role="navigation">ניווט משני</div>
  <h1>ביטוח   דירה</h1>
  <p>הפוליסה מכסה נזקי מים &amp; אש, כולל &quot;צד ג&#x27;&quot;.</p>
  <h2>Exclusions &ndash; what is <em>not</em> covered</h2>
  <ul><li>Wear and tear</li><li>Intentional damage</li></ul>
  <div>Direct text in a div<div>nested block</div>tail text</div>
  <p>first line<br>second line</p>
  <table>
    <caption>Deductibles</caption>
    <tr><th>Cover</th><th>Deductible</th></tr>
    <tr><td>Water damage</td><td>500 ₪</td></tr>
    <tr><td></td><td></td></tr>
  </table>
  <script>var x = "script text";</script>
  <noscript>enable javascript</noscript>
  <form><label>Name</label><input name="n"></form>
  <aside>related links</aside>
  <footer>כל הזכויות שמורות</footer>
</body></html>`;

function texts(blocks: Block[]): string[] {
  return blocks.map((b) => b.text);
}

describe('parseHtml', () => {
  const [page] = parseHtml(PAGE, 'page.html');
  const all = texts(page.blocks).join('\n');

  it('returns one page numbered 1', () => {
    expect(parseHtml(PAGE, 'page.html')).toHaveLength(1);
    expect(page.page).toBe(1);
  });

  it('drops navigation, header, footer, aside, forms, scripts, cookie banners and menus', () => {
    for (const gone of ['דף הבית', 'ביטוח רכב', 'cookies', 'Accept', 'תפריט ראשי', 'ניווט משני', 'script text', 'enable javascript', 'Name', 'related links', 'כל הזכויות שמורות', 'color: red']) {
      expect(all).not.toContain(gone);
    }
  });

  it('keeps headings with their levels, whitespace collapsed, Hebrew intact', () => {
    const headings = page.blocks.filter((b) => b.type === 'heading');
    expect(headings).toEqual([
      { type: 'heading', text: 'ביטוח דירה', level: 1 },
      { type: 'heading', text: 'Exclusions – what is not covered', level: 2 },
    ]);
  });

  it('decodes entities and keeps paragraphs, list items and direct div text as text blocks', () => {
    expect(page.blocks).toContainEqual({ type: 'text', text: 'הפוליסה מכסה נזקי מים & אש, כולל "צד ג\'".' });
    expect(texts(page.blocks)).toEqual(expect.arrayContaining(['Wear and tear', 'Intentional damage', 'Direct text in a div', 'nested block', 'tail text']));
  });

  it('turns <br> into a line break', () => {
    expect(page.blocks).toContainEqual({ type: 'text', text: 'first line\nsecond line' });
  });

  it('writes one row block per table row, cells joined with " | ", empty rows dropped', () => {
    expect(page.blocks.filter((b) => b.type === 'row')).toEqual([
      { type: 'row', text: 'Cover | Deductible' },
      { type: 'row', text: 'Water damage | 500 ₪' },
    ]);
    expect(texts(page.blocks)).toContain('Deductibles');
  });

  it('keeps the document order', () => {
    const order = texts(page.blocks);
    expect(order.indexOf('ביטוח דירה')).toBeLessThan(order.indexOf('Wear and tear'));
    expect(order.indexOf('Wear and tear')).toBeLessThan(order.indexOf('Cover | Deductible'));
  });

  it('prefers <main> (or role=main, or articles) over the rest of the body', () => {
    const html = '<body><div>site chrome outside main</div><main><h2>Claims</h2><p>How to claim.</p></main><div>more chrome</div></body>';
    expect(texts(parseHtml(html, 'x.html')[0].blocks)).toEqual(['Claims', 'How to claim.']);
    const role = '<body><p>outside</p><div role="main"><p>inside</p></div></body>';
    expect(texts(parseHtml(role, 'x.html')[0].blocks)).toEqual(['inside']);
    const articles = '<body><p>outside</p><article><p>one</p></article><article><p>two</p></article></body>';
    expect(texts(parseHtml(articles, 'x.html')[0].blocks)).toEqual(['one', 'two']);
  });

  it('does not mistake class names that merely contain a chrome word', () => {
    const html = '<body><div class="canvas-text">kept</div><div class="site-nav">dropped</div></body>';
    expect(texts(parseHtml(html, 'x.html')[0].blocks)).toEqual(['kept']);
  });

  it("reads a nested table inside a cell as that cell's text, not as rows of the outer table", () => {
    const html = '<table><tr><td>outer<table><tr><td>a</td><td>b</td></tr></table></td><td>z</td></tr></table>';
    expect(parseHtml(html, 'x.html')[0].blocks).toEqual([{ type: 'row', text: 'outer a b | z' }]);
  });
});

describe('web files saved as text', () => {
  // The shape of the shared scrape: an .aspx file holding the page's visible text, no markup.
  const scraped = 'ביטוח נסיעות | הראל ביטוח ופיננסיםדלג לתוכן ראשי ביטוח נסיעות לחו"ל מעניק כיסוי > פורטל לקוחות';

  it('detects markup versus text', () => {
    expect(looksLikeHtml(PAGE)).toBe(true);
    expect(looksLikeHtml('<div>fragment</div>')).toBe(true);
    expect(looksLikeHtml(scraped)).toBe(false);
    expect(looksLikeHtml('price < 5 and a > b')).toBe(false);
  });

  it('parses a text-saved .aspx with the text parser, and real markup as HTML', () => {
    const text = parseWebFile(scraped, 'travel/pages/x.aspx');
    expect(text.kind).toBe('txt');
    expect(text.pages).toEqual([{ page: 1, blocks: [{ type: 'text', text: scraped }] }]);
    const html = parseWebFile('<html><body><p>hello</p></body></html>', 'x.aspx');
    expect(html.kind).toBe('html');
    expect(html.pages[0].blocks).toEqual([{ type: 'text', text: 'hello' }]);
  });
});
