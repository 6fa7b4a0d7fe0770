/**
 * The question set for retrieval over a customer's own document (builder/eval/device-questions.json,
 * issue 36 item 5): its shape always; against the real PDFs in ../shared/data where they are present.
 */
import { existsSync, readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { parsePdf } from '../../../builder/parse/pdf.ts';

interface DeviceQuestion {
  id: string;
  question: string;
  pages: number[];
  note?: string;
}
interface DeviceQuestionDocument {
  file: string;
  title: string;
  lang: 'he' | 'en';
  pageCount: number;
  questions: DeviceQuestion[];
}
interface DeviceQuestionSet {
  comment: string;
  documents: DeviceQuestionDocument[];
}

const set: DeviceQuestionSet = JSON.parse(readFileSync(new URL('../../../builder/eval/device-questions.json', import.meta.url), 'utf8'));
const DATA = fileURLToPath(new URL('../../../../shared/data/', import.meta.url));
const HEBREW = /[\u05D0-\u05EA]/;

describe('builder/eval/device-questions.json', () => {
  it('says how it was written, and holds a Hebrew Harel policy and an English QBE PDS', () => {
    expect(set.comment.length).toBeGreaterThan(100);
    expect(set.documents.map((d) => d.lang)).toEqual(['he', 'en']);
    expect(set.documents[0]?.file).toMatch(/^harel-feb-raw\/[a-z]+\/files\/.+\.pdf$/);
    expect(set.documents[1]?.file).toMatch(/^qbe\/.+\.pdf$/);
  });

  for (const doc of set.documents) {
    it(`${doc.file}: distinct ids and questions in the document's language, pages ascending within its ${doc.pageCount} pages, some unanswerable`, () => {
      const answerable = doc.questions.filter((q) => q.pages.length > 0);
      const unanswerable = doc.questions.filter((q) => q.pages.length === 0);
      expect(answerable.length).toBeGreaterThanOrEqual(12);
      expect(unanswerable.length).toBeGreaterThanOrEqual(3);
      expect(new Set(doc.questions.map((q) => q.id)).size).toBe(doc.questions.length);
      expect(new Set(doc.questions.map((q) => q.question)).size).toBe(doc.questions.length);
      for (const q of doc.questions) {
        expect(q.id, q.id).toMatch(/^[a-z0-9-]+$/);
        expect(HEBREW.test(q.question), q.id).toBe(doc.lang === 'he');
        for (const page of q.pages) {
          expect(Number.isInteger(page) && page >= 1 && page <= doc.pageCount, `${q.id} page ${page}`).toBe(true);
        }
        expect(q.pages, q.id).toEqual([...new Set(q.pages)].sort((a, b) => a - b));
      }
    });

    const path = `${DATA}${doc.file}`;
    describe.skipIf(!existsSync(path))(`${doc.file} against the real PDF (skipped: ../shared/data absent)`, () => {
      it('has the page count the set states, and every cited page has text', async () => {
        const pages = await parsePdf(new Uint8Array(readFileSync(path)), doc.file);
        expect(pages.length).toBe(doc.pageCount);
        const cited = new Set(doc.questions.flatMap((q) => q.pages));
        for (const page of cited) {
          const text = pages[page - 1]?.blocks.map((b) => b.text).join(' ') ?? '';
          expect(text.length, `page ${page}`).toBeGreaterThan(200);
        }
      });
    });
  }
});
