import { describe, expect, it } from 'vitest';
import { decodePercent, displayUrl, normalizeUrl, TRACKING_PARAMETERS } from '../../../builder/crawl/normalize-url.ts';

const BITUACH_UPPER = '/%D7%91%D7%99%D7%98%D7%95%D7%97';
const BITUACH_LOWER = '/%d7%91%d7%99%d7%98%d7%95%d7%97';

describe('normalizeUrl: what is crawlable', () => {
  it.each(['mailto:info@example.co.il', 'tel:+972-3-1234567', 'javascript:void(0)', 'data:text/plain,hi', 'blob:https://example.co.il/1234', 'ftp://example.co.il/file', 'http://', 'not a url'])(
    'rejects %s',
    (href) => {
      expect(normalizeUrl(href)).toBeNull();
    },
  );

  it('rejects a relative href without a base, and with an unparsable base', () => {
    expect(normalizeUrl('/a')).toBeNull();
    expect(normalizeUrl('/a', 'nonsense')).toBeNull();
  });

  it('resolves relative hrefs against the base', () => {
    expect(normalizeUrl('../b/c?x=1', 'https://example.co.il/a/page')).toBe('https://example.co.il/b/c?x=1');
    expect(normalizeUrl('//other.co.il/x', 'https://example.co.il/a')).toBe('https://other.co.il/x');
    expect(normalizeUrl('  /a/\n\tb  ', 'https://example.co.il/')).toBe('https://example.co.il/a/b');
    expect(normalizeUrl('', 'https://example.co.il/a#frag')).toBe('https://example.co.il/a');
  });
});

describe('normalizeUrl: one spelling per page', () => {
  it('lower-cases scheme and host, drops default ports, keeps other ports', () => {
    expect(normalizeUrl('HTTPS://Example.CO.IL:443/Path')).toBe('https://example.co.il/Path');
    expect(normalizeUrl('http://example.co.il:80/')).toBe('http://example.co.il/');
    expect(normalizeUrl('http://example.co.il:8080/')).toBe('http://example.co.il:8080/');
  });

  it('drops the fragment', () => {
    expect(normalizeUrl('https://example.co.il/a#section-2')).toBe('https://example.co.il/a');
    expect(normalizeUrl('https://example.co.il/a?x=1#top')).toBe('https://example.co.il/a?x=1');
  });

  it('removes a trailing slash except from the root path', () => {
    expect(normalizeUrl('https://example.co.il/insurance/car/')).toBe('https://example.co.il/insurance/car');
    expect(normalizeUrl('https://example.co.il/')).toBe('https://example.co.il/');
    expect(normalizeUrl('https://example.co.il')).toBe('https://example.co.il/');
    expect(normalizeUrl('https://example.co.il/a/?q=1')).toBe('https://example.co.il/a?q=1');
  });

  it('collapses repeated slashes in the path', () => {
    expect(normalizeUrl('https://example.co.il//a///b')).toBe('https://example.co.il/a/b');
    expect(normalizeUrl('https://example.co.il///')).toBe('https://example.co.il/');
  });

  it('resolves dot segments, also when written as escapes', () => {
    expect(normalizeUrl('https://example.co.il/a/./b/../c')).toBe('https://example.co.il/a/c');
    expect(normalizeUrl('https://example.co.il/a/%2e%2E/c')).toBe('https://example.co.il/c');
  });

  it('decodes escaped unreserved characters and upper-cases the other escapes', () => {
    expect(normalizeUrl('https://example.co.il/%7euser/%41b%2d%5f%2E')).toBe('https://example.co.il/~user/Ab-_.');
    expect(normalizeUrl('https://example.co.il/a%2fb%3a')).toBe('https://example.co.il/a%2Fb%3A');
  });

  it('keeps %2F escaped: it is a different path from a real slash', () => {
    expect(normalizeUrl('https://example.co.il/a%2Fb')).not.toBe(normalizeUrl('https://example.co.il/a/b'));
  });

  it('spells Hebrew the same whether raw, lower-hex or upper-hex', () => {
    const expected = `https://example.co.il${BITUACH_UPPER}`;
    expect(normalizeUrl('https://example.co.il/ביטוח')).toBe(expected);
    expect(normalizeUrl(`https://example.co.il${BITUACH_LOWER}`)).toBe(expected);
    expect(normalizeUrl(`https://example.co.il${BITUACH_UPPER}/`)).toBe(expected);
    expect(normalizeUrl('ביטוח', 'https://example.co.il/')).toBe(expected);
  });

  it('normalises escapes and Hebrew in the query too', () => {
    const raw = normalizeUrl('https://example.co.il/search?q=רכב&x=%7e%2f');
    const lower = normalizeUrl('https://example.co.il/search?q=%d7%a8%d7%9b%d7%91&x=~%2F');
    expect(raw).toBe('https://example.co.il/search?q=%D7%A8%D7%9B%D7%91&x=~%2F');
    expect(lower).toBe(raw);
  });

  it('is idempotent', () => {
    for (const href of ['https://Example.co.il//ביטוח/?b=2&a=1&utm_source=x#f', 'https://example.co.il/%7e/a%2fb?z&y=%d7%90']) {
      const once = normalizeUrl(href) as string;
      expect(normalizeUrl(once)).toBe(once);
    }
  });
});

describe('normalizeUrl: query parameters', () => {
  it('drops tracking parameters, case-insensitively, and an emptied query', () => {
    expect(normalizeUrl('https://example.co.il/a?utm_source=x&UTM_Medium=y&utm_anything=z')).toBe('https://example.co.il/a');
    expect(normalizeUrl('https://example.co.il/a?GCLID=1&fbclid=2&_ga=3&_gl=4&msclkid=5&id=7')).toBe('https://example.co.il/a?id=7');
    expect(normalizeUrl('https://example.co.il/a?mc_cid=1&mc_eid=2&_hsenc=3&_hsmi=4&mkt_tok=5&srsltid=6')).toBe('https://example.co.il/a');
    expect(normalizeUrl('https://example.co.il/a?gclsrc=1&dclid=2&yclid=3&igshid=4')).toBe('https://example.co.il/a');
  });

  it('recognises a percent-encoded tracking name', () => {
    expect(normalizeUrl('https://example.co.il/a?utm%5Fsource=x&p=1')).toBe('https://example.co.il/a?p=1');
  });

  it('keeps parameters that only resemble tracking ones', () => {
    expect(normalizeUrl('https://example.co.il/a?utm=1&my_utm_x=2&gclid_x=3')).toBe('https://example.co.il/a?gclid_x=3&my_utm_x=2&utm=1');
  });

  it('sorts by key, keeping repeated keys in their order', () => {
    expect(normalizeUrl('https://example.co.il/a?b=2&a=9&b=1&a=3')).toBe('https://example.co.il/a?a=9&a=3&b=2&b=1');
  });

  it('drops an empty query and empty pairs, keeps bare keys and + as written', () => {
    expect(normalizeUrl('https://example.co.il/a?')).toBe('https://example.co.il/a');
    expect(normalizeUrl('https://example.co.il/a?&&')).toBe('https://example.co.il/a');
    expect(normalizeUrl('https://example.co.il/a?print&&q=a+b')).toBe('https://example.co.il/a?print&q=a+b');
  });

  it('lists the documented tracking parameters', () => {
    expect(TRACKING_PARAMETERS).toContain('utm_*');
    expect(TRACKING_PARAMETERS).toContain('fbclid');
    expect(TRACKING_PARAMETERS).toHaveLength(16);
  });
});

describe('displayUrl', () => {
  it('shows Hebrew paths and queries readable', () => {
    expect(displayUrl(`https://example.co.il${BITUACH_UPPER}?q=%D7%A8%D7%9B%D7%91`)).toBe('https://example.co.il/ביטוח?q=רכב');
    expect(displayUrl(normalizeUrl('https://example.co.il/ביטוח/רכב') as string)).toBe('https://example.co.il/ביטוח/רכב');
  });

  it('accepts a bare path', () => {
    expect(displayUrl(`${BITUACH_LOWER}/`)).toBe('/ביטוח/');
  });

  it('keeps reserved escapes so the text stays unambiguous', () => {
    expect(displayUrl('https://example.co.il/a%2Fb?x=%26%3D')).toBe('https://example.co.il/a%2Fb?x=%26%3D');
  });

  it('falls back to the escapes as written when they are not UTF-8', () => {
    expect(displayUrl('https://example.co.il/%D7')).toBe('https://example.co.il/%D7');
    expect(displayUrl('https://example.co.il/%FF/%D7%90')).toBe('https://example.co.il/%FF/א');
    expect(decodePercent('no escapes %zz')).toBe('no escapes %zz');
  });
});
