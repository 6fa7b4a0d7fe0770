import { describe, expect, it } from 'vitest';
import { buildCitations, parseCitations } from '../../../widget/loop/citations.ts';
import { passage } from './helpers.ts';

const passages = [1, 2, 3].map((n) => passage(`משפט ראשון בסעיף ${n}. ההשתתפות העצמית היא ${n}00 ש"ח.`, { n, chunkId: `c${n}`, page: n }));

describe('parseCitations', () => {
  it('reads [1], [2,3], [1][3], [ 2 ], ranges and Arabic-Indic digits', () => {
    expect(parseCitations('א [1]. ב [2,3]. ג [1][3]. ד [ 2 ].', passages).text).toBe('א [1]. ב [2][3]. ג [1][3]. ד [2].');
    expect(parseCitations('x [1-3]', passages).sources.map((p) => p.n)).toEqual([1, 2, 3]);
    expect(parseCitations('x [٢] y [۳]', passages).sources.map((p) => p.n)).toEqual([2, 3]);
  });

  it('drops invented numbers from the text and renumbers by first appearance', () => {
    const parsed = parseCitations('ראשית [3]. שנית [7]. שלישית [1, 9] ושוב [3].', passages);
    expect(parsed.text).toBe('ראשית [1]. שנית. שלישית [2] ושוב [1].');
    expect(parsed.dropped).toEqual([7, 9]);
    expect(parsed.sources.map((p) => p.chunkId)).toEqual(['c3', 'c1']);
    expect(parsed.renumbered.get(3)).toBe(1);
    expect(parsed.grounded).toBe(true);
  });

  it('an answer citing nothing (or only invented sources) is not grounded', () => {
    expect(parseCitations('תשובה בלי מקורות.', passages).grounded).toBe(false);
    const invented = parseCitations('תשובה [8].', passages);
    expect(invented.grounded).toBe(false);
    expect(invented.text).toBe('תשובה.');
  });
});

describe('buildCitations', () => {
  it('uses the engine’s quote, else the passage sentence closest to the answer', () => {
    const parsed = parseCitations('ההשתתפות העצמית היא 300 ש"ח [3]. ראו גם [1].', passages);
    const [first, second] = buildCitations(parsed, { quotes: new Map([[1, 'ציטוט']]), reference: parsed.text });
    expect(first).toMatchObject({ n: 1, chunkId: 'c3', page: 3, file: 'car/policy.pdf', quote: 'ההשתתפות העצמית היא 300 ש"ח.' });
    expect(second).toMatchObject({ n: 2, chunkId: 'c1', quote: 'ציטוט' });
  });

  it('lists the other-language edition of the cited page after its twins, with its language', () => {
    const twin = { chunkId: 't', file: 'car/policy-2022.pdf', page: 3, title: 'פוליסת רכב 2022', url: null };
    const english = { file: 'car/policy-en.pdf', page: 4, title: 'Car policy', url: null, lang: 'en' };
    const withEdition = [passage('ההשתתפות העצמית היא 300 ש"ח.', { n: 1, chunkId: 'c1', alsoIn: [twin], editions: [english] })];
    const [citation] = buildCitations(parseCitations('ההשתתפות העצמית היא 300 ש"ח [1].', withEdition), { reference: '' });
    expect(citation.alsoIn).toEqual([{ file: twin.file, page: 3, title: twin.title, url: null }, english]);
  });
});
