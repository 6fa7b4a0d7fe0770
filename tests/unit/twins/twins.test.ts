import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { jaccard, shingles } from '../../../builder/twins/minhash.ts';
import { twinGroups } from '../../../builder/twins/twin-groups.ts';

const sentence = (i: number) => `סעיף ${i} המבטח ישלם למבוטח את תגמולי הביטוח בגין נזק ${i} שנגרם לרכוש בתקופת הביטוח כמפורט ברשימה.`;
const body = (from: number, to: number) => Array.from({ length: to - from }, (_, i) => sentence(from + i)).join(' ');

describe('twin groups', () => {
  it('groups two editions that differ in one clause and leaves unrelated text alone', () => {
    const a = body(0, 30);
    const b = `${body(0, 29)} סעיף חדש במהדורה 2025 על הרחבת הכיסוי לנזקי מים.`;
    const other = Array.from({ length: 30 }, (_, i) => `travel clause ${i} baggage delayed abroad ${i * 7} hours refund of purchases`).join('. ');
    const groups = twinGroups([a, other, b]);
    expect(groups[0]).toBeGreaterThanOrEqual(0);
    expect(groups[2]).toBe(groups[0]);
    expect(groups[1]).toBe(-1);
  });

  it('does not merge texts below the threshold (half their text shared)', () => {
    const a = body(0, 40);
    const b = body(20, 60);
    expect(jaccard(shingles(a), shingles(b))).toBeLessThan(0.5);
    expect([...twinGroups([a, b])]).toEqual([-1, -1]);
  });

  it('never merges short texts, which match too easily', () => {
    expect([...twinGroups(['טופס הצעה לביטוח', 'טופס הצעה לביטוח'])]).toEqual([-1, -1]);
  });

  it('does not merge pages that share only site furniture', () => {
    const menu = 'דלג לתוכן ראשי פעולות נפוצות ביטוח חיסכון ופנסיה משכנתא והלוואה חיפוש אזור אישי '.repeat(6);
    const pages = Array.from({ length: 40 }, (_, i) => `${menu} ${body(i * 100, i * 100 + 4)}`);
    expect([...twinGroups(pages, { maxShingleFrequency: 30 })].every((g) => g === -1)).toBe(true);
    // Without discarding furniture the same pages would all be "twins".
    expect(new Set(twinGroups(pages, { maxShingleFrequency: 1000 })).size).toBe(1);
  });
});

const CORPUS = fileURLToPath(new URL('../../../../shared/data/harel/corpus/', import.meta.url));
const hasCorpus = existsSync(CORPUS);
if (!hasCorpus) console.warn(`skipping real-corpus twin tests: ${CORPUS} is absent`);

describe.skipIf(!hasCorpus)('twin pages in the Harel corpus', () => {
  it('joins the two editions of the apartment rules booklet page by page, and keeps web pages that share menus apart', () => {
    const keys: string[] = [];
    const texts: string[] = [];
    for (const domain of readdirSync(CORPUS)) {
      for (const kind of ['files', 'pages']) {
        const dir = join(CORPUS, domain, kind);
        if (!existsSync(dir)) continue;
        for (const name of readdirSync(dir)) {
          const doc = JSON.parse(readFileSync(join(dir, name), 'utf8')) as { file: string; pages: { page: number; text: string }[] };
          for (const p of doc.pages) {
            keys.push(`${doc.file}#${p.page}`);
            texts.push(p.text);
          }
        }
      }
    }
    const groups = twinGroups(texts);
    const group = (key: string) => groups[keys.indexOf(key)];
    const a = group('apartment/files/חוברת-הכללים-לגבי-פוליסות-שנרכשו-לאחר-ה-030917.pdf#13');
    expect(a).toBeGreaterThanOrEqual(0);
    expect(group('apartment/files/חוברת-כללים.pdf#13')).toBe(a);
    expect(group('apartment/files/חוברת-כללים.pdf#14')).not.toBe(a);
    // Two articles of the site: same navigation and footer, different bodies.
    const cost = group('apartment/pages/house-insurene-cost.txt#1');
    const what = group('apartment/pages/what-is-house-insurance.txt#1');
    expect(cost === -1 || cost !== what).toBe(true);
  });
});
