import { describe, expect, it } from 'vitest';
import { collapseTwins, documentYear } from '../../../widget/core/retrieval/collapse.ts';
import type { Chunk, IndexedDocument } from '../../../widget/core/schema.ts';

const doc = (file: string, title = ''): IndexedDocument => ({ file, url: null, domain: 'car', lang: 'he', title, kind: 'pdf', pageCount: 3 });
const chunk = (d: number, twin?: number): Chunk => ({ id: `c${d}`, doc: d, page: 1, sectionPath: [], clause: null, parentId: 'p', text: 't', tokens: 1, ...(twin === undefined ? {} : { twin }) });

describe('documentYear', () => {
  it('reads years and compact month-year dates from titles and file names', () => {
    expect(documentYear(doc('car/files/פוליסה-מהדורת-יוני-2023.pdf'))).toBe(2023);
    expect(documentYear(doc('car/files/חוברת-כללים-צד-ג-82025-122025.pdf'))).toBe(2025);
    expect(documentYear(doc('car/files/policy.pdf', 'Edition 2019'))).toBe(2019);
    expect(documentYear(doc('car/files/טופס-1200000.pdf'))).toBe(0);
  });
});

describe('collapseTwins', () => {
  const documents = [doc('car/a-2021.pdf', 'פוליסת רכב'), doc('car/b-2024.pdf', 'פוליסת רכב'), doc('car/other.pdf'), doc('car/משאית-2020.pdf', 'פוליסת משאית')];
  const chunks = [chunk(0, 9), chunk(1, 9), chunk(2), chunk(3, 9)];
  const hits = [
    { chunk: 0, score: 0.9, bm25: 1, vector: null },
    { chunk: 2, score: 0.8, bm25: 1, vector: null },
    { chunk: 1, score: 0.7, bm25: 1, vector: null },
    { chunk: 3, score: 0.6, bm25: 1, vector: null },
  ];

  it('keeps one result per twin group at the rank of its best member, the others as twins', () => {
    const out = collapseTwins(hits, chunks, documents, 'השתתפות עצמית');
    expect(out.map((h) => h.chunk)).toEqual([1, 2]);
    expect(out[0].score).toBe(0.9);
    expect(out[0].twins.map((t) => t.chunk).sort()).toEqual([0, 3]);
  });

  it('prefers the version whose document the question names, then the newest', () => {
    expect(collapseTwins(hits, chunks, documents, 'ביטוח משאית השתתפות')[0].chunk).toBe(3);
    expect(collapseTwins(hits, chunks, documents, 'השתתפות')[0].chunk).toBe(1);
  });
});
