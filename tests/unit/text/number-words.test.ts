import { describe, expect, it } from 'vitest';
import { HE_NUMBER_PHRASE, readNumberWords } from '../../../widget/text/number-words.ts';

const values = (text: string) => readNumberWords(text).map((n) => n.value);

describe('readNumberWords', () => {
  it('reads the Hebrew teens whole, masculine and feminine, twelve included', () => {
    expect(values('לתקופה של שמונה עשרה שנים')).toEqual([18]);
    expect(values('אחד עשר חודשים')).toEqual([11]);
    expect(values('שתים עשרה פעמים')).toEqual([12]);
    expect(values('שנים עשר חודשים')).toEqual([12]);
    expect(values('חמש עשרה דקות')).toEqual([15]);
  });

  it('reads tens, compounds joined by ו, hundreds and thousands', () => {
    expect(values('עשרים וחמישה ימים')).toEqual([25]);
    expect(values('תשעים יום')).toEqual([90]);
    expect(values('שלוש מאות שקלים')).toEqual([300]);
    expect(values('מאה ועשרים')).toEqual([120]);
    expect(values('שלושת אלפים ש"ח')).toEqual([3000]);
    expect(values('אלף ש"ח')).toEqual([1000]);
    expect(values('אלפיים שקל')).toEqual([2000]);
    expect(values('חמישה מיליון')).toEqual([5e6]);
  });

  it('takes one proclitic, never the definite article, and "שנים" alone is years', () => {
    expect(values('בתוך שלושים יום, ולשלושה חודשים')).toEqual([30, 3]);
    expect(values('הצד השני')).toEqual([]);
    expect(values('לאחר שנים רבות')).toEqual([]);
  });

  it('keeps two numbers apart when words cannot join', () => {
    expect(values('שלוש או ארבע')).toEqual([3, 4]);
    expect(values('שלושה ארבעה')).toEqual([3, 4]);
    expect(values('שמונה עשרה ועשרים')).toEqual([18, 20]);
  });

  it('reads English number words with hyphens and "and"', () => {
    expect(values('within forty-five days')).toEqual([45]);
    expect(values('three hundred and twenty dollars')).toEqual([320]);
    expect(values('eighteen years')).toEqual([18]);
  });

  it('says where each number stands', () => {
    const text = 'עד גיל שמונה עשרה בלבד';
    const [n] = readNumberWords(text);
    expect(text.slice(n.start, n.end)).toBe('שמונה עשרה');
  });
});

describe('HE_NUMBER_PHRASE', () => {
  const re = new RegExp(`${HE_NUMBER_PHRASE}\\s+שנים`, 'u');
  it('matches a compound whole, so a fact is never cut inside it', () => {
    expect('לתקופה של שמונה עשרה שנים'.match(re)?.[0]).toBe('שמונה עשרה שנים');
    expect('עשרים ושלוש שנים'.match(re)?.[0]).toBe('עשרים ושלוש שנים');
    expect('שנים עשר חודשים'.match(new RegExp(HE_NUMBER_PHRASE, 'u'))?.[0]).toBe('שנים עשר');
  });
  it('does not take a word that only begins like a number', () => {
    expect('עשרות שנים'.match(re)).toBeNull();
  });
});

describe('facts with compound number words', () => {
  it('a period in words is found whole: eighteen years, never "עשרה שנים"', async () => {
    const { findFacts } = await import('../../../widget/text/facts.ts');
    expect(findFacts('הכיסוי יינתן למבוטח לתקופה של שמונה עשרה שנים ממועד ההצטרפות.', 'duration').map((f) => f.text)).toEqual(['שמונה עשרה שנים']);
    expect(findFacts('יש להודיע תוך עשרים ואחד ימים.', 'duration').map((f) => f.text)).toEqual(['עשרים ואחד ימים']);
    expect(findFacts('ניתן לקבל את השירות שתים עשרה פעמים בשנה.', 'count').map((f) => f.text)).toEqual(['שתים עשרה פעמים']);
  });
});
