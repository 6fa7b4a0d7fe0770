import { describe, expect, it } from 'vitest';
import { askedChannels, findContacts } from '../../../widget/text/contacts.ts';

const channels = (text: string) => findContacts(text).map((c) => [c.channel, c.value]);

describe('findContacts', () => {
  // The dental claims page of the Harel site, as its scrape has it.
  const dental =
    "יש כמה דרכים להגשת התביעה: אונליין: במייל להגשת תביעת ביטוח שיניים, בכתובת: services@harel-ins.co.il בהודעת SMS למספר: בפקס, למספר: 03-7348102 בדואר, לכתובת: רח' אבא הלל 3 ת.ד 10952 רמת גן 5252202 לתשומת לבך";

  it('reads each channel with its value, the postal address whole', () => {
    expect(channels(dental)).toEqual([
      ['email', 'services@harel-ins.co.il'],
      ['fax', '03-7348102'],
      ['post', "רח' אבא הלל 3 ת.ד 10952 רמת גן 5252202"],
    ]);
    expect(channels('בדואר לבית הראל, רחוב אבא הלל 3, ת.ד 10951, רמת גן 5252202, או בפקס למספר 03-7348169')).toEqual([
      ['post', 'רחוב אבא הלל 3, ת.ד 10951, רמת גן 5252202'],
      ['fax', '03-7348169'],
    ]);
  });

  it('names a number by the word right before it, and a star or 1-700 number a phone by its form', () => {
    expect(channels('פנייה למוקד שירות הלקוחות, בטלפון: 2735* או 1700-70-28-70')).toEqual([
      ['phone', '2735*'],
      ['phone', '1700-70-28-70'],
    ]);
    expect(channels('Call us on 133 723 or 13 23 60, or visit www.qbe.com/au. Since 13 2024 the form changed.')).toEqual([
      ['phone', '133 723'],
      ['phone', '13 23 60'],
      ['web', 'www.qbe.com/au'],
    ]);
    expect(channels('ניתן לשלוח במסרון 052-3235121')).toEqual([['sms', '052-3235121']]);
  });

  it('lists no number whose channel it cannot tell: a fax read as a phone sends the customer to a machine', () => {
    // A line the PDF parse put out of order: the fax word stands before the other number.
    const reversed = 'mashkantao@harel-ins.co.il : או למייל 03-7348394 : יש למלא את הטופס ולהחזירו לפקס ביטוח חיים 1-700-70-28-70';
    expect(channels(reversed)).toEqual([
      ['email', 'mashkantao@harel-ins.co.il'],
      ['phone', '1-700-70-28-70'],
    ]);
  });

  it('never reads a sum, a clause number, a date or a policy number as a contact', () => {
    expect(findContacts('גבול האחריות 1,000,000 ₪ לפי סעיף 3.2.4 מיום 01.02.2024, פוליסה מספר 512904608, 20% מהנזק, החל מ-01/01/2025*בפוליסה')).toEqual([]);
  });

  // Lines of the pre-parsed Harel PDFs whose words the parse turned.
  it('lists no number a word after it claims for another channel (a line in visual order)', () => {
    expect(channels('| 2735* טלפון 037348178 פקס |')).toEqual([['phone', '2735*']]);
  });

  it('reads an address only with its parts in order', () => {
    expect(findContacts("משרד ראשי - ,3 בית הראל, רח' אבא הלל 5211802 , רמת גן")).toEqual([]);
    expect(findContacts('polisotbs@harel-ins.co.il | ,10951 ת"ד ,3 הלל אבא 5200901 גן רמת |').map((c) => c.channel)).toEqual(['email']);
    expect(findContacts('מחוז צפון - 04-8606444 - 332 , ת״ד 2 שדרות פל-ים 3100202 , חיפה').filter((c) => c.channel === 'post')).toEqual([]);
    expect(channels('בדואר, לכתובת: בית הראל, אבא הלל 3, ת"ד 10951, רמת גן, מיקוד 5252202 במייל')).toEqual([['post', 'ת"ד 10951, רמת גן, מיקוד 5252202']]);
  });
});

describe('askedChannels', () => {
  it('reads one channel, a phone, or every way but the website', () => {
    expect(askedChannels('מה מספר הפקס של מחלקת התביעות?')).toEqual(['fax']);
    expect(askedChannels('לאיזו כתובת דואר אני צריך לשלוח את הטפסים?')).toEqual(['post']);
    expect(askedChannels('מה כתובת המייל שאליה אפשר לשלוח את הבקשה?')).toEqual(['email']);
    expect(askedChannels('What is the phone number for claims?')).toEqual(['phone', 'sms']);
    expect(askedChannels('לאן בדיוק אני שולח את הטפסים והמסמכים?')).toEqual(['phone', 'fax', 'sms', 'email', 'post']);
    expect(askedChannels('איך אני מגיש תביעה להחזר הוצאות?')).toEqual(['phone', 'fax', 'sms', 'email', 'post']);
    expect(askedChannels('How do I make a claim?')).toEqual(['phone', 'fax', 'sms', 'email', 'post']);
    expect(askedChannels('מה כתובת האתר?')).toEqual(['web']);
  });

  it('is null for a question that asks for no contact', () => {
    for (const q of ['מה ההשתתפות העצמית בנזקי מים?', 'האם הביטוח מכסה רעידת אדמה?', 'כמה זמן לוקח לקבל החזר?', 'What is the excess for theft?']) expect(askedChannels(q)).toBeNull();
  });
});
