import { describe, expect, it } from 'vitest';
import { domainFor, parseDomainRules } from '../../../builder/crawl/domain-map.ts';
import { isHarelError } from '../../../builder/errors.ts';

function badArgument(values: string[]): unknown {
  try {
    parseDomainRules(values);
  } catch (error) {
    return error;
  }
  return undefined;
}

describe('parseDomainRules', () => {
  it('reads one inline prefix=domain', () => {
    expect(parseDomainRules(['/insurance/car/=car'])).toEqual([{ prefix: '/insurance/car/', domain: 'car' }]);
  });

  it('reads comma lists and repeated values, trimming spaces', () => {
    const rules = parseDomainRules(['/health/=health, /travel/=travel', '/car/=car']);
    expect(rules.map((rule) => `${rule.prefix}=${rule.domain}`).sort()).toEqual(['/car/=car', '/health/=health', '/travel/=travel']);
  });

  it('decodes percent-encoded prefixes and accepts Hebrew domains and full-URL prefixes', () => {
    const rules = parseDomainRules(['/%D7%91%D7%99%D7%98%D7%95%D7%97/=ביטוח', 'https://www.example.co.il/apartment/=apartment']);
    expect(rules).toContainEqual({ prefix: '/ביטוח/', domain: 'ביטוח' });
    expect(rules).toContainEqual({ prefix: 'https://www.example.co.il/apartment/', domain: 'apartment' });
  });

  it('orders rules longest prefix first', () => {
    const rules = parseDomainRules(['/insurance/=insurance,/insurance/car/=car,/=general']);
    expect(rules.map((rule) => rule.domain)).toEqual(['car', 'insurance', 'general']);
    expect(domainFor('https://x.co.il/insurance/car/policy', rules)).toBe('car');
    expect(domainFor('https://x.co.il/insurance/home', rules)).toBe('insurance');
    expect(domainFor('https://x.co.il/about', rules)).toBe('general');
  });

  it.each([
    ['no equals sign', '/insurance/car/'],
    ['no prefix', '=car'],
    ['no domain', '/insurance/car/='],
    ['a prefix that is neither a path nor an http(s) URL', 'insurance/=car'],
    ['an ftp URL prefix', 'ftp://x/=car'],
    ['a domain of two words', '/car/=car insurance'],
    ['a domain with a slash', '/car/=car/new'],
    ['an empty item in a list', '/car/=car,'],
  ])('throws BAD_ARGUMENT for %s', (_, value) => {
    const error = badArgument([value]);
    expect(isHarelError(error, 'BAD_ARGUMENT')).toBe(true);
  });
});

describe('domainFor', () => {
  const rules = parseDomainRules(['/ביטוח/רכב/=car', '/insurance/car/=car', '/insurance/=insurance', 'https://docs.example.co.il/=docs']);

  it('matches a Hebrew prefix against percent-encoded URLs, in either hex case', () => {
    expect(domainFor('https://www.example.co.il/%D7%91%D7%99%D7%98%D7%95%D7%97/%D7%A8%D7%9B%D7%91/%D7%9E%D7%A7%D7%99%D7%A3', rules)).toBe('car');
    expect(domainFor('https://www.example.co.il/%d7%91%d7%99%d7%98%d7%95%d7%97/%d7%a8%d7%9b%d7%91', rules)).toBe('car');
    expect(domainFor('https://www.example.co.il/ביטוח/רכב/x', rules)).toBe('car');
    expect(domainFor('https://www.example.co.il/%D7%91%D7%99%D7%98%D7%95%D7%97/%D7%93%D7%99%D7%A8%D7%94', rules)).toBeUndefined();
  });

  it('matches the folder page without its trailing slash but not a longer sibling name', () => {
    expect(domainFor('https://x/insurance/car', rules)).toBe('car');
    expect(domainFor('https://x/insurance/car/', rules)).toBe('car');
    expect(domainFor('https://x/insurance/cars', rules)).toBe('insurance');
    expect(domainFor('https://x/insurancex', rules)).toBeUndefined();
  });

  it('keeps a folder page with a query in its folder', () => {
    expect(domainFor('https://x/insurance/car?page=2', rules)).toBe('car');
    expect(domainFor('https://x/insurance/car/list?page=2', rules)).toBe('car');
    expect(domainFor('https://x/insurance/cars?page=2', rules)).toBe('insurance');
  });

  it('matches full-URL prefixes on the whole URL only', () => {
    expect(domainFor('https://docs.example.co.il/guide.pdf', rules)).toBe('docs');
    expect(domainFor('https://docs.example.co.il', rules)).toBe('docs');
    expect(domainFor('https://www.example.co.il/guide.pdf', rules)).toBeUndefined();
    expect(domainFor('http://docs.example.co.il/guide.pdf', rules)).toBeUndefined();
  });

  it('answers undefined when nothing matches or there are no rules', () => {
    expect(domainFor('https://x/contact', rules)).toBeUndefined();
    expect(domainFor('https://x/insurance/car', [])).toBeUndefined();
  });
});
