import { describe, expect, it } from 'vitest';
import { strings } from '../../../widget/text/strings.ts';

const DEMO = { name: { he: 'דמו ביטוח', en: 'Demo Insurance' }, phone: '*1234', website: 'https://demo-insurance.example' };

describe('the off-topic reply', () => {
  it('names no insurer and no phone when the site set no contacts', () => {
    const en = strings('en').offTopic();
    const he = strings('he').offTopic();
    expect(en).toBe("I can only answer questions about the insurance documents on this site. For anything else, please contact your insurer's customer service.");
    expect(he).toContain('שירות הלקוחות של חברת הביטוח שלכם');
    for (const text of [en, he, strings('en').offTopic({}), strings('he').offTopic({ name: '  ' })]) {
      expect(text).not.toMatch(/Harel|הראל|\*\d|\d{2}-\d/);
    }
  });

  it('names the site’s channels, each one optional, in the reply’s language', () => {
    expect(strings('en').offTopic(DEMO)).toBe(
      'I can only answer questions about the insurance documents on this site. For anything else, please contact Demo Insurance by phone at *1234 or at https://demo-insurance.example.',
    );
    expect(strings('he').offTopic(DEMO)).toMatch(/לפנות אל דמו ביטוח בטלפון \*1234 או באתר https:\/\/demo-insurance\.example\.$/);
    expect(strings('en').offTopic({ phone: '*1234' })).toMatch(/contact customer service by phone at \*1234\.$/);
    expect(strings('en').offTopic({ name: 'Demo Insurance' })).toMatch(/contact Demo Insurance\.$/);
    // A name given in one language only is used in the other too.
    expect(strings('en').offTopic({ name: { he: 'דמו ביטוח' }, website: 'https://demo-insurance.example' })).toMatch(/contact דמו ביטוח at https:/);
  });

  it('adds the email and the phone’s hours, in the reply’s language', () => {
    const all = { ...DEMO, email: 'service@demo-insurance.example', hours: { he: 'א׳–ה׳ 8–17', en: 'Sun–Thu 8–17' } };
    expect(strings('en').offTopic(all)).toMatch(/contact Demo Insurance by phone at \*1234 \(Sun–Thu 8–17\), at https:\/\/demo-insurance\.example or by email at service@demo-insurance\.example\.$/);
    expect(strings('he').offTopic(all)).toMatch(/בטלפון \*1234 \(א׳–ה׳ 8–17\), באתר https:\/\/demo-insurance\.example או בדוא״ל service@demo-insurance\.example\.$/);
    expect(strings('en').offTopic({ email: 'a@b.example' })).toMatch(/contact customer service by email at a@b\.example\.$/);
  });
});
