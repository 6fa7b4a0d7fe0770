/**
 * What ingest does with a source URL the policy refuses and with text that would display in
 * another order than it is stored (untrusted text: links and direction).
 */
import { mkdtempSync, mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ingest, type IngestResult } from '../../../builder/ingest/index.ts';

function write(root: string, file: string, content: string): void {
  mkdirSync(dirname(join(root, file)), { recursive: true });
  writeFileSync(join(root, file), content);
}

function pageJson(file: string, text: string, url: unknown): string {
  return JSON.stringify({ file, domain: 'car', kind: 'txt', url, pages: [{ page: 1, text }] });
}

const RLO = '\u202E';

let root: string;
let result: IngestResult;

beforeAll(async () => {
  root = mkdtempSync(join(tmpdir(), 'harel-unsafe-'));
  write(root, 'car/pages/script.txt.json', pageJson('car/pages/script.txt', 'Windscreen cover has an excess of 250 NIS per claim.', 'javascript:alert(document.cookie)'));
  write(root, 'car/pages/mixed-case.txt.json', pageJson('car/pages/mixed-case.txt', 'Towing is covered up to three times a year after an accident.', '  \u0001JaVaScRiPt:alert(1)'));
  write(root, 'car/pages/fine.txt.json', pageJson('car/pages/fine.txt', 'Roadside assistance is available day and night across the country.', 'https://insurer.example/car/roadside'));
  write(root, 'car/pages/relative.txt.json', pageJson('car/pages/relative.txt', 'A replacement car is given for up to seven days after a claim.', '/car/replacement.pdf'));
  // The page JSON's own URL is dropped; the manifest's, for the same document, serves instead.
  write(root, 'car/pages/fallback.txt.json', pageJson('car/pages/fallback.txt', 'Claims are paid within thirty days of the last document.', 'data:text/html,<script>alert(1)</script>'));
  write(
    root,
    'manifest.json',
    JSON.stringify({
      'car/pages/fallback.txt.json': 'https://insurer.example/car/claims',
      'apartment/invoice.txt': { url: 'java\tscript:alert(1)', title: `invoice${RLO}fdp.exe`, domain: `apart${RLO}ment` },
      'apartment/entity.txt': '&#106;avascript:alert(1)',
    }),
  );
  write(root, 'apartment/invoice.txt', `Send the invoice${RLO}fdp.exe to the claims department within thirty days.\n\nThe policy covers water damage \u2066to the apartment\u2069 and its contents.`);
  write(root, 'apartment/entity.txt', 'The policy covers theft of contents when the door was locked.');
  result = await ingest([root]);
});

afterAll(() => rmSync(root, { recursive: true, force: true }));

const doc = (file: string) => result.documents.find((d) => d.file === file)!;

describe('the URL policy at ingest', () => {
  it('keeps a page JSON whose url is javascript: as a document with url null, and warns', () => {
    expect(doc('car/pages/script.txt')).toBeDefined();
    expect(doc('car/pages/script.txt').url).toBeNull();
    const warning = result.warnings.find((w) => w.file === 'car/pages/script.txt');
    expect(warning?.message).toContain('javascript:alert(document.cookie)');
    expect(warning?.message).toContain('the "javascript:" scheme is not http or https');
    expect(warning?.message).toContain('car/pages/script.txt.json');
  });

  it('drops the other disguises of a script URL, from page JSON and manifest alike', () => {
    expect(doc('car/pages/mixed-case.txt').url).toBeNull();
    expect(doc('apartment/invoice.txt').url).toBeNull();
    expect(doc('apartment/entity.txt').url).toBeNull();
    const byFile = new Map(result.warnings.map((w) => [w.file, w.message]));
    expect(byFile.get('car/pages/mixed-case.txt')).toMatch(/" {2}\\u0001JaVaScRiPt:alert\(1\)" from .*dropped \(the "javascript:" scheme/);
    expect(byFile.get('apartment/invoice.txt')).toMatch(/"java\\tscript:alert\(1\)" from .*manifest\.json dropped \(contains control/);
    expect(byFile.get('apartment/entity.txt')).toContain('decodes to the "javascript:" scheme');
  });

  it("falls back to the manifest when the page JSON's own URL is dropped, and says so", () => {
    expect(doc('car/pages/fallback.txt').url).toBe('https://insurer.example/car/claims');
    expect(result.warnings.find((w) => w.file === 'car/pages/fallback.txt')?.message).toContain('the "data:" scheme is not http or https');
  });

  it('keeps http(s) and relative URLs as written, without a warning', () => {
    expect(doc('car/pages/fine.txt').url).toBe('https://insurer.example/car/roadside');
    expect(doc('car/pages/relative.txt').url).toBe('/car/replacement.pdf');
    expect(result.warnings.map((w) => w.file).sort()).toEqual(['apartment/entity.txt', 'apartment/invoice.txt', 'car/pages/fallback.txt', 'car/pages/mixed-case.txt', 'car/pages/script.txt']);
  });
});

describe('bidi controls at ingest', () => {
  it('removes overrides and isolates from the text, the title and the domain', () => {
    const invoice = doc('apartment/invoice.txt');
    const text = invoice.pages.flatMap((p) => p.blocks.map((b) => b.text)).join('\n');
    expect(text).toContain('Send the invoicefdp.exe to the claims department');
    expect(text).toContain('water damage to the apartment and its contents');
    expect(text).not.toMatch(/[\u202A-\u202E\u2066-\u2069]/);
    expect(invoice.title).toBe('invoicefdp.exe');
    expect(invoice.domain).toBe('apartment');
  });

  it('leaves text without them as it was', () => {
    expect(doc('car/pages/fine.txt').pages[0].blocks.map((b) => b.text)).toEqual(['Roadside assistance is available day and night across the country.']);
  });
});
