import { describe, expect, it } from 'vitest';
import { ROBOTS_AGENT, allowAll, disallowAll, parseRobots, robotsFromStatus } from '../../../builder/crawl/robots.ts';

const ORIGIN = 'https://www.example.co.il';
const ROBOTS_URL = `${ORIGIN}/robots.txt`;
/** `/ביטוח/` and `/רכב/` percent-encoded, as normalised URLs spell them. */
const BITUACH = '%D7%91%D7%99%D7%98%D7%95%D7%97';
const RECHEV = '%D7%A8%D7%9B%D7%91';

describe('parseRobots', () => {
  it('refuses Disallow paths and allows the rest', () => {
    const rules = parseRobots(ROBOTS_URL, 'User-agent: *\nDisallow: /private/\nDisallow: /search\n');
    expect(rules.isAllowed(`${ORIGIN}/private/a.pdf`)).toBe(false);
    expect(rules.isAllowed(`${ORIGIN}/search?q=x`)).toBe(false);
    expect(rules.isAllowed(`${ORIGIN}/searching`)).toBe(false);
    expect(rules.isAllowed(`${ORIGIN}/public/a.pdf`)).toBe(true);
    expect(rules.isAllowed(`${ORIGIN}/`)).toBe(true);
    expect(rules.refusal).toBeNull();
  });

  it('matches Hebrew Disallow paths written raw or percent-encoded against percent-encoded URLs', () => {
    const rules = parseRobots(ROBOTS_URL, `User-agent: *\nDisallow: /ביטוח/\nDisallow: /${RECHEV}/\n`);
    expect(rules.isAllowed(`${ORIGIN}/${BITUACH}/x`)).toBe(false);
    expect(rules.isAllowed(`${ORIGIN}/${RECHEV}/y`)).toBe(false);
    expect(rules.isAllowed(`${ORIGIN}/ביטוח/x`)).toBe(false);
    expect(rules.isAllowed(`${ORIGIN}/${BITUACH}`)).toBe(true);
    expect(rules.isAllowed(`${ORIGIN}/other`)).toBe(true);
  });

  it('lets the longest matching Allow override a Disallow', () => {
    const rules = parseRobots(ROBOTS_URL, 'User-agent: *\nDisallow: /docs/\nAllow: /docs/public/\nDisallow: /docs/public/drafts/\n');
    expect(rules.isAllowed(`${ORIGIN}/docs/internal.pdf`)).toBe(false);
    expect(rules.isAllowed(`${ORIGIN}/docs/public/terms.pdf`)).toBe(true);
    expect(rules.isAllowed(`${ORIGIN}/docs/public/drafts/v2.pdf`)).toBe(false);
  });

  it('prefers a group naming harel-builder over the * group', () => {
    const text = ['User-agent: *', 'Disallow: /', 'Crawl-delay: 10', '', `User-agent: ${ROBOTS_AGENT}`, 'Disallow: /admin/', 'Crawl-delay: 1.5'].join('\n');
    const rules = parseRobots(ROBOTS_URL, text);
    expect(rules.isAllowed(`${ORIGIN}/insurance`)).toBe(true);
    expect(rules.isAllowed(`${ORIGIN}/admin/x`)).toBe(false);
    expect(rules.crawlDelayMs).toBe(1500);
  });

  it('falls back to the * group when no group names us', () => {
    const rules = parseRobots(ROBOTS_URL, 'User-agent: googlebot\nDisallow:\n\nUser-agent: *\nDisallow: /\nCrawl-delay: 2\n');
    expect(rules.isAllowed(`${ORIGIN}/anything`)).toBe(false);
    expect(rules.crawlDelayMs).toBe(2000);
  });

  it('has no Crawl-delay unless a positive number is given', () => {
    expect(parseRobots(ROBOTS_URL, 'User-agent: *\nDisallow: /x\n').crawlDelayMs).toBeUndefined();
    expect(parseRobots(ROBOTS_URL, 'User-agent: *\nCrawl-delay: 0\n').crawlDelayMs).toBeUndefined();
    expect(parseRobots(ROBOTS_URL, 'User-agent: *\nCrawl-delay: soon\n').crawlDelayMs).toBeUndefined();
  });

  it('lists Sitemap lines, outside any group too', () => {
    const text = `Sitemap: ${ORIGIN}/sitemap.xml\nUser-agent: *\nDisallow: /x\nSitemap: ${ORIGIN}/sitemap-pdf.xml\n`;
    expect(parseRobots(ROBOTS_URL, text).sitemaps).toEqual([`${ORIGIN}/sitemap.xml`, `${ORIGIN}/sitemap-pdf.xml`]);
    expect(parseRobots(ROBOTS_URL, 'User-agent: *\nDisallow:\n').sitemaps).toEqual([]);
  });

  it('allows everything for an empty robots.txt', () => {
    const rules = parseRobots(ROBOTS_URL, '');
    expect(rules.isAllowed(`${ORIGIN}/anything`)).toBe(true);
    expect(rules.crawlDelayMs).toBeUndefined();
  });
});

describe('robotsFromStatus', () => {
  const TEXT = 'User-agent: *\nDisallow: /private/\nSitemap: https://www.example.co.il/sitemap.xml\n';

  it('parses the text of a 2xx', () => {
    const rules = robotsFromStatus(ROBOTS_URL, 200, TEXT);
    expect(rules.isAllowed(`${ORIGIN}/private/x`)).toBe(false);
    expect(rules.isAllowed(`${ORIGIN}/public`)).toBe(true);
    expect(rules.sitemaps).toEqual([`${ORIGIN}/sitemap.xml`]);
    expect(rules.refusal).toBeNull();
  });

  it.each([400, 401, 403, 404, 410])('allows everything on %i, ignoring the body', (status) => {
    const rules = robotsFromStatus(ROBOTS_URL, status, TEXT);
    expect(rules.isAllowed(`${ORIGIN}/private/x`)).toBe(true);
    expect(rules.sitemaps).toEqual([]);
    expect(rules.refusal).toBeNull();
  });

  it.each([500, 502, 503])('disallows everything on %i, saying why', (status) => {
    const rules = robotsFromStatus(ROBOTS_URL, status, TEXT);
    expect(rules.isAllowed(`${ORIGIN}/public`)).toBe(false);
    expect(rules.isAllowed(`${ORIGIN}/`)).toBe(false);
    expect(rules.refusal).toBe(`HTTP ${status}`);
  });
});

describe('allowAll and disallowAll', () => {
  it('answer as named', () => {
    expect(allowAll().isAllowed(`${ORIGIN}/x`)).toBe(true);
    expect(allowAll().refusal).toBeNull();
    const refused = disallowAll('ECONNREFUSED');
    expect(refused.isAllowed(`${ORIGIN}/x`)).toBe(false);
    expect(refused.refusal).toBe('ECONNREFUSED');
  });
});
