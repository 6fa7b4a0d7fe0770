import { describe, expect, it } from 'vitest';
import { createScope, pathPattern } from '../../../builder/crawl/scope.ts';
import { isHarelError } from '../../../builder/errors.ts';

const SITE = 'https://www.example.co.il';

describe('createScope: start URLs', () => {
  it('lists the start origins once each', () => {
    const scope = createScope({ startUrls: [`${SITE}/a`, `${SITE}/b`, 'http://other.co.il:8080/'] });
    expect(scope.hosts).toEqual([SITE, 'http://other.co.il:8080']);
  });

  it('rejects a start URL that is not http(s) with BAD_ARGUMENT', () => {
    for (const bad of ['ftp://example.co.il/', 'www.example.co.il', 'mailto:a@b.c']) {
      let caught: unknown;
      try {
        createScope({ startUrls: [bad] });
      } catch (error) {
        caught = error;
      }
      expect(isHarelError(caught, 'BAD_ARGUMENT')).toBe(true);
      expect((caught as Error).message).toContain(`"${bad}" is not an http(s) URL.`);
    }
  });

  it('keeps pages of other origins out: host, scheme and port must all match', () => {
    const scope = createScope({ startUrls: [`${SITE}/`] });
    expect(scope.check(`${SITE}/anything`, 'page')).toBeNull();
    expect(scope.check('https://WWW.Example.co.il:443/x', 'page')).toBeNull();
    expect(scope.check('https://example.co.il/x', 'page')).toBe('other host');
    expect(scope.check('http://www.example.co.il/x', 'page')).toBe('other host');
    expect(scope.check('https://www.example.co.il:8443/x', 'page')).toBe('other host');
    expect(scope.check('https://cdn.example.co.il/file.pdf', 'document')).toBe('other host');
  });

  it('says why a non-http URL is out', () => {
    expect(createScope({ startUrls: [`${SITE}/`] }).check('mailto:a@b.c', 'page')).toBe('not an http(s) URL');
  });
});

describe('createScope: start paths', () => {
  const scope = createScope({ startUrls: [`${SITE}/insurance/car/`] });

  it('takes pages at and below the start path, on a segment boundary', () => {
    expect(scope.check(`${SITE}/insurance/car`, 'page')).toBeNull();
    expect(scope.check(`${SITE}/insurance/car/`, 'page')).toBeNull();
    expect(scope.check(`${SITE}/insurance/car/claims?x=1#top`, 'page')).toBeNull();
    expect(scope.check(`${SITE}/insurance/cars`, 'page')).toBe('outside start paths');
    expect(scope.check(`${SITE}/insurance`, 'page')).toBe('outside start paths');
    expect(scope.check(`${SITE}/`, 'page')).toBe('outside start paths');
  });

  it('lets documents on a start origin through from anywhere', () => {
    expect(scope.check(`${SITE}/media/files/policy.pdf`, 'document')).toBeNull();
  });

  it('accepts a page under any start path of its origin', () => {
    const two = createScope({ startUrls: [`${SITE}/insurance/car`, `${SITE}/insurance/home`, 'https://other.co.il/he'] });
    expect(two.check(`${SITE}/insurance/home/fire`, 'page')).toBeNull();
    expect(two.check(`${SITE}/he`, 'page')).toBe('outside start paths');
    expect(two.check('https://other.co.il/he/x', 'page')).toBeNull();
  });

  it('compares Hebrew start paths in any spelling', () => {
    const hebrew = createScope({ startUrls: [`${SITE}/ביטוח`] });
    expect(hebrew.check(`${SITE}/%d7%91%d7%99%d7%98%d7%95%d7%97/%D7%A8%D7%9B%D7%91`, 'page')).toBeNull();
    expect(hebrew.check(`${SITE}/ביטוחים`, 'page')).toBe('outside start paths');
  });

  it('puts the whole origin in scope for a root start URL', () => {
    expect(createScope({ startUrls: [SITE] }).check(`${SITE}/deep/down/page`, 'page')).toBeNull();
  });
});

describe('createScope: --include and --exclude', () => {
  it('excludes on any matching pattern, naming it, for pages and documents alike', () => {
    const scope = createScope({ startUrls: [`${SITE}/`], exclude: ['/he/private', '*.zip'] });
    expect(scope.check(`${SITE}/he/private`, 'page')).toBe('excluded by --exclude /he/private');
    expect(scope.check(`${SITE}/he/private/x`, 'page')).toBe('excluded by --exclude /he/private');
    expect(scope.check(`${SITE}/files/a.zip`, 'document')).toBe('excluded by --exclude *.zip');
    expect(scope.check(`${SITE}/he/public`, 'page')).toBeNull();
  });

  it('requires a match of some --include pattern when any is given', () => {
    const scope = createScope({ startUrls: [`${SITE}/`], include: ['/he/**', '*.pdf'] });
    expect(scope.check(`${SITE}/he/a/b`, 'page')).toBeNull();
    expect(scope.check(`${SITE}/media/x.pdf`, 'document')).toBeNull();
    expect(scope.check(`${SITE}/en/a`, 'page')).toBe('not matched by --include');
  });

  it('applies --exclude before --include', () => {
    const scope = createScope({ startUrls: [`${SITE}/`], include: ['/he'], exclude: ['/he/private'] });
    expect(scope.check(`${SITE}/he/private/x`, 'page')).toBe('excluded by --exclude /he/private');
  });

  it('checks the origin and start paths before the patterns', () => {
    const scope = createScope({ startUrls: [`${SITE}/he`], exclude: ['**'] });
    expect(scope.check('https://other.co.il/he', 'page')).toBe('other host');
    expect(scope.check(`${SITE}/en`, 'page')).toBe('outside start paths');
  });

  it('rejects an empty pattern with BAD_ARGUMENT', () => {
    expect(() => createScope({ startUrls: [SITE], exclude: ['  '] })).toThrowError(/--exclude needs a pattern/);
  });
});

describe('pathPattern', () => {
  it('anchors a pattern starting with / and lets it match everything below', () => {
    const match = pathPattern('/he/private');
    expect(match(`${SITE}/he/private`)).toBe(true);
    expect(match(`${SITE}/he/private/deep/page?x=1`)).toBe(true);
    expect(match(`${SITE}/en/he/private`)).toBe(false);
  });

  it('keeps * within one segment and lets ** cross segments', () => {
    expect(pathPattern('/he/*/claims')(`${SITE}/he/car/claims`)).toBe(true);
    expect(pathPattern('/he/*/claims')(`${SITE}/he/car/x/claims`)).toBe(false);
    expect(pathPattern('/he/**/claims')(`${SITE}/he/car/x/claims`)).toBe(true);
  });

  it('matches an unanchored pattern anywhere in the path and query', () => {
    expect(pathPattern('*.pdf')(`${SITE}/media/a/b.pdf`)).toBe(true);
    expect(pathPattern('*.pdf')(`${SITE}/media/a/b.pdf.html`)).toBe(true);
    expect(pathPattern('print=1')(`${SITE}/page?print=1`)).toBe(true);
    expect(pathPattern('print=1')(`${SITE}/page`)).toBe(false);
  });

  it('treats ? and regular-expression characters literally', () => {
    expect(pathPattern('/page?id=1')(`${SITE}/page?id=1`)).toBe(true);
    expect(pathPattern('/page?id=1')(`${SITE}/pageXid=1`)).toBe(false);
    expect(pathPattern('/a.b')(`${SITE}/aXb`)).toBe(false);
    expect(pathPattern('/(x)+')(`${SITE}/(x)+`)).toBe(true);
  });

  it('matches Hebrew patterns, raw or encoded, against encoded URLs', () => {
    const encoded = `${SITE}/%D7%91%D7%99%D7%98%D7%95%D7%97/%D7%A8%D7%9B%D7%91`;
    expect(pathPattern('/ביטוח')(encoded)).toBe(true);
    expect(pathPattern('/ביטוח/*')(encoded)).toBe(true);
    expect(pathPattern('רכב')(encoded)).toBe(true);
    expect(pathPattern('/%d7%91%d7%99%d7%98%d7%95%d7%97')(encoded)).toBe(true);
    expect(pathPattern('/ביטוח')(`${SITE}/ביטוח/דירה`)).toBe(true);
    expect(pathPattern('/דירה')(encoded)).toBe(false);
  });

  it('does not match what is not an http(s) URL', () => {
    expect(pathPattern('**')('mailto:a@b.c')).toBe(false);
  });
});
