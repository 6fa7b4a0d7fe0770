/**
 * An unlabelled fact leads when the quoted sentence holds much of what the customer asks: the
 * words of the sentence that asks, not of the story told before it.
 */
import { describe, expect, it } from 'vitest';
import { plainAnswerText } from '../../../widget/answer/document-text.ts';
import { factLead } from '../../../widget/engines/answer-leads.ts';
import { askingText } from '../../../widget/text/question-type.ts';
import { readStandalone } from '../../../widget/text/question-reading.ts';
import { passage } from '../loop/helpers.ts';

const SENTENCE = 'דמי הביטוח על פי פוליסה זו יקבעו בהתאם לגיל המבוטח במועד הצטרפותו לביטוח, וישתנו כל חמש שנים ממועד ההצטרפות.';

async function lead(question: string): Promise<string | null> {
  const p = { ...passage(SENTENCE, { sectionPath: ['דמי ביטוח'] }), n: 1 };
  const line = await factLead(readStandalone(question), 'he', [{ n: 1, sentence: SENTENCE, passage: p }], [p]);
  return line === null ? null : plainAnswerText(line);
}

describe('askingText', () => {
  it('is the sentences holding a question mark, else the whole question', () => {
    expect(askingText('אני בן 64 ומתכוון להצטרף. כל כמה שנים ישתנו דמי הביטוח?')).toBe('כל כמה שנים ישתנו דמי הביטוח?');
    expect(askingText('כל כמה שנים ישתנו דמי הביטוח')).toBe('כל כמה שנים ישתנו דמי הביטוח');
  });
});

describe('an unlabelled fact after a long story', () => {
  it('leads when the asking sentence is what the clause speaks of', async () => {
    const story = 'אני בן 64, עובד כמהנדס בחברת היי טק גדולה במרכז הארץ, נשוי ואב לשלושה ילדים, ומתכוון להצטרף לביטוח מחלות קשות. אם אני אצטרף עכשיו, כל כמה שנים ישתנו לי דמי הביטוח?';
    expect(await lead(story)).toBe('התקופה: חמש שנים [1]');
  });

  it('does not lead when the asking sentence is about something else', async () => {
    expect(await lead('הצטרפתי לביטוח לפני שנה. תוך כמה ימים מקבלים החזר על טיפול פיזיותרפיה?')).toBeNull();
  });
});
