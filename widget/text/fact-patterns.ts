/**
 * The regular expressions of facts.ts: amounts, durations, ages, percentages and counts as
 * policies write them, Hebrew and English. They run on the sentence as written (not normalised),
 * because a fact is quoted verbatim, so quote marks (ש"ח, ש״ח), final letters and currency signs
 * are spelled out in every form the corpus uses.
 *
 * What a number must not be: part of a clause number (4.1, 3.2.4, and the reversed ".34.2.3" of
 * right-to-left PDF text), a date (15.12.2022, 01/01/2025), a phone number (03-7348102,
 * 1700-70-28-70, *2735) or a range of digits. A bare number is never a fact: it needs its unit
 * beside it (₪, ימים, %, גיל, פעמים…), which rules out page numbers, years and index points too.
 */

import { HE_NUMBER_PHRASE } from './number-words.ts';

const HE = '\\u05D0-\\u05EA';
/** Not followed by a letter of either script. */
export const NOT_WORD_AFTER = `(?![${HE}A-Za-z])`;
/** Digits with optional thousands separators and decimals, standing alone (see the header). */
export const NUM = `(?<![\\d.,/:*]|\\d-)(?:\\d{1,3}(?:,\\d{3})+|\\d+)(?:\\.\\d+)?(?![\\d/:]|[.,]\\d|-\\d)`;
/** A small whole number (ages, counts): no decimals, no thousands. */
const SMALL = `(?<![\\d.,/:*]|\\d-)\\d{1,3}(?![\\d/:%]|[.,]\\d|-\\d)`;
/** A Hebrew number word may carry one proclitic ("לשלושה חודשים"), left out of the fact. */
const HE_WORD_START = `(?<=(?:^|[^${HE}])[ולבמהש]?)`;
/**
 * Where a dual ("חודשיים", "שנתיים") is two months or two years, not the plural adjective "monthly"
 * or "annual" it is spelled the same as: never with the article ("דמי הביטוח השנתיים") and never
 * right after a plural noun ("פיצויים חודשיים", "תשלומים חודשיים"). Found in a hand check of 50
 * facts (docs/how-it-answers.md).
 */
const DUAL_START = `(?<![${HE}]{2,}(?:ים|ות)\\s)(?<=(?:^|[^${HE}])[ולבמש]?)`;
/** A Hebrew number in words, compounds whole ("שמונה עשרה", "עשרים וחמישה"): never cut inside one. */
const HE_NUMBER_WORD = `(?:${HE_NUMBER_PHRASE})`;
const EN_NUMBER_WORD = '(?:one|two|three|four|five|six|seven|eight|nine|ten|eleven|twelve|fifteen|eighteen|twenty|thirty|forty|fifty|sixty|ninety)';

const SCALE = '(?:\\s?(?:אלף|אלפי|מיליון|מיליוני|million|thousand))?';
const CURRENCY_AFTER = '(?:₪|ש["״”\'׳]ח|ש\\.ח\\.?|שקלים(?:\\s+חדשים)?|שקל|דולר(?:ים)?|אירו|יורו|NIS|ILS|USD|EUR|US\\$|\\$|€|dollars?|euros?|shekels?)';
const CURRENCY_BEFORE = '(?:₪|US\\$|\\$|€|NIS|ILS|USD|EUR)';

export const AMOUNT = new RegExp(`${NUM}${SCALE}\\s?${CURRENCY_AFTER}${NOT_WORD_AFTER}|${CURRENCY_BEFORE}\\s?${NUM}${SCALE}${NOT_WORD_AFTER}`, 'giu');

/** "10% מסכום הביטוח", "80% of the expenses": what the share is of belongs to the fact. */
const SHARE_OF = `(?:\\s+(?:מן\\s+ה|מ)[${HE}]+(?:["״'][${HE}]+)?(?:\\s+ה[${HE}]+)?|\\s+of\\s+(?:the\\s+)?[a-z-]+(?:\\s+(?!and\\b|or\\b|per\\b|up\\b)[a-z-]+)?)?`;
export const PERCENTAGE = new RegExp(`(?<![\\d.,/:*]|\\d-)\\d+(?:\\.\\d+)?\\s?(?:%|אחוז(?:ים)?${NOT_WORD_AFTER}|percent\\b|per\\s+cent\\b)${SHARE_OF}`, 'giu');

const HE_UNIT = '(?:ימי\\s+(?:עסקים|עבודה)|ימים|יום|שבועות|שבוע|חודשים|חודש|שנים|שנה|שעות|שעה|דקות)';
const EN_UNIT = '(?:(?:business|working|calendar|consecutive)\\s+)?(?:days?|weeks?|months?|years?|hours?|minutes?)';
export const DURATION = new RegExp(
  [
    `${NUM}\\s?-?\\s?${HE_UNIT}${NOT_WORD_AFTER}`,
    `${HE_WORD_START}${HE_NUMBER_WORD}\\s+${HE_UNIT}${NOT_WORD_AFTER}`,
    `${DUAL_START}(?:יומיים|שבועיים|חודשיים|שנתיים|שעתיים)${NOT_WORD_AFTER}`,
    `\\b(?:${NUM}|${EN_NUMBER_WORD})(?:\\s+|-)${EN_UNIT}\\b`,
  ].join('|'),
  'giu',
);

export const AGE = new RegExp(
  [
    `(?<![${HE}])(?:(?:עד|מעל|מתחת|מעבר|החל)\\s+)?[ולבמה]{0,2}גיל\\s+(?:ה-?)?${SMALL}(?:\\s+(?:שנים|שנה|ומעלה|ומטה))?${NOT_WORD_AFTER}`,
    `(?<![${HE}])(?:שטרם\\s+|טרם\\s+)?(?:מלאו|ימלאו|מלאה|ימלא)\\s+(?:לו|לה|להם|לך)\\s+${SMALL}(?:\\s+(?:שנים|שנה))?${NOT_WORD_AFTER}`,
    `(?<![${HE}])(?:בני|בנות|בן|בת)\\s+${SMALL}(?:\\s+(?:שנים|שנה|ומעלה|ומטה))?${NOT_WORD_AFTER}`,
    `\\b(?:(?:up\\s+to|under|over|from|until|till|above|below)\\s+)?(?:the\\s+)?ages?\\s+(?:of\\s+)?${SMALL}\\b`,
    `\\baged\\s+${SMALL}\\b`,
    `\\b${SMALL}\\s+years?\\s+(?:old|of\\s+age)\\b`,
  ].join('|'),
  'giu',
);

/** Plural nouns after a number that are units of another kind of fact, not things counted. */
const NOT_COUNTED_HE = '(?:ימים|שנים|חודשים|שבועות|שעות|דקות|שקלים|דולרים|אחוזים|נקודות|ימי|פעמים|שנות|מטרים|קילומטרים|סעיפים|פרקים|עמודים|תקנות)';
const NOT_COUNTED_EN = '(?:days|weeks|months|years|hours|minutes|dollars|euros|shekels|percent|pages|points|times|tons|kms|meters|metres|kilometers|kilometres)';
export const COUNT = new RegExp(
  [
    `${SMALL}\\s+(?:פעמים|פעם)${NOT_WORD_AFTER}`,
    `${HE_WORD_START}(?:פעמיים|פעם\\s+אחת)${NOT_WORD_AFTER}`,
    `${HE_WORD_START}${HE_NUMBER_WORD}\\s+פעמים${NOT_WORD_AFTER}`,
    `${SMALL}\\s+מתוך\\s+${SMALL}${NOT_WORD_AFTER}`,
    // A noun after "for/in/as" (ל/ב/כ: "9 להתייעצות") is not what is counted, nor one with the
    // article or "and" ("3 המסמכים", "6 ובתנאים"): Hebrew counts a definite noun in the construct
    // ("שלושת המסמכים"), so such a number is a list marker or a section the PDF parse put beside it.
    `${SMALL}\\s+(?!${NOT_COUNTED_HE}${NOT_WORD_AFTER}|[לבכהו])[${HE}]{2,}(?:ים|ות)${NOT_WORD_AFTER}`,
    `\\b(?:${SMALL}|${EN_NUMBER_WORD})\\s+times\\b`,
    `\\b(?:once|twice|thrice)\\b`,
    `\\b(?:${SMALL}|${EN_NUMBER_WORD})\\s+(?!${NOT_COUNTED_EN}\\b)[a-z]{2,}s\\b`,
  ].join('|'),
  'giu',
);

/** A number right after these is a reference (a page, a clause, a form), never a fact. */
export const REFERENCE_BEFORE = /(?:עמוד|עמ['׳]|דף|סעיף|סעיפים|פרק|תקנה|תקנות|טופס|page|p\.|clause|section|chapter|article|paragraph|form)\s*$/iu;
