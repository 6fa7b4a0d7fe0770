import { existsSync, readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { chunkDocument } from '../../../widget/core/chunk/index.ts';
import { parseFile } from '../../../builder/ingest/parse-file.ts';
import { clauseExcerpt, CrossReferenceResolver, findCrossReferences } from '../../../widget/core/retrieval/cross-references.ts';
import type { Chunk, IndexedDocument } from '../../../widget/core/schema.ts';
import { inMemoryRetriever } from './in-memory-retriever.ts';

const clauses = (text: string) => findCrossReferences(text).map((r) => r.clause);

describe('findCrossReferences', () => {
  it('reads Hebrew and English references, lists and lettered sub-clauses', () => {
    expect(clauses('ראה סעיף 4.1 להלן')).toEqual(['4.1']);
    expect(clauses('הפיצוי ישולם כמפורט בסעיף 5.')).toEqual(['5']);
    expect(clauses('בהתאם לסעיף 3.2 ו-3.4 לפוליסה')).toEqual(['3.2', '3.4']);
    expect(clauses('כאמור בסעיף 7 לעיל')).toEqual(['7']);
    expect(clauses('בסעיף קטן 3(ב) לעיל')).toEqual(['3(ב)']);
    expect(clauses('see clause 4.1 for the limits')).toEqual(['4.1']);
    expect(clauses('the insured as defined in section 2 above')).toEqual(['2']);
  });

  it('reads references in visual-order Hebrew text', () => {
    expect(clauses('אלא לפוליסה 11 בסעיף כמפורט שנתיים')).toEqual(['11']);
    expect(clauses('הסיכונים המפורטים בסעיף .8.5.1 לעיל')).toEqual(['8.5.1']);
  });

  it('leaves out sections of laws, dates, sums and plain counts (near misses)', () => {
    expect(clauses('בהתאם לסעיף 68 לחוק חוזה הביטוח')).toEqual([]);
    expect(clauses('לחוק 68 סעיף')).toEqual([]);
    expect(clauses('under section 3 of the Insurance Contract Law')).toEqual([]);
    expect(clauses('סעיף 15.1.2025')).toEqual([]);
    expect(clauses('הפוליסה כוללת 5 סעיפים')).toEqual([]);
    expect(clauses('סעיף זה חל על רכב פרטי')).toEqual([]);
  });
});

function chunk(id: string, doc: number, clause: string | null, text: string, page = 1): Chunk {
  return { id, doc, page, sectionPath: [], clause, parentId: `s-${id}`, text, tokens: text.split(' ').length };
}

describe('CrossReferenceResolver', () => {
  const chunks = [
    chunk('a1', 0, '4', 'חריגים כלליים לפוליסה', 2),
    chunk('a2', 0, '4.1', 'המבטח לא יהיה אחראי לנזק שנגרם במזיד', 2),
    chunk('a3', 0, '4.1', 'המשך סעיף 4.1: נזק עקיף', 3),
    chunk('a4', 0, '6', 'תגמולי הביטוח ישולמו בכפוף לחריגים כמפורט בסעיף 4.1 ובסעיף 9', 5),
    chunk('b1', 1, '4.1', 'סעיף של מסמך אחר', 1),
    chunk('a5', 0, '5.2', 'השתתפות עצמית', 4),
    chunk('a6', 0, '7', 'ראה סעיף 5', 6),
  ];
  const resolver = new CrossReferenceResolver(chunks);

  it('resolves to the first chunk of the clause in the same document only', () => {
    expect(resolver.resolve(3)).toEqual([{ clause: '4.1', chunk: 1 }]);
  });

  it('falls back to the first chunk under a clause that has no chunk of its own', () => {
    expect(resolver.resolve(6)).toEqual([{ clause: '5', chunk: 5 }]);
  });

  it("finds a sub-clause kept inside its parent clause's chunk by the line it opens", () => {
    const kept = new CrossReferenceResolver([
      chunk('h1', 0, '2.1.4', 'לפני ניתוח יש לקבל כתב התחייבות (ראה סעיף 5.1).', 1),
      chunk('h2', 0, '5', '5. תביעות ואישורים מראש\n5.1 לקבלת כתב התחייבות יש לפנות חמישה ימים מראש.', 2),
      chunk('h3', 0, '9', '9 ימים לאחר האירוע ראה סעיף 9.', 3),
    ]);
    expect(kept.resolve(0)).toEqual([{ clause: '5.1', chunk: 1 }]);
    expect(clauseExcerpt('5. תביעות\n5.1 לקבלת כתב התחייבות\nיש לפנות מראש.\n5.2 החזר הוצאות', '5.1')).toBe('5.1 לקבלת כתב התחייבות\nיש לפנות מראש.');
    expect(clauseExcerpt('2. הכיסויים\n2.1 נזקי מים\n2.1.1 איתור נזילה\n2.2 אש', '2.1')).toBe('2.1 נזקי מים\n2.1.1 איתור נזילה');
    expect(clauseExcerpt('טקסט בלי מספרים', '4')).toBe('טקסט בלי מספרים');
    // A bare number at the start of a line is not taken for a clause.
    expect(kept.lookup(0, '7')).toBeNull();
  });

  it('never resolves a chunk to itself', () => {
    expect(resolver.resolve(2)).toEqual([{ clause: '4.1', chunk: 1 }]);
    expect(new CrossReferenceResolver([chunk('x', 0, '4.1', 'ראה סעיף 4.1')]).resolve(0)).toEqual([]);
  });

  it('attaches resolved clauses to returned passages as supporting context', async () => {
    const documents: IndexedDocument[] = [
      { file: 'car/policy.pdf', url: null, domain: 'car', lang: 'he', title: 'פוליסה', kind: 'pdf', pageCount: 6 },
      { file: 'car/other.pdf', url: null, domain: 'car', lang: 'he', title: 'אחר', kind: 'pdf', pageCount: 1 },
    ];
    const retriever = await inMemoryRetriever(documents, chunks);
    const hit = retriever.search('תגמולי הביטוח ישולמו', { mode: 'bm25', k: 1 }).hits[0];
    expect(hit.chunkId).toBe('a4');
    expect(hit.references).toEqual([{ clause: '4.1', chunkId: 'a2', page: 2, text: chunks[1].text }]);
    expect(retriever.search('תגמולי הביטוח ישולמו', { mode: 'bm25', k: 1, crossReferences: false }).hits[0].references).toBeUndefined();
  });
});

const CORPUS = fileURLToPath(new URL('../../../../shared/data/harel/corpus/', import.meta.url));
const present = existsSync(CORPUS);
if (!present) console.warn(`cross-reference real-corpus tests skipped: ${CORPUS} is absent (the shared data sits beside the repo).`);

async function realChunks(file: string): Promise<Chunk[]> {
  const parsed = await parseFile(new Uint8Array(readFileSync(`${CORPUS}${file}.json`)), `${file}.json`);
  return chunkDocument({ file, url: null, domain: file.split('/')[0], lang: /באנגלית/.test(file) ? 'en' : 'he', title: file, kind: 'pdf', pages: parsed.pages }, 0);
}

describe.skipIf(!present)('cross-references on real policies', () => {
  it('resolves "בסעיף קטן 5.3" in the EV charger policy to clause 5.3', async () => {
    const chunks = await realChunks('car/files/פוליסה-לביטוח-עמדת-טעינה-לרכב-יולי-2023.pdf');
    const resolver = new CrossReferenceResolver(chunks);
    const from = chunks.findIndex((c) => c.clause === '5.2' && /בסעיף קטן \.?5\.3/.test(c.text));
    expect(from).toBeGreaterThanOrEqual(0);
    const target = resolver.resolve(from).find((r) => r.clause === '5.3');
    expect(target).toBeDefined();
    expect(chunks[target!.chunk].clause).toBe('5.3');
    expect(chunks[target!.chunk].text).toMatch(/סירב המבוטח באופן בלתי סביר/);
  });

  it('resolves "paragraph 5.4.1 above" in an English business policy to clause 5.4.1', async () => {
    const chunks = await realChunks('business/files/תנאי-פוליסת-ביטוח-מכלול-לעסק-מהדורת-מרץ-2023-באנגלית.pdf');
    const resolver = new CrossReferenceResolver(chunks);
    const from = chunks.findIndex((c) => /paragraph 5\.4\.1 above/.test(c.text));
    expect(from).toBeGreaterThanOrEqual(0);
    const target = resolver.resolve(from).find((r) => r.clause === '5.4.1');
    expect(chunks[target!.chunk].clause).toBe('5.4.1');
    expect(chunks[target!.chunk].text).toMatch(/Insofar as referring to internal loss/);
  });
});
