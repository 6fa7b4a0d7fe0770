/**
 * The loop's user-facing texts, Hebrew and English. The answer is in the question's language, so
 * every text the loop adds to an answer is chosen by that language, never by the page's.
 */
import type { Lang } from '../core/schema.ts';
import type { ContactChannel } from './contacts.ts';
import { offTopicEn, offTopicHe, type ContactChannels } from './off-topic-reply.ts';

export type { ContactChannels } from './off-topic-reply.ts';

export interface LoopStrings {
  /** Line after a medium-confidence answer. */
  caveat: string;
  /** Opening of a low-confidence answer. */
  refusal: string;
  /** Heading of the closest clauses shown under a refusal. */
  closestClauses: string;
  /** Frame of an extractive answer: the quotations that follow are from the policy. */
  quoteIntro: string;
  /** The frame when every quote is from a document the customer added on this device (its figures are theirs). */
  quoteIntroOwn: string;
  /** The frame when the quotes are from the customer's document and the site's general ones. */
  quoteIntroMixed: string;
  /** The reply to a question about something else: the site's contact channels when it set them. */
  offTopic: (contacts?: ContactChannels) => string;
  /** The reply to a bare greeting: what the assistant does, and an invitation to ask. */
  greeting: string;
  /** The reply to thanks. */
  welcome: string;
}

export const STRINGS: Record<Lang, LoopStrings> = {
  he: {
    caveat: 'שימו לב: ייתכן שהתשובה חלקית. מומלץ לבדוק את הסעיפים המצוטטים או לפנות לנציג.',
    refusal: 'לא מצאתי תשובה חד-משמעית במסמכי הפוליסה.',
    closestClauses: 'הסעיפים הקרובים ביותר שמצאתי:',
    quoteIntro: 'לפי מסמכי הפוליסה:',
    quoteIntroOwn: 'לפי המסמך שלך:',
    quoteIntroMixed: 'לפי המסמך שלך ומסמכי הפוליסה הכלליים שבאתר:',
    offTopic: offTopicHe,
    greeting: 'שלום! אני עונה על שאלות על מסמכי הביטוח שבאתר הזה, ומצטט את הסעיף שעונה. במה אפשר לעזור?',
    welcome: 'בשמחה! אם יש עוד שאלה על מסמכי הביטוח, אני כאן.',
  },
  en: {
    caveat: 'Note: this answer may be incomplete. Check the quoted clauses or contact a representative.',
    refusal: 'I cannot find a definitive answer in the policy documents.',
    closestClauses: 'The closest clauses I found:',
    quoteIntro: 'According to the policy documents:',
    quoteIntroOwn: 'According to your own document:',
    quoteIntroMixed: "According to your own document and the site's general policy documents:",
    offTopic: offTopicEn,
    greeting: 'Hello! I answer questions about the insurance documents on this site, quoting the clause that answers. What would you like to know?',
    welcome: "You're welcome! If you have another question about the insurance documents, I'm here.",
  },
};

export function strings(lang: Lang): LoopStrings {
  return STRINGS[lang];
}

/**
 * A quotation in the answer: typographic quotes, so a gershayim inside (ש"ח) is not read as a
 * closing quote. Modern Hebrew uses the same high marks as English; in a right-to-left line (the
 * widget gives every line its answer's direction) the opening one stands at the right.
 */
export function quoted(sentence: string): string {
  return `“${sentence}”`;
}

/**
 * The lines the extractive engine opens an answer with, before the quotes: the asked fact when a
 * quoted clause states it ("הסכום: 850 ש"ח [1]", the clause's own term replacing the generic
 * word when it names one), a verdict on cover when the quoted clause decides it, and the frame
 * naming the clauses' language when it is not the question's.
 */
export interface AnswerLeads {
  /** The generic word before a fact whose clause names no term for it. */
  fact: Record<'amount' | 'duration' | 'age' | 'percentage' | 'count', string>;
  /** A verdict, cited, opening the line that introduces the quotes. */
  verdict: Record<'covered' | 'excluded' | 'conditional', string>;
  /** The rest of that line: "לא מכוסה — חריג בפוליסה [1], לפי מסמכי הפוליסה:". */
  afterVerdict: string;
  /** The same, when every quote is from a document the customer added on this device. */
  afterVerdictOwn: string;
  /** The same, when the quotes are from the customer's document and the site's. */
  afterVerdictMixed: string;
  /** The quotes' frame when every quoted clause is in the other language. */
  otherLanguage: string;
  /** The rest of a verdict's line when every quoted clause is in the other language. */
  afterVerdictOtherLanguage: string;
  /** The word before a contact of each channel ("פקס: 03-7348102 [1]"). */
  contact: Record<ContactChannel, string>;
  /** The heading of several contacts listed. */
  contacts: string;
}

export const ANSWER_LEADS: Record<Lang, AnswerLeads> = {
  he: {
    fact: { amount: 'הסכום', duration: 'התקופה', age: 'הגיל', percentage: 'השיעור', count: 'המספר' },
    verdict: { covered: 'כן, מכוסה', excluded: 'לא מכוסה — חריג בפוליסה', conditional: 'מכוסה בתנאים' },
    afterVerdict: 'לפי מסמכי הפוליסה:',
    afterVerdictOwn: 'לפי המסמך שלך:',
    afterVerdictMixed: 'לפי המסמך שלך ומסמכי הפוליסה הכלליים שבאתר:',
    otherLanguage: 'הסעיפים המתאימים כתובים באנגלית, והם מצוטטים כלשונם:',
    afterVerdictOtherLanguage: 'לפי הסעיפים המתאימים, שכתובים באנגלית ומצוטטים כלשונם:',
    contact: { phone: 'טלפון', fax: 'פקס', sms: 'SMS', email: 'דוא״ל', post: 'דואר', web: 'אתר' },
    contacts: 'דרכי הפנייה',
  },
  en: {
    fact: { amount: 'Amount', duration: 'Period', age: 'Age', percentage: 'Rate', count: 'Number' },
    verdict: { covered: 'Yes, covered', excluded: 'Not covered — a policy exclusion', conditional: 'Covered, with conditions' },
    afterVerdict: 'according to the policy documents:',
    afterVerdictOwn: 'according to your own document:',
    afterVerdictMixed: "according to your own document and the site's general policy documents:",
    otherLanguage: 'The matching clauses are in Hebrew, quoted as written:',
    afterVerdictOtherLanguage: 'according to the matching clauses, which are in Hebrew and quoted as written:',
    contact: { phone: 'Phone', fax: 'Fax', sms: 'SMS', email: 'E-mail', post: 'Post', web: 'Website' },
    contacts: 'How to reach them',
  },
};
