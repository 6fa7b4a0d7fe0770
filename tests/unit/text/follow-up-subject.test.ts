import { describe, expect, it } from 'vitest';
import { withoutContinuation } from '../../../widget/text/follow-up-cues.ts';
import { reaskAbout } from '../../../widget/text/follow-up-subject.ts';

describe('withoutContinuation: what a follow-up adds, its opener dropped', () => {
  it.each([
    ['ומה לגבי רכב?', 'רכב?'],
    ['מה עם ביטוח נסיעות?', 'ביטוח נסיעות?'],
    ['ולחו"ל?', 'לחו"ל?'],
    ['ובדירה?', 'בדירה?'],
    ['And for the car?', 'for the car?'],
    ['what about travel insurance?', 'travel insurance?'],
    ['and for the car too?', 'for the car?'],
    ['for kids as well?', 'for kids?'],
  ])('%s → %s', (question, rest) => {
    expect(withoutContinuation(question)).toBe(rest);
  });

  it('leaves a question that opens with no continuation as it is', () => {
    for (const q of ['כמה זה עולה?', 'is that covered abroad?', 'ויזה לארה"ב?', 'השתתפות עצמית?']) expect(withoutContinuation(q)).toBe(q);
  });
});

describe('reaskAbout: the previous question about the subject a follow-up names', () => {
  it.each([
    ['מה ההשתתפות העצמית בביטוח דירה?', 'רכב?', 'מה ההשתתפות העצמית בביטוח רכב?'],
    ['כמה זמן יש לי להגיש תביעה בביטוח נסיעות?', 'ביטוח בריאות?', 'כמה זמן יש לי להגיש תביעה בביטוח בריאות?'],
    ['מה ההשתתפות העצמית בביטוח רכב?', 'בדירה?', 'מה ההשתתפות העצמית בביטוח בדירה?'],
    ['What is the deductible for home insurance?', 'for the car?', 'What is the deductible for car insurance?'],
    ['מה ההשתתפות העצמית בתביעה על נזקי מים בביטוח הדירה?', 'רכב?', 'מה ההשתתפות העצמית בתביעה על רכב בביטוח?'],
    ['Does the health policy pay for a second opinion?', 'for travel?', 'Does the travel policy pay for a second opinion?'],
  ])('%s + %s → %s', (previous, followUp, asked) => {
    expect(reaskAbout(previous, followUp)).toBe(asked);
  });

  it('swaps nothing when the follow-up names no insurance, says more than one, or names the previous question’s own', () => {
    expect(reaskAbout('מה ההשתתפות העצמית בביטוח דירה?', 'מזג האוויר?')).toBeNull();
    expect(reaskAbout('מה ההשתתפות העצמית בביטוח דירה?', 'ילדים?')).toBeNull();
    expect(reaskAbout('Is my luggage covered on a trip?', 'for abroad?')).toBeNull();
    expect(reaskAbout('מה ההשתתפות העצמית על החלפת שמשה ברכב?', 'רכב חלופי?')).toBeNull();
    // A place or a thing of another insurance narrows the question: surgery abroad, a report from abroad.
    expect(reaskAbout('האם ביטוח הבריאות מכסה ניתוח?', 'לחו"ל?')).toBeNull();
    expect(reaskAbout('How soon must I report a home insurance claim?', 'for a trip abroad?')).toBeNull();
    expect(reaskAbout('מה ההשתתפות העצמית בביטוח דירה?', 'רכב שכור בחו"ל?')).toBeNull();
  });

  it('swaps nothing when the previous question names no one subject', () => {
    expect(reaskAbout('מה ההשתתפות העצמית?', 'רכב?')).toBeNull();
    expect(reaskAbout('What is the deductible?', 'for the car?')).toBeNull();
    expect(reaskAbout('Is dental treatment covered by the health policy?', 'for travel?')).toBeNull();
    // Two insurances at once: which one the follow-up replaces is anyone's guess.
    expect(reaskAbout('אני יוצא לטיול והדירה תעמוד ריקה. אם יפרצו אליה, הגניבה תכוסה?', 'רכב?')).toBeNull();
  });
});
