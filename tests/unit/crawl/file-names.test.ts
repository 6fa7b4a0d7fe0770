import { describe, expect, it } from 'vitest';
import { SavedPathRegistry, savedPathFor } from '../../../builder/crawl/file-names.ts';

const SITE = 'https://www.example.co.il';
/** `ביטוח/רכב` percent-encoded, as a normalised URL spells it. */
const BITUACH = '%D7%91%D7%99%D7%98%D7%95%D7%97';
const RECHEV = '%D7%A8%D7%9B%D7%91';

describe('savedPathFor', () => {
  it('decodes Hebrew percent-encoded segments into readable names', () => {
    expect(savedPathFor(`${SITE}/${BITUACH}/${RECHEV}`, 'html')).toBe('www.example.co.il/ביטוח/רכב.html');
    expect(savedPathFor(`${SITE}/${BITUACH}/${RECHEV}.pdf`, 'pdf')).toBe('www.example.co.il/ביטוח/רכב.pdf');
  });

  it('saves the root as index.html and keeps a port in the host folder name', () => {
    expect(savedPathFor(`${SITE}/`, 'html')).toBe('www.example.co.il/index.html');
    expect(savedPathFor('http://127.0.0.1:8080/', 'html')).toBe('127.0.0.1_8080/index.html');
  });

  it('turns server-side page extensions into .html and does not double a kind extension', () => {
    expect(savedPathFor(`${SITE}/Pages/Car.aspx`, 'html')).toBe('www.example.co.il/Pages/Car.html');
    expect(savedPathFor(`${SITE}/info.php`, 'html')).toBe('www.example.co.il/info.html');
    expect(savedPathFor(`${SITE}/about.htm`, 'html')).toBe('www.example.co.il/about.html');
    expect(savedPathFor(`${SITE}/terms.PDF`, 'pdf')).toBe('www.example.co.il/terms.pdf');
    expect(savedPathFor(`${SITE}/notes.txt`, 'txt')).toBe('www.example.co.il/notes.txt');
    // A .aspx that served a PDF keeps its name and gains .pdf.
    expect(savedPathFor(`${SITE}/download.aspx`, 'pdf')).toBe('www.example.co.il/download.aspx.pdf');
  });

  it('adds a short hash of the query, different for different queries', () => {
    const first = savedPathFor(`${SITE}/list.aspx?page=1`, 'html');
    const second = savedPathFor(`${SITE}/list.aspx?page=2`, 'html');
    expect(first).toMatch(/^www\.example\.co\.il\/list-q[0-9a-f]{8}\.html$/);
    expect(second).toMatch(/^www\.example\.co\.il\/list-q[0-9a-f]{8}\.html$/);
    expect(first).not.toBe(second);
    expect(savedPathFor(`${SITE}/list.aspx?page=1`, 'html')).toBe(first);
    expect(savedPathFor(`${SITE}/list.aspx`, 'html')).toBe('www.example.co.il/list.html');
    expect(savedPathFor(`${SITE}/?q=1`, 'html')).toMatch(/^www\.example\.co\.il\/index-q[0-9a-f]{8}\.html$/);
  });

  it('replaces characters that file systems refuse', () => {
    expect(savedPathFor(`${SITE}/a%3Cb%3E%22c%7Cd%3Fe*f%3A`, 'html')).toBe('www.example.co.il/a_b__c_d_e_f_.html');
    expect(savedPathFor(`${SITE}/back%5Cslash`, 'html')).toBe('www.example.co.il/back_slash.html');
    expect(savedPathFor(`${SITE}/tab%09name`, 'html')).toBe('www.example.co.il/tab_name.html');
  });

  it('never lets an encoded slash add folders or climb out of the host folder', () => {
    const path = savedPathFor(`${SITE}/a%2F..%2F..%2F..%2Fetc%2Fpasswd`, 'html');
    expect(path.split('/')).toHaveLength(2);
    expect(path.split('/')).not.toContain('..');
    expect(path.startsWith('www.example.co.il/')).toBe(true);
    expect(savedPathFor(`${SITE}/x/%2E%2E%2Fy`, 'html')).toBe('www.example.co.il/x/__y.html');
  });

  it('makes Windows reserved names safe, with or without an extension', () => {
    expect(savedPathFor(`${SITE}/con`, 'html')).toBe('www.example.co.il/_con.html');
    expect(savedPathFor(`${SITE}/AUX/page`, 'html')).toBe('www.example.co.il/_AUX/page.html');
    expect(savedPathFor(`${SITE}/nul.aspx`, 'html')).toBe('www.example.co.il/_nul.html');
    expect(savedPathFor(`${SITE}/com1.pdf`, 'pdf')).toBe('www.example.co.il/_com1.pdf');
    expect(savedPathFor(`${SITE}/lpt9.txt`, 'txt')).toBe('www.example.co.il/_lpt9.txt');
    // Only the exact names are reserved.
    expect(savedPathFor(`${SITE}/console`, 'html')).toBe('www.example.co.il/console.html');
  });

  it('drops trailing dots and spaces and replaces leading dots', () => {
    expect(savedPathFor(`${SITE}/name.%20.`, 'md')).toBe('www.example.co.il/name.md');
    expect(savedPathFor(`${SITE}/.hidden/x`, 'html')).toBe('www.example.co.il/_hidden/x.html');
  });

  it('truncates a long segment at a UTF-8 character boundary', () => {
    // 'a' then Hebrew letters of two bytes each: 120 bytes falls in the middle of a letter.
    const long = `a${'ש'.repeat(100)}`;
    const path = savedPathFor(`${SITE}/${encodeURIComponent(long)}/page`, 'html');
    const segment = path.split('/')[1];
    expect(Buffer.byteLength(segment)).toBe(119);
    expect(segment).toBe(`a${'ש'.repeat(59)}`);
    expect(segment).not.toContain('\uFFFD');
    expect(path.endsWith('/page.html')).toBe(true);
  });

  it('does not leave a trailing space or dot where the truncation cut', () => {
    const long = `${'a'.repeat(119)} bbb`;
    const segment = savedPathFor(`${SITE}/${encodeURIComponent(long)}/x`, 'html').split('/')[1];
    expect(segment).toBe('a'.repeat(119));
  });
});

describe('SavedPathRegistry', () => {
  it('gives the same URL the same path every time', () => {
    const registry = new SavedPathRegistry();
    const url = `${SITE}/${BITUACH}`;
    expect(registry.claim(url, 'html')).toBe('www.example.co.il/ביטוח.html');
    expect(registry.claim(url, 'html')).toBe('www.example.co.il/ביטוח.html');
  });

  it('gives distinct paths to two URLs that clean up to the same path', () => {
    const registry = new SavedPathRegistry();
    const first = registry.claim(`${SITE}/page.aspx`, 'html');
    const second = registry.claim(`${SITE}/page.php`, 'html');
    expect(first).toBe('www.example.co.il/page.html');
    expect(second).toMatch(/^www\.example\.co\.il\/page-[0-9a-f]{8}\.html$/);
    // Stable on a second claim, and the first owner keeps its path.
    expect(registry.claim(`${SITE}/page.php`, 'html')).toBe(second);
    expect(registry.claim(`${SITE}/page.aspx`, 'html')).toBe(first);
    const third = registry.claim(`${SITE}/page.html`, 'html');
    expect(new Set([first, second, third]).size).toBe(3);
  });

  it('treats paths differing only in case as the same file', () => {
    const registry = new SavedPathRegistry();
    const upper = registry.claim(`${SITE}/About`, 'html');
    const lower = registry.claim(`${SITE}/about`, 'html');
    expect(upper).toBe('www.example.co.il/About.html');
    expect(lower.toLowerCase()).not.toBe(upper.toLowerCase());
  });

  it('honours a preferred path (a resumed crawl keeps its files)', () => {
    const registry = new SavedPathRegistry();
    const url = `${SITE}/page.aspx`;
    expect(registry.claim(url, 'html', 'www.example.co.il/page-0123abcd.html')).toBe('www.example.co.il/page-0123abcd.html');
    expect(registry.claim(url, 'html', 'www.example.co.il/page-0123abcd.html')).toBe('www.example.co.il/page-0123abcd.html');
    // Another URL cannot take it over.
    const other = registry.claim(`${SITE}/other`, 'html', 'www.example.co.il/page-0123abcd.html');
    expect(other).not.toBe('www.example.co.il/page-0123abcd.html');
    expect(other).toMatch(/^www\.example\.co\.il\/page-0123abcd-[0-9a-f]{8}\.html$/);
  });
});
