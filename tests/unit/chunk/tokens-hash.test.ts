import { describe, expect, it } from 'vitest';
import { chunkContextPrefix, contentHash, estimateTokens, sectionId } from '../../../widget/core/chunk/index.ts';

describe('estimateTokens', () => {
  it('counts Hebrew words at ~1.6–2 pieces, English at ~1.3', () => {
    const he = 'המבטח ישלם למבוטח את תגמולי הביטוח בגין נזק שנגרם לדירה כתוצאה מאש או מפריצה';
    const heWords = he.split(' ').length;
    expect(estimateTokens(he) / heWords).toBeGreaterThanOrEqual(1.6);
    expect(estimateTokens(he) / heWords).toBeLessThanOrEqual(2.1);
    const en = 'The insurer will pay the insured for loss or damage to the vehicle caused by fire or theft during the period of insurance';
    const enWords = en.split(' ').length;
    expect(estimateTokens(en) / enWords).toBeGreaterThanOrEqual(1.0);
    expect(estimateTokens(en) / enWords).toBeLessThanOrEqual(1.5);
  });

  it('counts digit groups and punctuation', () => {
    expect(estimateTokens('2023')).toBe(2);
    expect(estimateTokens('6,000,000')).toBe(5);
    expect(estimateTokens('')).toBe(0);
    expect(estimateTokens('ש"ח')).toBe(4);
  });
});

describe('contentHash and sectionId', () => {
  it('is 16 hex chars, stable, and sensitive to every character', () => {
    const h = contentHash('policy.pdf\u00003\u0000text');
    expect(h).toMatch(/^[0-9a-f]{16}$/);
    expect(contentHash('policy.pdf\u00003\u0000text')).toBe(h);
    expect(contentHash('policy.pdf\u00003\u0000texT')).not.toBe(h);
    expect(contentHash('policy.pdf\u00004\u0000text')).not.toBe(h);
    const many = new Set(Array.from({ length: 20000 }, (_, i) => contentHash(`chunk ${i}`)));
    expect(many.size).toBe(20000);
  });

  it('gives one id per file, section path and clause', () => {
    const a = sectionId('a.pdf', ['פרק ב', 'חריגים'], '3');
    expect(sectionId('a.pdf', ['פרק ב', 'חריגים'], '3')).toBe(a);
    expect(sectionId('a.pdf', ['פרק ב', 'חריגים'], '4')).not.toBe(a);
    expect(sectionId('b.pdf', ['פרק ב', 'חריגים'], '3')).not.toBe(a);
    expect(sectionId('a.pdf', ['פרק ב', 'חריגים'], null)).not.toBe(a);
    // The separator keeps ['a b'] and ['a', 'b'] apart.
    expect(sectionId('a.pdf', ['a b'], null)).not.toBe(sectionId('a.pdf', ['a', 'b'], null));
  });
});

describe('chunkContextPrefix', () => {
  it('joins the title and the section path', () => {
    expect(chunkContextPrefix({ title: 'פוליסת דירה' }, { sectionPath: ['פרק ב', 'חריגים'] })).toBe('פוליסת דירה > פרק ב > חריגים');
    expect(chunkContextPrefix({ title: 'Car policy' }, { sectionPath: [] })).toBe('Car policy');
  });
});
