import { existsSync, mkdtempSync, readFileSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import { parsePdf, parsePdfDetailed, pdfPageCount } from '../../../builder/parse/pdf.ts';
import { repairHebrewLine, emptyRepairStats, reversalScore } from '../../../widget/core/pdf/bidi-repair.ts';
import { startsClause } from '../../../widget/core/pdf/blocks.ts';
import { isHarelError } from '../../../widget/core/errors.ts';
import type { Block, ParsedPage, Progress } from '../../../widget/core/schema.ts';
import { writeDemoPdf } from '../../../tools/demo-pdf.ts';

const DATA = fileURLToPath(new URL('../../../../shared/data/', import.meta.url));
const QBE = join(DATA, 'qbe');
const CLAIMS = join(DATA, 'claims');
const RAW_SAMPLE = join(DATA, 'harel/raw-sample');
const CORPUS = join(DATA, 'harel/corpus');
const FEB = join(DATA, 'harel-feb-raw');

function skipNote(dir: string): boolean {
  const missing = !existsSync(dir);
  if (missing) console.warn(`pdf.test: ${dir} not found (real data is kept beside the repo); skipping these tests.`);
  return missing;
}

const read = (path: string) => new Uint8Array(readFileSync(path));
const allBlocks = (pages: ParsedPage[]): Block[] => pages.flatMap((p) => p.blocks);
const pageText = (page: ParsedPage) => page.blocks.map((b) => b.text).join('\n');

/** Builds a PDF from object bodies with a correct xref table (offsets computed here). */
function tinyPdf(objects: string[], trailerExtra = ''): Uint8Array {
  let body = '%PDF-1.4\n';
  const offsets: number[] = [];
  objects.forEach((object, i) => {
    offsets.push(body.length);
    body += `${i + 1} 0 obj\n${object}\nendobj\n`;
  });
  const xref = body.length;
  body += `xref\n0 ${objects.length + 1}\n0000000000 65535 f \n`;
  body += offsets.map((o) => `${String(o).padStart(10, '0')} 00000 n \n`).join('');
  body += `trailer\n<< /Size ${objects.length + 1} /Root 1 0 R ${trailerExtra}>>\nstartxref\n${xref}\n%%EOF\n`;
  return new TextEncoder().encode(body);
}

const HELLO_STREAM = 'BT /F1 12 Tf 72 700 Td (Hello clause 1.1) Tj ET';
const HELLO_PDF = tinyPdf([
  '<< /Type /Catalog /Pages 2 0 R >>',
  '<< /Type /Pages /Kids [3 0 R] /Count 1 >>',
  '<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] /Resources << /Font << /F1 4 0 R >> >> /Contents 5 0 R >>',
  '<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica /Encoding /WinAnsiEncoding >>',
  `<< /Length ${HELLO_STREAM.length} >>\nstream\n${HELLO_STREAM}\nendstream`,
]);

async function expectCode(promise: Promise<unknown>, code: 'PDF_UNREADABLE' | 'PDF_ENCRYPTED' | 'ABORTED') {
  const error = await promise.then(
    () => null,
    (e: unknown) => e,
  );
  expect(isHarelError(error, code), `expected ${code}, got ${String(error)}`).toBe(true);
}

describe('parsePdf on hand-written PDFs', () => {
  it('parses a one-page Helvetica PDF', async () => {
    const pages = await parsePdf(HELLO_PDF, 'hello.pdf');
    expect(pages).toEqual([{ page: 1, blocks: [{ type: 'text', text: 'Hello clause 1.1' }] }]);
    expect(await pdfPageCount(HELLO_PDF)).toBe(1);
  });

  it('returns pages with no blocks for a PDF without text', async () => {
    const blank = tinyPdf([
      '<< /Type /Catalog /Pages 2 0 R >>',
      '<< /Type /Pages /Kids [3 0 R 4 0 R] /Count 2 >>',
      '<< /Type /Page /Parent 2 0 R /MediaBox [0 0 200 200] >>',
      '<< /Type /Page /Parent 2 0 R /MediaBox [0 0 200 200] >>',
    ]);
    expect(await parsePdf(blank, 'blank.pdf')).toEqual([
      { page: 1, blocks: [] },
      { page: 2, blocks: [] },
    ]);
  });

  it('reports a truncated PDF as PDF_UNREADABLE', async () => {
    await expectCode(parsePdf(HELLO_PDF.slice(0, 200), 'cut.pdf'), 'PDF_UNREADABLE');
  });

  it('reports random bytes and an empty file as PDF_UNREADABLE', async () => {
    const random = new Uint8Array(2048).map((_, i) => (i * 7919 + 13) % 251);
    await expectCode(parsePdf(random, 'noise.pdf'), 'PDF_UNREADABLE');
    await expectCode(parsePdf(new Uint8Array(0), 'empty.pdf'), 'PDF_UNREADABLE');
  });

  it('reports a password-protected PDF as PDF_ENCRYPTED', async () => {
    // Standard security handler with O/U entries that no empty user password can satisfy.
    const encrypted = tinyPdf(
      [
        '<< /Type /Catalog /Pages 2 0 R >>',
        '<< /Type /Pages /Kids [3 0 R] /Count 1 >>',
        '<< /Type /Page /Parent 2 0 R /MediaBox [0 0 200 200] >>',
        `<< /Filter /Standard /V 1 /R 2 /O (${'owner'.padEnd(32, 'x')}) /U (${'user'.padEnd(32, 'y')}) /P -4 >>`,
      ],
      '/Encrypt 4 0 R /ID [<0123456789abcdef0123456789abcdef> <0123456789abcdef0123456789abcdef>] ',
    );
    await expectCode(parsePdf(encrypted, 'locked.pdf'), 'PDF_ENCRYPTED');
  });

  it('stops with ABORTED when the signal has fired', async () => {
    const controller = new AbortController();
    controller.abort();
    await expectCode(parsePdf(HELLO_PDF, 'hello.pdf', { signal: controller.signal }), 'ABORTED');
  });
});

describe('demo policy PDF (tools/demo-pdf.ts)', () => {
  const dir = mkdtempSync(join(tmpdir(), 'demo-pdf-'));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it('generates three pages that parse into headings, clauses and table rows', async () => {
    const file = join(dir, 'demo.pdf');
    writeDemoPdf(file);
    const progress: Progress[] = [];
    const pages = await parsePdf(read(file), 'demo.pdf', { onProgress: (p) => progress.push(p) });
    expect(pages.map((p) => p.page)).toEqual([1, 2, 3]);
    expect(progress.map((p) => [p.step, p.done, p.total, p.detail])).toEqual([
      ['parse', 1, 3, 'demo.pdf'],
      ['parse', 2, 3, 'demo.pdf'],
      ['parse', 3, 3, 'demo.pdf'],
    ]);

    const headings = allBlocks(pages).filter((b) => b.type === 'heading');
    expect(headings).toEqual([
      { type: 'heading', text: 'Demo Home Insurance Policy', level: 1 },
      { type: 'heading', text: '1. Definitions', level: 2 },
      { type: 'heading', text: '2. Cover', level: 2 },
      { type: 'heading', text: '3. Exclusions', level: 2 },
      { type: 'heading', text: '4. Claims', level: 2 },
    ]);

    // Every clause starts its own text block, wrapped lines joined.
    const clauseStarts = allBlocks(pages)
      .filter((b) => b.type === 'text')
      .map((b) => b.text.match(/^\d\.\d\b/)?.[0])
      .filter(Boolean);
    expect(clauseStarts).toEqual(['1.1', '1.2', '1.3', '2.1', '2.2', '2.3', '3.1', '3.2', '4.1', '4.2', '4.3']);
    const water = pages[0].blocks.find((b) => b.text.startsWith('2.1'));
    expect(water?.text).toContain('The excess for each water damage claim is 500 ILS.');
    expect(pages[2].blocks.find((b) => b.text.startsWith('4.1'))?.text).toContain('within 30 days');

    expect(pages[1].blocks.filter((b) => b.type === 'row').map((b) => b.text)).toEqual([
      'Item | Limit',
      'Jewellery | 20,000 ILS',
      'Laptops and phones | 8,000 ILS',
      'Bicycles | 3,000 ILS',
      'Cash | 1,000 ILS',
    ]);
  });
});

describe('Hebrew order repair', () => {
  it('swaps mirrored brackets around Hebrew words', () => {
    const stats = emptyRepairStats();
    expect(repairHebrewLine(')נציין כי בכל מקרה, באם קיימת כזו(.', stats)).toBe('(נציין כי בכל מקרה, באם קיימת כזו).');
    expect(stats.mirroredBrackets).toBe(1);
    expect(repairHebrewLine('קפיצה מבניינים (פארקור), XPOGO', stats)).toBe('קפיצה מבניינים (פארקור), XPOGO');
    expect(stats.mirroredBrackets).toBe(1);
  });

  it('reverses a run stored backwards and keeps numbers readable', () => {
    const stats = emptyRepairStats();
    // Stored visually: Hebrew reversed, the number still reading left to right.
    const visual = [...'הפוליסה של המבוטח לפי סעיף 12 מכסה נזקים'].reverse().join('').replace('21', '12');
    expect(reversalScore(visual).backwards).toBeGreaterThan(1);
    expect(repairHebrewLine(visual, stats)).toBe('הפוליסה של המבוטח לפי סעיף 12 מכסה נזקים');
    expect(stats.reversedRuns).toBe(1);
    // Abbreviations with gershayim end in non-final letters legitimately: left alone.
    expect(repairHebrewLine('כמפורט בטופס המצ"ב ובנספח הנ"ל', stats)).toBe('כמפורט בטופס המצ"ב ובנספח הנ"ל');
    expect(stats.reversedRuns).toBe(1);
  });

  it('recognises clause and list starts', () => {
    for (const s of ['1. Definitions', '3.2.4 Water', '(א) המבוטח', 'סעיף 5 לחוק', '(b) other parts', '• fire;']) {
      expect(startsClause(s), s).toBe(true);
    }
    for (const s of ['500 ILS excess', 'Hello clause 1.1', 'המבוטח (א)']) expect(startsClause(s), s).toBe(false);
  });
});

describe.skipIf(skipNote(QBE))('QBE English policies', () => {
  const contents = join(QBE, 'QM8698-1124 QBE Contents Insurance PDS.pdf');
  const wording = join(QBE, 'qbe_home_policy_wording_mil.pdf');

  it('has the true page counts', async () => {
    // Counts from pdf.js numPages, checked against the parsed page lists.
    expect(await pdfPageCount(read(contents))).toBe(104);
    expect(await pdfPageCount(read(join(QBE, 'QM9264-0723 Small Business Insurance.pdf')))).toBe(129);
    const pages = await parsePdf(read(wording), 'wording.pdf');
    expect(pages.length).toBe(16);
  });

  it('finds headings and known text on known pages', async () => {
    const pages = await parsePdf(read(contents), 'contents.pdf');
    expect(pages.length).toBe(104);
    expect(pages[0].blocks[0]).toEqual({ type: 'heading', text: 'Contents Insurance', level: 1 });
    expect(pages[7].blocks.some((b) => b.type === 'heading' && b.text === 'About your policy')).toBe(true);
    const p20 = pages[19];
    expect(p20.blocks.some((b) => b.type === 'heading' && b.text === 'Insured Events')).toBe(true);
    expect(pageText(p20)).toContain('We cover damage to your insured contents caused directly by the following Insured Events');
  });

  it('reads two-column pages column by column with clauses at block starts', async () => {
    const pages = await parsePdf(read(wording), 'wording.pdf');
    const p8 = pages[7].blocks.map((b) => b.text);
    const starts = (prefix: string) => p8.findIndex((t) => t.startsWith(prefix));
    for (const clause of ['5. Home Contents in a safe deposit box', '(a) motors under a guarantee', '9. Home Contents at your workplace', '10. Valuables']) {
      expect(starts(clause), clause).toBeGreaterThanOrEqual(0);
    }
    // Left column (5.) is read before the right column (9.), not interleaved line by line.
    expect(starts('5. Home Contents')).toBeLessThan(starts('9. Home Contents'));
    expect(p8.some((t) => t.includes('contained in a tent, Vehicle, Watercraft or Aircraft'))).toBe(true);
  });
});

describe.skipIf(skipNote(CLAIMS))('claim PDFs with tables', () => {
  it('turns table rows into row blocks with their cells', async () => {
    const storm = await parsePdf(read(join(CLAIMS, 'CLM_2024_006001.pdf')), 'CLM_2024_006001.pdf');
    const rows = allBlocks(storm)
      .filter((b) => b.type === 'row')
      .map((b) => b.text);
    expect(rows).toContain('Item | Category | Amount | Date');
    expect(rows).toContain('Roof replacement | Structural | $12,500.00 | 2024-09-15');
    const auto = await parsePdf(read(join(CLAIMS, 'CLM_2024_006002.pdf')), 'CLM_2024_006002.pdf');
    expect(
      allBlocks(auto)
        .filter((b) => b.type === 'row')
        .map((b) => b.text),
    ).toContain('Medical Payments | $5,000 | $0 | $3,200.00');
    const cells = allBlocks(auto)
      .find((b) => b.type === 'row' && b.text.startsWith('Collision'))
      ?.text.split(' | ');
    expect(cells).toEqual(['Collision', '$50,000', '$500', '$18,750.00']);
  });

  it('keeps a claim ID and its label in one row', async () => {
    const pages = await parsePdf(read(join(CLAIMS, 'CLM_2024_001847.pdf')), 'CLM_2024_001847.pdf');
    expect(allBlocks(pages)).toContainEqual({ type: 'row', text: 'Claim Number: | CLM-2024-001847' });
  });
});

/** Whitespace-normalised char-bigram Dice coefficient (multiset). */
function bigramDice(a: string, b: string): number {
  const grams = (s: string) => {
    const t = s.replace(/\s+/g, '');
    const m = new Map<string, number>();
    for (let i = 0; i + 1 < t.length; i++) m.set(t.slice(i, i + 2), (m.get(t.slice(i, i + 2)) ?? 0) + 1);
    return m;
  };
  const ga = grams(a);
  const gb = grams(b);
  let shared = 0;
  let total = 0;
  for (const [g, c] of ga) {
    shared += Math.min(c, gb.get(g) ?? 0);
    total += c;
  }
  for (const c of gb.values()) total += c;
  return total === 0 ? 1 : (2 * shared) / total;
}

/** Jaccard over the sets of whitespace tokens stripped of edge punctuation. */
function tokenJaccard(a: string, b: string): number {
  const set = (s: string) =>
    new Set(
      s
        .split(/\s+/)
        .map((t) => t.replace(/^[^\p{L}\p{N}]+|[^\p{L}\p{N}]+$/gu, ''))
        .filter(Boolean),
    );
  const sa = set(a);
  const sb = set(b);
  let shared = 0;
  for (const t of sa) if (sb.has(t)) shared++;
  return shared / (sa.size + sb.size - shared || 1);
}

const REVERSED_FORMS = ['הסילופה', 'חוטיב', 'חטובמה'];

function expectLogicalHebrew(text: string) {
  expect(/הפוליסה|ביטוח|המבוטח/.test(text), 'common Hebrew words present').toBe(true);
  for (const reversed of REVERSED_FORMS) expect(text.includes(reversed), reversed).toBe(false);
}

describe.skipIf(skipNote(RAW_SAMPLE) || skipNote(CORPUS))('Harel raw-sample PDFs vs the parsed corpus', () => {
  const files = ['apartment/files/הודעה-על-תקופת-התיישנות.pdf', 'travel/files/הודעה-על-הגדרת-ספורט-אתגרי.pdf'];

  it.each(files)('%s matches its parsed copy page by page', async (rel) => {
    const { pages, repairs } = await parsePdfDetailed(read(join(RAW_SAMPLE, rel)), rel);
    const corpus = JSON.parse(readFileSync(join(CORPUS, `${rel}.json`), 'utf8')) as { pages: { page: number; text: string }[] };
    expect(pages.length).toBe(corpus.pages.length);
    for (const page of pages) {
      const mine = pageText(page);
      // The corpus copy is markdown-ish: drop table rules and list dashes before comparing.
      const theirs = corpus.pages[page.page - 1].text.replace(/[|#*\-[\]]{2,}|^- /gm, ' ');
      // Measured: Dice 0.962 / Jaccard 0.943-0.949 on both files. The gap is the corpus's own
      // damage (numbers moved inside Hebrew lines), so the floors sit a little under that.
      expect(bigramDice(mine, theirs)).toBeGreaterThan(0.92);
      expect(tokenJaccard(mine, theirs)).toBeGreaterThan(0.88);
      expectLogicalHebrew(mine);
    }
    const text = pages.map(pageText).join('\n');
    if (rel.startsWith('apartment')) {
      // pdf.js leaves this paragraph's brackets mirrored: ")נציין … כזו(." — the repair swaps them.
      expect(repairs.mirroredBrackets).toBeGreaterThan(0);
      expect(text).toContain('(נציין כי בכל מקרה');
      expect(text).toContain('באם קיימת כזו).');
      expect(text).toContain('סעיף 31 לחוק חוזה הביטוח התשמ"א-1981');
    } else {
      expect(text).toContain('קפיצה מבניינים (פארקור)');
    }
  });
});

describe.skipIf(skipNote(FEB))('Harel Feb scrape PDFs', () => {
  const picks = [
    { rel: 'apartment/files/www.harel-group.co.il-2020-.pdf', pages: 37 },
    { rel: 'health/files/www.harel-group.co.il-heart-012010.pdf', pages: 2 },
    { rel: 'car/files/www.harel-group.co.il---24.pdf', pages: 1 },
  ].filter(({ rel }) => existsSync(join(FEB, rel)));

  it('has the picked files', () => {
    expect(picks.length).toBe(3);
    expect(readdirSync(join(FEB, 'car/files')).length).toBeGreaterThan(0);
  });

  it.each(picks)(
    '$rel parses every page in logical order',
    async ({ rel, pages: expected }) => {
      const bytes = read(join(FEB, rel));
      const { pages, repairs } = await parsePdfDetailed(bytes, rel);
      // The apartment policy's brackets come out of pdf.js mirrored throughout (210 runs repaired).
      if (rel.startsWith('apartment')) expect(repairs.mirroredBrackets).toBeGreaterThan(100);
      expect(pages.length).toBe(expected);
      expect(await pdfPageCount(bytes)).toBe(pages.length);
      expect(pages.map((p) => p.page)).toEqual(pages.map((_, i) => i + 1));
      expect(pages.filter((p) => p.blocks.length > 0).length).toBe(pages.length);
      expectLogicalHebrew(pages.map(pageText).join('\n'));
    },
    60_000,
  );
});
