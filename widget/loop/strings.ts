/**
 * The loop's user-facing texts, Hebrew and English. The answer is in the question's language, so
 * every text the loop adds to an answer is chosen by that language, never by the page's.
 */
import type { Lang } from '../core/schema.ts';

/** How a customer reaches the insurer; the element's config may replace Harel's defaults. */
export interface ContactChannels {
  name: Record<Lang, string>;
  phone: string;
  website: string;
}

export const DEFAULT_CONTACTS: ContactChannels = {
  name: { he: 'הראל', en: 'Harel' },
  phone: '*2735',
  website: 'https://www.harel-group.co.il',
};

export interface LoopStrings {
  /** Line after a medium-confidence answer. */
  caveat: string;
  /** Opening of a low-confidence answer. */
  refusal: string;
  /** Heading of the closest clauses shown under a refusal. */
  closestClauses: string;
  /** Frame of an extractive answer: the quotations that follow are from the policy. */
  quoteIntro: string;
  offTopic: (contacts: ContactChannels) => string;
}

export const STRINGS: Record<Lang, LoopStrings> = {
  he: {
    caveat: 'שימו לב: ייתכן שהתשובה חלקית. מומלץ לבדוק את הסעיפים המצוטטים או לפנות לנציג.',
    refusal: 'לא מצאתי תשובה חד-משמעית במסמכי הפוליסה.',
    closestClauses: 'הסעיפים הקרובים ביותר שמצאתי:',
    quoteIntro: 'לפי מסמכי הפוליסה:',
    offTopic: (c) =>
      `אני יכול לעזור רק בשאלות על ביטוחי ${c.name.he} ועל מסמכי הפוליסה. ` +
      `לכל נושא אחר אפשר לפנות אל ${c.name.he} בטלפון ${c.phone} או באתר ${c.website}.`,
  },
  en: {
    caveat: 'Note: this answer may be incomplete. Check the quoted clauses or contact a representative.',
    refusal: 'I cannot find a definitive answer in the policy documents.',
    closestClauses: 'The closest clauses I found:',
    quoteIntro: 'According to the policy documents:',
    offTopic: (c) =>
      `I can only help with questions about ${c.name.en} insurance and its policy documents. ` +
      `For anything else, contact ${c.name.en} at ${c.phone} or ${c.website}.`,
  },
};

export function strings(lang: Lang): LoopStrings {
  return STRINGS[lang];
}

/** A quotation in the answer: typographic quotes, so a gershayim inside (ש"ח) is not read as a closing quote. */
export function quoted(sentence: string): string {
  return `“${sentence}”`;
}
