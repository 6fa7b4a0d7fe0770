import { gzipSync } from 'node:zlib';
import { describe, expect, it } from 'vitest';
import { decodeSitemapBody, parseSitemap } from '../../../builder/crawl/sitemap.ts';
import { isHarelError } from '../../../builder/errors.ts';

const URLSET = `<?xml version="1.0" encoding="UTF-8"?>
<urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9">
  <url>
    <loc>https://www.example.co.il/</loc>
    <lastmod>2024-05-01</lastmod>
    <changefreq>weekly</changefreq>
  </url>
  <url><loc>https://www.example.co.il/%D7%91%D7%99%D7%98%D7%95%D7%97</loc></url>
</urlset>`;

describe('parseSitemap', () => {
  it('reads a urlset with optional lastmod', () => {
    expect(parseSitemap(URLSET)).toEqual({
      urls: [{ loc: 'https://www.example.co.il/', lastmod: '2024-05-01' }, { loc: 'https://www.example.co.il/%D7%91%D7%99%D7%98%D7%95%D7%97' }],
      sitemaps: [],
    });
  });

  it('reads a sitemap index into sitemaps', () => {
    const xml = `<sitemapindex xmlns="http://www.sitemaps.org/schemas/sitemap/0.9">
      <sitemap><loc>https://www.example.co.il/sitemap-pages.xml</loc><lastmod>2024-01-01</lastmod></sitemap>
      <sitemap>
        <loc>https://www.example.co.il/sitemap-docs.xml.gz</loc>
      </sitemap>
    </sitemapindex>`;
    expect(parseSitemap(xml)).toEqual({
      urls: [],
      sitemaps: ['https://www.example.co.il/sitemap-pages.xml', 'https://www.example.co.il/sitemap-docs.xml.gz'],
    });
  });

  it('accepts namespace prefixes, attributes, CDATA, whitespace and a BOM', () => {
    const xml = `\uFEFF<sm:urlset xmlns:sm="http://www.sitemaps.org/schemas/sitemap/0.9">
      <sm:url id="1">
        <sm:loc>
          <![CDATA[https://www.example.co.il/a?x=1&y=2]]>
        </sm:loc>
        <sm:lastmod >2024-02-03T10:00:00+02:00</sm:lastmod>
      </sm:url>
    </sm:urlset>`;
    expect(parseSitemap(xml).urls).toEqual([{ loc: 'https://www.example.co.il/a?x=1&y=2', lastmod: '2024-02-03T10:00:00+02:00' }]);
  });

  it('decodes XML entities, named and numeric', () => {
    const xml = '<urlset><url><loc>https://x.co.il/a?b=1&amp;c=&lt;&gt;&quot;&apos;&#1488;&#x5D1;&unknown;</loc></url></urlset>';
    expect(parseSitemap(xml).urls[0].loc).toBe('https://x.co.il/a?b=1&c=<>"\'אב&unknown;');
  });

  it("does not take an image extension's <image:loc> for the page", () => {
    const xml = `<urlset xmlns:image="http://www.google.com/schemas/sitemap-image/1.1">
      <url>
        <image:image><image:loc>https://x.co.il/photo.jpg</image:loc></image:image>
        <loc>https://x.co.il/page</loc>
      </url>
    </urlset>`;
    expect(parseSitemap(xml).urls).toEqual([{ loc: 'https://x.co.il/page' }]);
  });

  it('ignores comments and entries without a loc', () => {
    const xml = `<urlset>
      <!-- <url><loc>https://x.co.il/commented-out</loc></url> -->
      <url><lastmod>2024-01-01</lastmod></url>
      <url><loc>   </loc></url>
      <url><loc>https://x.co.il/kept</loc></url>
    </urlset>`;
    expect(parseSitemap(xml).urls).toEqual([{ loc: 'https://x.co.il/kept' }]);
  });

  it('returns what it found in broken or truncated XML, and never throws', () => {
    const truncated = '<urlset><url><loc>https://x.co.il/1</loc></url><url><loc>https://x.co.il/2</loc><url><loc>https://x.co.il/3</l';
    expect(parseSitemap(truncated).urls.map((u) => u.loc)).toEqual(['https://x.co.il/1', 'https://x.co.il/2']);
    for (const junk of ['', 'not xml at all', '<html><body>404</body></html>', '<<<>>>&&&;', '<url><loc>']) {
      expect(parseSitemap(junk)).toEqual({ urls: [], sitemaps: [] });
    }
  });
});

describe('decodeSitemapBody', () => {
  const bytes = new TextEncoder().encode(URLSET);

  it('decodes plain UTF-8, dropping a BOM', () => {
    const withBom = new Uint8Array([0xef, 0xbb, 0xbf, ...bytes]);
    expect(decodeSitemapBody(withBom, 'application/xml', 'https://x.co.il/sitemap.xml')).toBe(URLSET);
  });

  it('gunzips a gzip body whatever the URL and content type say', () => {
    const gz = new Uint8Array(gzipSync(bytes));
    expect(decodeSitemapBody(gz, 'application/x-gzip', 'https://x.co.il/sitemap.xml.gz')).toBe(URLSET);
    expect(decodeSitemapBody(gz, 'text/xml', 'https://x.co.il/sitemap.xml')).toBe(URLSET);
    expect(decodeSitemapBody(gz, null, 'https://x.co.il/sitemap')).toBe(URLSET);
  });

  it('reads a .gz URL whose body fetch already decompressed as text', () => {
    expect(decodeSitemapBody(bytes, 'application/gzip', 'https://x.co.il/sitemap.xml.gz')).toBe(URLSET);
  });

  it('honours a charset the server declares', () => {
    const hebrew1255 = new Uint8Array([0x3c, 0x6c, 0x6f, 0x63, 0x3e, 0xe0, 0x3c, 0x2f, 0x6c, 0x6f, 0x63, 0x3e]);
    expect(decodeSitemapBody(hebrew1255, 'text/xml; charset=windows-1255', 'https://x.co.il/s.xml')).toBe('<loc>א</loc>');
    expect(decodeSitemapBody(bytes, 'text/xml; charset=no-such-charset', 'https://x.co.il/s.xml')).toBe(URLSET);
  });

  it('throws CRAWL_SITEMAP_UNREADABLE for a corrupt gzip body', () => {
    const gz = gzipSync(bytes);
    const cut = new Uint8Array(gz.subarray(0, gz.length >> 1));
    let caught: unknown;
    try {
      decodeSitemapBody(cut, null, 'https://x.co.il/sitemap.xml.gz');
    } catch (error) {
      caught = error;
    }
    expect(isHarelError(caught, 'CRAWL_SITEMAP_UNREADABLE')).toBe(true);
    expect((caught as Error).message).toContain('https://x.co.il/sitemap.xml.gz');
  });
});
