import { describe, expect, it } from 'vitest';
import { normalizeText, detectLang } from '../../../widget/core/tokenizer/index.ts';

describe('normalizeText', () => {
  it('removes niqqud and cantillation but keeps maqaf as a dash', () => {
    expect(normalizeText('שָׁלוֹם')).toBe('שלומ');
    expect(normalizeText('רַב־שְׁנָתִי')).toBe('רב-שנתי');
    expect(normalizeText('\uFB2A')).toBe('ש'); // presentation form שׁ
  });

  it('folds final letters and unifies quotes', () => {
    expect(normalizeText('ךםןףץ')).toBe('כמנפצ');
    expect(normalizeText('ש״ח ג׳ “x” ‘y’')).toBe(`ש"ח ג' "x" 'y'`);
    expect(normalizeText("ש''ח")).toBe('ש"ח');
  });

  it('removes bidi controls and zero-width characters inside words', () => {
    expect(normalizeText('בי\u200Fטוח\u200B')).toBe('ביטוח');
  });

  it('is idempotent', () => {
    const samples = ['שָׁלוֹם ש״ח ’’ ′′ ‘’‘', 'ﬁle Ⅻ ２０２５ ', 'רַב־שְׁנָתִי ךםןףץ', "'''", 'A\u200Fb'];
    for (const s of samples) {
      const once = normalizeText(s);
      expect(normalizeText(once)).toBe(once);
    }
  });
});

describe('detectLang', () => {
  it('decides by script share', () => {
    expect(detectLang('ביטוח רכב מקיף')).toBe('he');
    expect(detectLang('Travel insurance policy')).toBe('en');
    expect(detectLang('מה מכסה ה-policy בחו"ל')).toBe('he');
    expect(detectLang('The policy (פוליסה) covers')).toBe('en');
  });
});
