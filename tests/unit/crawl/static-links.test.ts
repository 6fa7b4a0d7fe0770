import { describe, expect, it } from 'vitest';
import { staticLinks } from '../../../builder/crawl/static-links.ts';

const PAGE = 'https://www.example.co.il/insurance/car/index.aspx';

describe('staticLinks', () => {
  it('resolves relative, root-relative, protocol-relative and absolute hrefs against the page', () => {
    const html = `<html><body>
      <a href="policy.pdf">Policy</a>
      <a href="../home/">Home insurance</a>
      <a href="/contact">Contact</a>
      <a href="//cdn.example.co.il/a.pdf">CDN</a>
      <a href="https://other.example.com/x?y=1#z">Other</a>
      <a href="?page=2">Next</a>
    </body></html>`;
    expect(staticLinks(html, PAGE).map((link) => link.href)).toEqual([
      'https://www.example.co.il/insurance/car/policy.pdf',
      'https://www.example.co.il/insurance/home/',
      'https://www.example.co.il/contact',
      'https://cdn.example.co.il/a.pdf',
      'https://other.example.com/x?y=1#z',
      'https://www.example.co.il/insurance/car/index.aspx?page=2',
    ]);
  });

  it('honours <base href>, for links before it too, and resolves a relative base against the page', () => {
    const html = `<html><head><base href="/docs/2024/"></head><body><a href="terms.pdf">Terms</a></body></html>`;
    expect(staticLinks(html, PAGE).map((link) => link.href)).toEqual(['https://www.example.co.il/docs/2024/terms.pdf']);
    const late = `<a href="a.html">A</a><base href="https://static.example.co.il/root/"><a href="b.html">B</a>`;
    expect(staticLinks(late, PAGE).map((link) => link.href)).toEqual(['https://static.example.co.il/root/a.html', 'https://static.example.co.il/root/b.html']);
  });

  it('uses only the first <base href>, and ignores an unparsable one', () => {
    const two = `<head><base href="https://one.example/"><base href="https://two.example/"></head><a href="x">X</a>`;
    expect(staticLinks(two, PAGE).map((link) => link.href)).toEqual(['https://one.example/x']);
    const bad = `<head><base href="http://[broken"></head><a href="x">X</a>`;
    expect(staticLinks(bad, PAGE).map((link) => link.href)).toEqual(['https://www.example.co.il/insurance/car/x']);
    const noHref = `<head><base target="_blank"></head><a href="x">X</a>`;
    expect(staticLinks(noHref, PAGE).map((link) => link.href)).toEqual(['https://www.example.co.il/insurance/car/x']);
  });

  it('collapses whitespace in anchor text, including nested elements, and caps it at 200 characters', () => {
    const html = `<a href="/a">
        ביטוח   <b>רכב</b>
        <span>מקיף</span>
      </a><a href="/b">${'x'.repeat(300)}</a><a href="/c"><img src="i.png"></a>`;
    const links = staticLinks(html, PAGE);
    expect(links[0]).toEqual({ href: 'https://www.example.co.il/a', text: 'ביטוח רכב מקיף' });
    expect(links[1].text).toHaveLength(200);
    expect(links[2]).toEqual({ href: 'https://www.example.co.il/c', text: '' });
  });

  it('reads <area href> and trims hrefs, and skips anchors without href', () => {
    const html = `<map><area href=" /map-target " alt="m"></map><a name="top">Top</a><a href="">Self</a>`;
    expect(staticLinks(html, PAGE)).toEqual([{ href: 'https://www.example.co.il/map-target', text: '' }]);
  });

  it('skips unparsable hrefs and keeps reading the page', () => {
    const html = `<a href="http://[::1">bad</a><a href="https://exa mple.com/">bad host</a><a href="/ok">OK</a>`;
    expect(staticLinks(html, PAGE)).toEqual([{ href: 'https://www.example.co.il/ok', text: 'OK' }]);
  });

  it('keeps Hebrew hrefs percent-encoded as URLs do', () => {
    expect(staticLinks('<a href="/ביטוח">ביטוח</a>', PAGE)[0].href).toBe('https://www.example.co.il/%D7%91%D7%99%D7%98%D7%95%D7%97');
  });
});
