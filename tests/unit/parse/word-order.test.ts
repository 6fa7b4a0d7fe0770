import { existsSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { countDocumentLine, createWordOrderCounts, repairPageOrder, repairWordOrder, wordOrderModel } from '../../../widget/core/pdf/word-order.ts';
import { buildCorpusModel, matchLines, parseReference, RAW_DIR, tally } from '../../../builder/eval/reading-order.ts';
import { hasHarelData, loadCorpus } from '../../../builder/eval/harel-corpus.ts';

// Lines written for this test in the shapes the corpus's parse produces (the corpus itself is not copied here).
const TRUSTED_TEXT = [
  'המבוטח זכאי להחזר מגיל 21 ומעלה',
  'הכיסוי ניתן מגיל 18 ומעלה בלבד',
  'הפיצוי ישולם מגיל 65 ומעלה',
  'ההחזר הוא עד 10% מסכום הביטוח',
  'ההשתתפות עד 5% מסכום הביטוח',
  'תקופת האכשרה היא 90 ימים מתחילת הביטוח',
  'דמי ביטוח חודשיים לפי גבול האחריות',
  'גבול האחריות לכל מקרה',
  'גניבת ציוד חקלאי נייח בגבול האחריות',
];

function model() {
  const counts = createWordOrderCounts();
  for (const line of TRUSTED_TEXT) countDocumentLine(counts, line, 'trusted');
  return wordOrderModel(counts);
}

describe('repairWordOrder', () => {
  it('puts a clause label that the parse left mid-line back first, after the list marker', () => {
    expect(repairWordOrder('השתתפות עצמית .6.1.6', model())).toEqual({ text: '.6.1.6 השתתפות עצמית', repair: 'label-first' });
    expect(repairWordOrder('- עבור תיקון נזק לדוד אחריות לתקופה של שישה חודשים ממועד .6.1.5.1 סיום התיקון.', model()).text).toBe(
      '- .6.1.5.1 עבור תיקון נזק לדוד אחריות לתקופה של שישה חודשים ממועד סיום התיקון.',
    );
  });

  it('joins a detached period to its label again, and sends stray punctuation to the line end', () => {
    expect(repairWordOrder('- . נזק הנובע מעייפות החומר או מעומס יתר. 11.1.11', model()).text).toBe('- .11.1.11 נזק הנובע מעייפות החומר או מעומס יתר.');
    expect(repairWordOrder('- , אחריותו המקצועית של המבוטח .4.4 או של עובדיו', model()).text).toBe('- .4.4 אחריותו המקצועית של המבוטח או של עובדיו ,');
  });

  it('reverses runs around a number when the corpus reads them the other way', () => {
    expect(repairWordOrder('ומעלה 21 מגיל', model())).toEqual({ text: 'מגיל 21 ומעלה', repair: 'runs-reversed' });
    expect(repairWordOrder('מסכום הביטוח 10% עד', model()).text).toBe('עד 10% מסכום הביטוח');
  });

  it('leaves lines that read right as they are', () => {
    const m = model();
    for (const line of [
      'מגיל 21 ומעלה',
      'ההחזר הוא עד 10% מסכום הביטוח',
      '.6.1.6 השתתפות עצמית',
      '- 1.2 פרשנות המונחים בפוליסה',
      'כהגדרתו בסעיף .6.1 להלן',
      'המבוטח יפנה אל המוקד בכל שאלה',
      '| 10 | גבול האחריות |',
      'Policy number 12345',
    ])
      expect(repairWordOrder(line, m)).toEqual({ text: line, repair: 'none' });
  });

  it('keeps every character of the line, whatever it reorders', () => {
    const line = '- מסכום ביטוח התכולה. 10% )ט( שעוני יד - עד';
    const { text } = repairWordOrder(line, model());
    expect([...text.replace(/\s/g, '')].sort().join('')).toBe([...line.replace(/\s/g, '')].sort().join(''));
  });

  it('is not fooled by lines of a thousand pieces or without Hebrew', () => {
    const long = Array.from({ length: 1000 }, (_, i) => (i % 2 ? 'מילה' : String(i))).join(' ');
    expect(repairWordOrder(long, model()).repair).toBe('none');
    expect(repairWordOrder('', model()).repair).toBe('none');
    expect(repairWordOrder('1 2 3', model()).repair).toBe('none');
  });
});

describe('repairPageOrder', () => {
  it('turns the rows of a table stored backwards together, cells and their words, numbers-only rows too', () => {
    const page = ['מחירון הכיסויים', '| ביטוח דמי | האחריות גבול |', '| ₪ 30,000 | ₪ 1,200 |', '| לאירוע ₪ 400 | נייח חקלאי ציוד גניבת |'].join('\n');
    const { text, reordered } = repairPageOrder(page, model());
    expect(text.split('\n')).toEqual(['מחירון הכיסויים', '| גבול האחריות | דמי ביטוח |', '| 1,200 ₪ | 30,000 ₪ |', '| גניבת ציוד חקלאי נייח | 400 ₪ לאירוע |']);
    expect(reordered).toBe(3);
  });

  it('leaves a table that reads forwards, and ragged rows keep every cell', () => {
    const page = ['| דמי ביטוח | גבול האחריות |', '| 1,200 ₪ |', '| גבול האחריות לכל מקרה | | |'].join('\n');
    expect(repairPageOrder(page, model())).toEqual({ text: page, reordered: 0 });
  });

  it('reads a cell of 10,000 characters without losing any', () => {
    const cell = Array.from({ length: 2000 }, () => 'ביטוח דמי')
      .join(' ')
      .slice(0, 10_000);
    const { text } = repairPageOrder(`| ${cell} | האחריות גבול |`, model());
    expect(text.replace(/[\s|]/g, '').length).toBe(`${cell}האחריותגבול`.replace(/\s/g, '').length);
  });
});

const haveData = hasHarelData() && existsSync(RAW_DIR);
if (!haveData) console.warn('word-order.test: ../shared/data (harel corpus and harel-feb-raw) not found; skipping the real-line checks.');

describe.skipIf(!haveData)('on real lines: the corpus against the project parse of the same PDFs', () => {
  it('orders more lines as the reference does, and changes none that already did', async () => {
    const corpus = loadCorpus();
    const lines = matchLines(await parseReference({ under: 'apartment/', quiet: true }), corpus);
    const result = tally(lines, buildCorpusModel(corpus), 0.5);
    expect(lines.length).toBeGreaterThan(500);
    expect(result.agreeBefore).toBeGreaterThan(0);
    expect(result.agreeAfter).toBeGreaterThan(1.5 * result.agreeBefore);
    expect(result.rightLinesChanged).toBe(0);
  }, 120_000);
});
