import { describe, expect, it } from 'vitest';
import { tokenize, analyze, TOKENIZER_VERSION } from '../../../widget/core/tokenizer/index.ts';

const has = (text: string, term: string, forQuery = false) => tokenize(text, { forQuery }).includes(term);

describe('Hebrew prefixes', () => {
  it('makes prefixed and bare forms meet', () => {
    for (const w of ['ביטוח', 'בביטוח', 'והביטוח', 'לביטוח', 'מהביטוח', 'שבביטוח', 'וכשהביטוח']) {
      expect(tokenize(w)).toContain('ביטוח');
    }
  });

  it('keeps the surface form and lists it first', () => {
    expect(tokenize('והביטוח')).toEqual(['והביטוח', 'הביטוח', 'ביטוח']);
  });

  it('only strips legal stacks', () => {
    // ב then ב is not a stack (at most one of ב/כ/ל/מ); ה never follows ב/כ/ל; ו only comes first.
    expect(tokenize('בביטוח')).toEqual(['בביטוח', 'ביטוח']);
    expect(tokenize('בהתאם')).toEqual(['בהתאמ', 'התאמ']);
    expect(tokenize('הוביטוח')).toEqual(['הוביטוח', 'וביטוח']);
    expect(tokenize('לכשיגיע')).toEqual(['לכשיגיע', 'כשיגיע', 'יגיע']);
  });

  it('leaves short words whole', () => {
    expect(tokenize('מים')).toEqual(['מימ']);
    expect(tokenize('שכר')).toEqual(['שכר']);
    expect(tokenize('הבית')).toEqual(['הבית', 'בית']);
    expect(tokenize('בית')).toEqual(['בית']);
  });

  it('query words meet indexed words through the stripped candidates', () => {
    const doc = new Set(tokenize('הכיסוי בביטוח הרכב'));
    for (const q of ['ביטוח רכב', 'כיסוי', 'לרכב']) {
      const terms = tokenize(q, { forQuery: true });
      expect(terms.some((t) => doc.has(t))).toBe(true);
    }
  });
});

describe('normalised spelling', () => {
  it('folds final letters', () => {
    expect(tokenize('שלום עליכם חשבון קוף ארץ')).toEqual(['חשבונ', 'קופ', 'ארצ']);
    expect(tokenize('חשבון')).toEqual(tokenize('חשבונ'));
  });

  it('ignores niqqud and cantillation', () => {
    expect(tokenize('בִּטּוּחַ רֶכֶב')).toEqual(tokenize('בטוח רכב'));
    expect(tokenize('תְּבִיעָה֑')).toEqual(['תביעה']);
  });

  it('joins gershayim acronyms and keeps geresh letters', () => {
    expect(tokenize('ש"ח')).toEqual(['שח']);
    expect(tokenize('ש״ח')).toEqual(['שח']);
    expect(tokenize('ש”ח')).toEqual(['שח']);
    expect(tokenize("ש''ח")).toEqual(['שח']);
    expect(tokenize('ת"א')).toEqual(['תא']);
    expect(tokenize('מע"מ')).toEqual(['מעמ']);
    expect(tokenize("צד ג'")).toEqual(['צד', 'ג']);
    expect(tokenize('צד ג׳')).toEqual(['צד', 'ג']);
  });

  it('strips prefixes from acronyms only before the quote', () => {
    expect(tokenize('בת"א')).toEqual(['בתא', 'תא']);
    expect(tokenize('לחו"ל')).toEqual(['לחול', 'חול']);
    expect(tokenize('ש"ח')).toEqual(['שח']);
  });

  it('drops lone letters without a geresh (detached prefixes)', () => {
    expect(tokenize('ב-2025 ו - ה')).toEqual(['2025']);
  });
});

describe('numbers', () => {
  it('keeps numbers whole and makes thousands separators meet', () => {
    expect(tokenize('1,200,000')).toEqual(['1200000']);
    expect(tokenize('1200000')).toEqual(['1200000']);
    expect(tokenize('סעיף 3.2.4')).toEqual(['סעיפ', '3.2.4']);
    expect(tokenize('ב-15.1.2025')).toEqual(['15.1.2025']);
    expect(tokenize('15/1/2025')).toEqual(['15.1.2025']);
    expect(tokenize('25%')).toEqual(['25']);
    expect(tokenize('₪500 $120 €3.5')).toEqual(['500', '120', '3.5']);
    expect(tokenize('1,2,3')).toEqual(['1', '2', '3']);
  });
});

describe('stop words', () => {
  it('drops conversational filler, also behind a conjunction', () => {
    expect(tokenize('אני רוצה לדעת האם יש לי כיסוי של הביטוח שלי')).toEqual(['כיסוי', 'יסוי', 'הביטוח', 'ביטוח']);
    expect(tokenize('ואני שיש כשהוא והיא הזה')).toEqual([]);
  });

  it('keeps negation and content words that look like prefix + stop word', () => {
    expect(tokenize('לא מכוסה')).toContain('לא');
    expect(tokenize('אין כיסוי')).toContain('אינ');
    expect(tokenize('בעל הדירה')).toContain('בעל');
    expect(tokenize('השכן')).toContain('שכנ');
    expect(tokenize('not covered')).toEqual(['not', 'cover']);
  });
});

describe('English and mixed text', () => {
  it('lower-cases, stems and drops stop words', () => {
    expect(tokenize('The Insured is covered for Claims')).toEqual(['insur', 'cover', 'claim']);
    expect(tokenize("policyholder's")).toEqual(['policyhold']);
    expect(tokenize('COVID-19 b2b')).toEqual(['covid', '19', 'b2b']);
  });

  it('handles Hebrew and English in one string', () => {
    expect(tokenize('כיסוי Travel בחו"ל 2025')).toEqual(['כיסוי', 'יסוי', 'travel', 'בחול', 'חול', '2025']);
  });
});

describe('query mode', () => {
  it('de-duplicates and otherwise matches document mode', () => {
    const text = 'ביטוח ביטוח רכב';
    expect(tokenize(text)).toEqual(['ביטוח', 'יטוח', 'ביטוח', 'יטוח', 'רכב']);
    expect(tokenize(text, { forQuery: true })).toEqual(['ביטוח', 'יטוח', 'רכב']);
    expect(has('ביטוח', 'ביטוח', true)).toBe(true);
  });
});

describe('analyze', () => {
  it('reports word kinds and how many candidates stripping added', () => {
    const words = analyze('והביטוח abc 12');
    expect(words.map((w) => w.kind)).toEqual(['he', 'latin', 'number']);
    expect(words[0].stripped).toBe(2);
    expect(TOKENIZER_VERSION).toMatch(/\S/);
  });
});

describe('root-initial words', () => {
  it('does not strip words whose first letter belongs to the root', () => {
    expect(tokenize('מקרה')).toEqual(['מקרה']);
    expect(tokenize('ומקרה')).toEqual(['ומקרה', 'מקרה']);
    expect(tokenize('והמקרה')).toEqual(['והמקרה', 'המקרה', 'מקרה']);
  });
});
