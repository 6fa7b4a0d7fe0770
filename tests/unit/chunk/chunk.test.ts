import { describe, expect, it } from 'vitest';
import type { Chunk } from '../../../widget/core/schema.ts';
import { chunkDocument, estimateTokens, findBoilerplate, boilerplateKey } from '../../../widget/core/chunk/index.ts';
import { splitSentences } from '../../../widget/core/chunk/sentences.ts';
import { makeDoc } from './helpers.ts';

// Body sentences long enough (~25 estimated tokens) that a section fills half of a 40-token bound,
// so small-section merging stays out of the way where a test looks at single clauses.
const HE = 'המבטח ישלם למבוטח את תגמולי הביטוח בגין נזק שנגרם לדירה כתוצאה מאש או מפריצה בתקופת הביטוח.';
const EN = 'The insurer will pay the insured for loss or damage to the vehicle caused by fire or theft during the period of insurance.';

function find(chunks: Chunk[], needle: string): Chunk {
  const c = chunks.find((x) => x.text.includes(needle));
  if (!c) throw new Error(`no chunk contains ${needle}`);
  return c;
}

describe('structure: clauses and section paths', () => {
  it('tracks Hebrew chapters, named sections and clause numbers', () => {
    const doc = makeDoc([[["פרק ב' - כיסויים", 'הגדרות', `1. "מבוטח" - ${HE}`, `1.1 בן זוג ${HE}`, 'חריגים', `3.2.4 נזק במתכוון ${HE}`, `סעיף 5 תקופה ${HE}`, `(א) הארכה ${HE}`].join('\n')]]);
    const chunks = chunkDocument(doc, 0, { maxTokens: 60 });
    expect(find(chunks, '"מבוטח"')).toMatchObject({ clause: '1', sectionPath: ["פרק ב' - כיסויים", 'הגדרות'] });
    expect(find(chunks, 'בן זוג')).toMatchObject({ clause: '1.1', sectionPath: ["פרק ב' - כיסויים", 'הגדרות'] });
    expect(find(chunks, 'נזק במתכוון')).toMatchObject({ clause: '3.2.4', sectionPath: ["פרק ב' - כיסויים", 'חריגים'] });
    expect(find(chunks, 'תקופה')).toMatchObject({ clause: '5' });
    expect(find(chunks, 'הארכה')).toMatchObject({ clause: '5(א)', sectionPath: ["פרק ב' - כיסויים", 'חריגים'] });
    // The named section heading travels with the text under it.
    expect(find(chunks, 'נזק במתכוון').text.startsWith('חריגים\n')).toBe(true);
    // Siblings under one top-level clause share a parent; another clause does not.
    expect(find(chunks, '"מבוטח"').parentId).toBe(find(chunks, 'בן זוג').parentId);
    expect(find(chunks, 'תקופה').parentId).not.toBe(find(chunks, '"מבוטח"').parentId);
  });

  it('tracks English SECTION / ALL-CAPS / numbered headings and lettered items', () => {
    const doc = makeDoc(
      [['SECTION 2 - COVER', `1. Definitions\n${EN}`, `1.1 "Vehicle" means ${EN}`, 'GENERAL EXCLUSIONS', `4. War\n4.1 Invasion ${EN}\n(a) riots ${EN}`, `Exclusions\n${EN}`]],
      'test/en.pdf',
      'en',
    );
    const chunks = chunkDocument(doc, 0, { maxTokens: 60 });
    expect(find(chunks, 'Definitions')).toMatchObject({ clause: '1', sectionPath: ['SECTION 2 - COVER', 'Definitions'] });
    expect(find(chunks, '"Vehicle"')).toMatchObject({ clause: '1.1', sectionPath: ['SECTION 2 - COVER', 'Definitions'] });
    expect(find(chunks, 'Invasion')).toMatchObject({ sectionPath: ['SECTION 2 - COVER', 'GENERAL EXCLUSIONS', 'War'] });
    expect(find(chunks, 'riots')).toMatchObject({ clause: '4.1(a)' });
    // A named section ends the clause scope of the one before.
    expect(find(chunks, 'Exclusions\n')).toMatchObject({ clause: null, sectionPath: ['SECTION 2 - COVER', 'Exclusions'] });
  });

  it('uses heading blocks and their levels from the PDF parser', () => {
    const doc = makeDoc([
      [
        { type: 'heading', text: 'פרק א: ביטוח המבנה', level: 1 },
        { type: 'heading', text: '4. כיסויים', level: 2 },
        { type: 'text', text: `4.1 אש ${HE}` },
        { type: 'heading', text: 'חריגים', level: 2 },
        { type: 'text', text: `רעידת אדמה ${HE}` },
      ],
    ]);
    const chunks = chunkDocument(doc, 0, { maxTokens: 60 });
    expect(find(chunks, 'אש')).toMatchObject({ clause: '4', sectionPath: ['פרק א: ביטוח המבנה', 'כיסויים'] });
    expect(find(chunks, 'רעידת אדמה')).toMatchObject({ clause: null, sectionPath: ['פרק א: ביטוח המבנה', 'חריגים'] });
  });

  it('reads mirrored clause numbers of visual-order Hebrew lines', () => {
    const doc = makeDoc([[`- ${HE} .8.5.3`, `- .3.1.3 נזקי טבע ${HE}`]]);
    const chunks = chunkDocument(doc, 0, { maxTokens: 60 });
    expect(chunks.map((c) => c.clause)).toEqual(['8.5.3', '3.1.3']);
  });

  it('merges small sibling sections of one page but not across top-level sections', () => {
    const doc = makeDoc([['הגדרות\n1. "דירה" - המבנה.\n2. "תכולה" - חפצים.\n3. "מבנה" - קירות.', 'חריגים\n4. מלחמה.']]);
    const chunks = chunkDocument(doc, 0, { minTokens: 0 });
    expect(chunks).toHaveLength(2);
    expect(chunks[0]).toMatchObject({ clause: '1', sectionPath: ['הגדרות'] });
    expect(chunks[0].text).toContain('3. "מבנה"');
    expect(chunks[1]).toMatchObject({ clause: '4', sectionPath: ['חריגים'] });
  });
});

describe('pages', () => {
  it('never lets a chunk cross a page, while sections carry across pages', () => {
    const doc = makeDoc([['פרק א: כללי', `1. ${HE}`, `2. ${HE}`], [`${HE} ${HE}`, `3. ${HE}`], [`${EN} ${EN} ${EN}`]]);
    const chunks = chunkDocument(doc, 0, { maxTokens: 1000 });
    expect(new Set(chunks.map((c) => c.page))).toEqual(new Set([1, 2, 3]));
    for (const c of chunks) {
      const pageText = doc.pages[c.page - 1].blocks.map((b) => b.text).join('\n');
      for (const line of c.text.split('\n')) expect(pageText).toContain(line);
    }
    const second = chunks.find((c) => c.page === 2)!;
    expect(second).toMatchObject({ clause: '2', sectionPath: ['פרק א: כללי'] });
  });
});

describe('token bound and sentence splitting', () => {
  const sentences = Array.from({ length: 40 }, (_, i) => `Clause ${i} costs 1.200 dollars under section 3.2.4 of the policy, e.g. for item ${i}.`);
  const doc = makeDoc([[sentences.join(' ')]], 'test/long.pdf', 'en');
  const maxTokens = 200;
  const chunks = chunkDocument(doc, 0, { maxTokens });

  it('keeps every chunk within the bound', () => {
    expect(chunks.length).toBeGreaterThan(5);
    for (const c of chunks) expect(c.tokens).toBeLessThanOrEqual(maxTokens);
  });

  it('splits at sentence ends only: numbers and abbreviations stay whole', () => {
    for (const c of chunks) {
      expect(c.text).toMatch(/^Clause \d+ /);
      expect(c.text).toMatch(/for item \d+\.$/);
      expect(c.text).not.toMatch(/1\.2(?!00)|3\.2(?!\.4)/);
    }
    for (const s of sentences) expect(chunks.some((c) => c.text.includes(s))).toBe(true);
  });

  it('overlaps consecutive pieces by about 15 %', () => {
    for (let i = 1; i < chunks.length; i++) {
      const firstSentence = splitSentences(chunks[i].text)[0];
      expect(chunks[i - 1].text).toContain(firstSentence);
      const overlap = estimateTokens(firstSentence);
      expect(overlap).toBeLessThanOrEqual(maxTokens * 0.15 * 1.5);
      expect(chunks[i].text).not.toBe(chunks[i - 1].text);
    }
  });

  it('splits a sentence longer than the bound at word borders as a last resort', () => {
    const long = makeDoc([[Array.from({ length: 200 }, (_, i) => `word${i}`).join(' ')]], 'test/x.pdf', 'en');
    const pieces = chunkDocument(long, 0, { maxTokens: 50 });
    expect(pieces.length).toBeGreaterThan(3);
    for (const c of pieces) expect(c.tokens).toBeLessThanOrEqual(50);
  });

  it('counts with the given tokenizer', () => {
    const words = (t: string): number => t.split(/\s+/).filter(Boolean).length;
    const counted = chunkDocument(doc, 0, { maxTokens: 60, countTokens: words });
    for (const c of counted) {
      expect(c.tokens).toBe(words(c.text));
      expect(c.tokens).toBeLessThanOrEqual(60);
    }
  });
});

describe('tables', () => {
  const header = '| כיסוי | סכום ביטוח | השתתפות עצמית |';
  const rows = Array.from({ length: 30 }, (_, i) => `| כיסוי מספר ${i} לנזקי מים | ${i + 1},000 ₪ | ${i * 10} ₪ |`);

  function checkTable(chunks: Chunk[]): void {
    const tableChunks = chunks.filter((c) => c.text.includes('כיסוי מספר'));
    expect(tableChunks.length).toBeGreaterThan(2);
    for (const c of tableChunks) {
      // The table's title travels with its first piece.
      expect(c.text.split('\n').filter((l) => l !== 'טבלת כיסויים')[0]).toBe(header);
      expect(c.tokens).toBeLessThanOrEqual(100);
    }
    for (const r of rows) expect(tableChunks.filter((c) => c.text.split('\n').includes(r))).toHaveLength(1);
  }

  it('repeats the header row on each piece of a split markdown table', () => {
    const doc = makeDoc([['טבלת כיסויים', [header, '|---|---|---|', ...rows].join('\n')]]);
    const chunks = chunkDocument(doc, 0, { maxTokens: 100 });
    checkTable(chunks);
    expect(chunks.some((c) => c.text.includes('|---'))).toBe(false);
  });

  it('does the same for row blocks', () => {
    const doc = makeDoc([[{ type: 'row', text: header }, ...rows.map((text) => ({ type: 'row' as const, text }))]]);
    checkTable(chunkDocument(doc, 0, { maxTokens: 100 }));
  });
});

describe('noise and page furniture', () => {
  const pages = Array.from({ length: 5 }, (_, i) =>
    ['הראל חברה לביטוח בע"מ - פוליסה לביטוח דירה', `${i + 1}. ${['אש', 'פריצה', 'נזקי מים', 'רעידת אדמה', 'שבר'][i]}: ${HE}`, i === 2 ? 'ראו גם' : '', `עמוד ${i + 1} מתוך 5`, `${i + 1}`].filter(
      Boolean,
    ),
  );
  const doc = makeDoc(pages);

  it('finds lines repeated at the edges of most pages', () => {
    const found = findBoilerplate(doc);
    expect(found.has(boilerplateKey('הראל חברה לביטוח בע"מ - פוליסה לביטוח דירה'))).toBe(true);
    expect(found.has(boilerplateKey('עמוד 3 מתוך 5'))).toBe(true);
    expect(found.has(boilerplateKey(`1. אש: ${HE}`))).toBe(false);
  });

  it('drops furniture (but its first copy), page numbers and tiny chunks without numbers', () => {
    const chunks = chunkDocument(doc, 0);
    expect(chunks).toHaveLength(5);
    expect(chunks[0].text.startsWith('הראל חברה לביטוח')).toBe(true);
    for (const c of chunks) {
      if (c.page > 1) expect(c.text).not.toContain('הראל חברה לביטוח');
      expect(c.text).not.toContain('עמוד');
      expect(c.text.split('\n').every((l) => !/^\d+$/.test(l))).toBe(true);
    }
    const tiny = chunkDocument(makeDoc([['ראו גם'], ['3. גניבה']]), 0);
    expect(tiny.map((c) => c.text)).toEqual(['3. גניבה']);
  });

  it('keeps a sentence repeated mid-page (not at the edges) as content', () => {
    const body = 'השירות ניתן בכפוף לתנאי כתב השירות ולהוראות המפורטות להלן בכל מקרה.';
    const d = makeDoc(
      Array.from({ length: 4 }, (_, i) => [`כותרת עמוד ${i} עם מילים`, `פסקה ${i} ${HE}`, `עוד ${i} ${HE}`, body, `פסקה נוספת ${i} ${HE}`, `סיום ${i} ${HE}`, `שורה ${i} ${HE}`, `אחרונה ${i} ${HE}`]),
    );
    expect(chunkDocument(d, 0).filter((c) => c.text.includes(body))).toHaveLength(4);
  });
});

describe('ids', () => {
  const doc = makeDoc([[`1. ${HE}`, `2. ${EN}`], [`3. ${HE}`]]);

  it('are stable across runs and unique', () => {
    const a = chunkDocument(doc, 0);
    const b = chunkDocument(doc, 7);
    expect(a.map((c) => c.id)).toEqual(b.map((c) => c.id));
    expect(b.every((c) => c.doc === 7)).toBe(true);
    expect(new Set(a.map((c) => c.id)).size).toBe(a.length);
  });

  it('do not change when another page changes', () => {
    const edited = makeDoc([[`1. ${HE}`, `2. ${EN}`], [`3. ${HE} נוסף`]]);
    const before = chunkDocument(doc, 0)
      .filter((c) => c.page === 1)
      .map((c) => c.id);
    const after = chunkDocument(edited, 0)
      .filter((c) => c.page === 1)
      .map((c) => c.id);
    expect(after).toEqual(before);
  });

  it('disambiguate the same passage twice on one page deterministically', () => {
    const twice = makeDoc([[`הערה 1: ${HE}`, 'פרק ב: אחר', `הערה 1: ${HE}`]]);
    const chunks = chunkDocument(twice, 0, { maxTokens: 60 });
    const same = chunks.filter((c) => c.text.endsWith(`הערה 1: ${HE}`));
    expect(same.length).toBe(2);
    expect(same[0].id).not.toBe(same[1].id);
    expect(chunkDocument(twice, 0, { maxTokens: 60 }).map((c) => c.id)).toEqual(chunks.map((c) => c.id));
  });
});

describe('text-parser paragraphs with joined table rules', () => {
  it('drops the rules and cuts symbol runs so no chunk exceeds the bound', () => {
    const rule = `|${'-'.repeat(90)}|${'-'.repeat(90)}|`;
    const doc = makeDoc([[`${rule} | שם המבוטח | כתובת | ${rule} ${'='.repeat(2000)}`]]);
    const chunks = chunkDocument(doc, 0, { maxTokens: 50 });
    expect(chunks.some((c) => c.text.includes('שם המבוטח'))).toBe(true);
    for (const c of chunks) {
      expect(c.text).not.toContain('---');
      expect(c.tokens).toBeLessThanOrEqual(50);
    }
  });
});
