import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ingest } from '../../../builder/ingest/index.ts';

let root: string;
const pageJson = (file: string, kind: string, text: string) => JSON.stringify({ file, domain: 'health', kind, url: null, pages: [{ page: 1, text }] });
const allText = (result: Awaited<ReturnType<typeof ingest>>, file: string): string =>
  result.documents
    .find((doc) => doc.file === file)
    ?.pages.flatMap((page) => page.blocks.map((block) => block.text))
    .join('\n') ?? '';

beforeAll(() => {
  root = mkdtempSync(join(tmpdir(), 'harel-reading-order-'));
  mkdirSync(join(root, 'health'), { recursive: true });
  // A web page whose order is trusted teaches the model; the pre-parsed PDF carries the faults.
  writeFileSync(join(root, 'health/page.json'), pageJson('health/page.txt', 'page', 'ההחזר ניתן מגיל 21 ומעלה\nדמי ביטוח חודשיים לפי גבול האחריות'));
  writeFileSync(join(root, 'health/policy.json'), pageJson('health/policy.pdf', 'pdf', 'השתתפות עצמית בכל תביעה .6.1.6\nומעלה 21 מגיל\n| ביטוח דמי | האחריות גבול |'));
});

afterAll(() => rmSync(root, { recursive: true, force: true }));

describe('ingest --reading-order', () => {
  it('puts a pre-parsed PDF back in reading order and says how many lines it changed', async () => {
    const result = await ingest([root], { readingOrder: true });
    const text = allText(result, 'health/policy.pdf');
    expect(text).toContain('.6.1.6');
    expect(text).not.toMatch(/תביעה \.6\.1\.6/);
    expect(text).toContain('מגיל 21 ומעלה');
    expect(text).toContain('גבול האחריות | דמי ביטוח');
    expect(result.readingOrder).toEqual({ lines: 3, reordered: 3 });
  });

  it('changes nothing when off, the default, and never touches web pages', async () => {
    const result = await ingest([root]);
    expect(allText(result, 'health/policy.pdf')).toContain('ומעלה 21 מגיל');
    expect(result.readingOrder).toEqual({ lines: 0, reordered: 0 });
    const on = await ingest([root], { readingOrder: true });
    expect(allText(on, 'health/page.txt')).toBe(allText(result, 'health/page.txt'));
  });
});
