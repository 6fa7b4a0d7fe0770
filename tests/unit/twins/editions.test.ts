import { existsSync, readFileSync, readdirSync } from 'node:fs';
import { mkdtemp, mkdir, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { buildIndex } from '../../../builder/pipeline/build-index.ts';
import { twinLookup } from '../../../builder/eval/run-eval.ts';
import { lenientPageRank, pageRank } from '../../../builder/eval/metrics.ts';
import { readIndexFolder } from '../../../builder/read-index-folder.ts';
import { alignEditions, alignmentNumbers, dominantScript, editionRefs, pairEditions, type EditionDocument } from '../../../builder/twins/editions.ts';
import { Retriever } from '../../../widget/core/retrieval/retriever.ts';

/** A policy page: its clause numbers and amounts, in words of the given language. */
const page = (page: number, words: string, numbers: string[]) => ({ page, text: `${words} ${numbers.join(` ${words} `)}` });
const clauses = (from: number, n: number) => Array.from({ length: n }, (_, i) => `${from}.${i + 1}`);

describe('the numbers that survive translation', () => {
  it('keeps clause numbers, amounts and percentages; drops page numbers and counters', () => {
    expect([...alignmentNumbers('סעיף 3.7.4 עד 1,200,000 ש"ח, 15% ועמוד 7 מתוך 12; .4.2.')].sort()).toEqual(['1200000', '15%', '3.7.4', '4.2']);
    expect(alignmentNumbers('page 3 of 40, item 2')).toEqual(new Set());
  });

  it('tells a page’s script by most of its letters', () => {
    expect(dominantScript('פוליסה לביטוח רכב policy')).toBe('hebrew');
    expect(dominantScript('The insurer will pay up to')).toBe('latin');
    expect(dominantScript('Страховщик выплатит')).toBe('cyrillic');
    expect(dominantScript('ستدفع شركة التأمين')).toBe('arabic');
  });
});

describe('pairing editions and aligning their pages', () => {
  const hebrew: EditionDocument = { domain: 'car', pages: [1, 2, 3, 4].map((p) => page(p, 'סעיף', [...clauses(p, 6), `${p}000`])) };
  // The English edition runs longer: page 3's clauses spill onto an extra page.
  const english: EditionDocument = {
    domain: 'car',
    pages: [page(1, 'clause', clauses(1, 6)), page(2, 'clause', clauses(2, 6)), page(3, 'clause', clauses(3, 3)), page(4, 'clause', clauses(3, 6).slice(3)), page(5, 'clause', clauses(4, 6))],
  };
  const otherProduct: EditionDocument = { domain: 'car', pages: [page(1, 'סעיף', clauses(9, 40))] };
  const form: EditionDocument = { domain: 'car', pages: [page(1, 'name', ['2025'])] };

  it('pairs a translation with the Hebrew document whose numbers it shares, in order, page to page', () => {
    const docs = [hebrew, otherProduct, english, form];
    expect(pairEditions(docs, { minSharedNumbers: 10 }).map((p) => [p.doc, p.hebrewDoc, p.script])).toEqual([[2, 0, 'latin']]);
    const links = alignEditions(docs, { minSharedNumbers: 10 }).map((l) => [l.page, l.hebrewPage]);
    expect(links).toEqual(
      expect.arrayContaining([
        [1, 1],
        [2, 2],
        [3, 3],
        [4, 3],
        [5, 4],
      ]),
    );
    // Never out of order, never a page with nothing in common.
    expect(links.every(([e, h]) => h <= e)).toBe(true);
  });

  it('pairs nothing across domains, nothing for a form with few numbers, nothing between two rival texts', () => {
    expect(pairEditions([hebrew, { ...english, domain: 'travel' }], { minSharedNumbers: 10 })).toEqual([]);
    expect(pairEditions([hebrew, form], { minSharedNumbers: 1 })).toEqual([]);
    // A second Hebrew text with the same share of numbers but other ones: too close to call.
    const rival: EditionDocument = { domain: 'car', pages: english.pages.map((p) => ({ page: p.page, text: `${p.text} 9.9.9` })) };
    const half = (d: EditionDocument, keep: (p: number) => boolean): EditionDocument => ({ domain: 'car', pages: d.pages.filter((p) => keep(p.page)) });
    expect(pairEditions([half(hebrew, (p) => p <= 2), half(hebrew, (p) => p > 2), rival], { minSharedNumbers: 5, minDocumentSimilarity: 0.3 })).toEqual([]);
  });

  it('lists each document’s editions both ways', () => {
    const refs = editionRefs(alignEditions([hebrew, english], { minSharedNumbers: 10 }));
    expect(refs.get(1)?.[0]).toMatchObject({ doc: 0, lang: 'he' });
    expect(refs.get(0)?.[0]).toMatchObject({ doc: 1, lang: 'en' });
    expect(refs.get(0)?.[0].pages).toContainEqual([3, 4]);
  });
});

describe('editions in the index, in search and in the lenient metrics', () => {
  it('a build links the two editions; search lists the other edition; a twin-counting rank accepts it', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'harel-editions-'));
    try {
      const numbers = clauses(4, 30).join(' ');
      await mkdir(join(dir, 'corpus/car'), { recursive: true });
      await writeFile(join(dir, 'corpus/car/policy-he.txt'), `גרירה. הכיסוי לגרירת הרכב עד 500 ק"מ לפי הסעיפים ${numbers}.`);
      await writeFile(join(dir, 'corpus/car/policy-en.txt'), `Towing. The cover for towing the car up to 500 km under clauses ${numbers}.`);
      await buildIndex({ inputs: [join(dir, 'corpus')], outDir: join(dir, 'index'), embed: false, embedder: 'none', allowRemote: false, dtype: 'q8', maxTokens: 350, overlap: 0.15 });
      const index = await readIndexFolder(join(dir, 'index'));
      const he = index.documents.find((d) => d.file.endsWith('policy-he.txt'))!;
      expect(he.editions?.[0]).toMatchObject({ lang: 'en', pages: [[1, 1]] });
      const [hit] = new Retriever(index).search('גרירת הרכב', { k: 1 }).hits;
      expect(hit.file).toBe(he.file);
      expect(hit.editions).toEqual([expect.objectContaining({ file: 'car/policy-en.txt', page: 1, lang: 'en' })]);
      // A question whose gold is the English page: found strictly only in English, with twins in either.
      const fact = [{ file: 'car/policy-en.txt', page: 1 }];
      const ranked = [{ file: he.file, page: 1 }];
      expect(pageRank(fact, ranked)).toBeNull();
      expect(lenientPageRank(fact, ranked, twinLookup(index.documents, index.chunks))).toBe(1);
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });
});

const CORPUS = fileURLToPath(new URL('../../../../shared/data/harel/corpus/', import.meta.url));
const present = existsSync(join(CORPUS, 'car/files')) && existsSync(join(CORPUS, 'business/files'));
if (!present) console.warn(`editions real-corpus tests skipped: ${CORPUS} is absent (the shared data sits beside the repo).`);

interface CorpusDoc extends EditionDocument {
  file: string;
}
const readDomain = (domain: string): CorpusDoc[] =>
  readdirSync(join(CORPUS, domain), { recursive: true, encoding: 'utf8' })
    .filter((f) => f.endsWith('.json'))
    .sort()
    .map((f) => JSON.parse(readFileSync(join(CORPUS, domain, f), 'utf8')) as CorpusDoc);

describe.skipIf(!present)('editions on the Harel corpus', () => {
  it('pairs the English office policy with the Hebrew office policy, not the business one beside it', () => {
    const docs = readDomain('business');
    const pairs = pairEditions(docs).map((p) => [docs[p.doc].file, docs[p.hebrewDoc].file]);
    expect(pairs).toContainEqual(['business/files/תנאי-פוליסת-ביטוח-מכלול-למשרד-מהדורת-ינואר-2024-באנגלית.pdf', 'business/files/תנאי-פוליסה-ביטוח-מכלול-למשרד-מהדורת-ינואר-2024.pdf']);
    expect(pairs).toContainEqual(['business/files/תנאי-פוליסת-ביטוח-מכלול-לעסק-מהדורת-מרץ-2023-באנגלית.pdf', 'business/files/תנאי-פוליסה-ביטוח-מכלול-לעסק-מהדורת-מרץ-2023.pdf']);
    // English proposal forms carry too few numbers to pair with anything.
    expect(pairs.filter(([en]) => en.includes('טופס-הצעה'))).toEqual([]);
  });

  it('aligns the English car policy’s bumper-sensors page with the Hebrew page that holds the same clause', () => {
    const docs = readDomain('car');
    const links = alignEditions(docs);
    const english = docs.findIndex((d) => d.file.endsWith('עד-35-טון-יוני-2023-באנגלית.pdf'));
    const en = docs[english].pages.find((p) => p.page === 30)!;
    expect(en.text).toMatch(/sensors/i);
    const hebrewPages = links.filter((l) => l.doc === english && l.page === 30).map((l) => docs[l.hebrewDoc].pages.find((p) => p.page === l.hebrewPage)!.text);
    expect(hebrewPages.length).toBeGreaterThan(0);
    expect(hebrewPages.some((t) => t.includes('חיישנים'))).toBe(true);
  });
});
