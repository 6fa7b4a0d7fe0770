/**
 * The interface's own words in Hebrew and English. The loop's answer texts (refusals, caveats)
 * live with the loop; these are the labels around them.
 */
import type { Lang } from '../core/schema.ts';

export const UI_STRINGS = {
  he: {
    title: 'העוזר הדיגיטלי',
    subtitle: 'תשובות ממסמכי הפוליסה בלבד, עם מקור לכל משפט',
    placeholder: 'כתבו שאלה על הפוליסה…',
    inputLabel: 'שאלה',
    send: 'שליחה',
    stop: 'עצירה',
    copy: 'העתקה',
    copied: 'הועתק',
    retry: 'שאלו שוב',
    clear: 'ניקוי השיחה',
    sources: 'מקורות',
    page: 'עמ׳',
    openSource: 'פתיחת המקור',
    alsoIn: 'מופיע גם ב:',
    languageName: (lang: string) => ({ he: 'עברית', en: 'אנגלית', ru: 'רוסית', ar: 'ערבית' })[lang] ?? lang,
    refersTo: (clause: string, page: number) => `הסעיף מפנה לסעיף ${clause} (עמ׳ ${page}):`,
    starters: 'שאלות לדוגמה',
    loadingIndex: 'טוען את מאגר המסמכים…',
    indexReady: (docs: number, chunks: number) => `${docs} מסמכים, ${chunks} קטעים`,
    fromCache: 'נטען מהמכשיר',
    modeExtractive: 'מצב ציטוט: תשובות מצוטטות מהמסמכים (ללא מודל שפה)',
    modeExtractiveShort: 'ציטוט',
    modeLlm: 'מודל שפה מקומי',
    modeLlmShort: 'מודל שפה',
    searchBm25: 'חיפוש מילים',
    searchHybrid: 'חיפוש משולב',
    loadModel: (size: string) => `טעינת מודל שפה (${size})`,
    modelLoading: 'טוען את מודל השפה…',
    modelUnavailable: 'מודל שפה אינו זמין במכשיר זה',
    modelWhy: {
      'no-webgpu': 'הדפדפן אינו תומך ב-WebGPU',
      'software-gpu': 'אין במכשיר מעבד גרפי מתאים',
      incompatible: 'המעבד הגרפי אינו תומך במודל',
    },
    modelFailed: 'טעינת המודל נכשלה',
    details: 'פרטים',
    thinking: 'מחפש במסמכים…',
    confidence: { high: 'ודאות גבוהה', medium: 'ודאות בינונית', low: 'לא נמצאה תשובה ודאית' },
    domain: 'תחום',
    error: 'שגיאה',
    you: 'אתם',
    assistant: 'העוזר',
    storage: (used: string, quota: string) => `אחסון: ${used} מתוך ${quota}`,
    storagePersisted: 'שמור במכשיר לשימוש גם ללא רשת',
    staleIndex: 'הגרסה החדשה של המסמכים לא נטענה, ולכן העוזר עונה מהגרסה השמורה במכשיר.',
  },
  en: {
    title: 'Policy assistant',
    subtitle: 'Answers from the policy documents only, with a source for every sentence',
    placeholder: 'Ask about your policy…',
    inputLabel: 'Question',
    send: 'Send',
    stop: 'Stop',
    copy: 'Copy',
    copied: 'Copied',
    retry: 'Ask again',
    clear: 'Clear conversation',
    sources: 'Sources',
    page: 'p.',
    openSource: 'Open the source',
    alsoIn: 'Also in:',
    languageName: (lang: string) => ({ he: 'Hebrew', en: 'English', ru: 'Russian', ar: 'Arabic' })[lang] ?? lang,
    refersTo: (clause: string, page: number) => `This clause refers to clause ${clause} (p. ${page}):`,
    starters: 'Try asking',
    loadingIndex: 'Loading the documents…',
    indexReady: (docs: number, chunks: number) => `${docs} documents, ${chunks} passages`,
    fromCache: 'loaded from this device',
    modeExtractive: 'Quote mode: answers quoted from the documents (no language model)',
    modeExtractiveShort: 'Quotes',
    modeLlm: 'Local language model',
    modeLlmShort: 'Language model',
    searchBm25: 'word search',
    searchHybrid: 'hybrid search',
    loadModel: (size: string) => `Load the language model (${size})`,
    modelLoading: 'Loading the language model…',
    modelUnavailable: 'No language model on this device',
    modelWhy: {
      'no-webgpu': 'this browser has no WebGPU',
      'software-gpu': 'no suitable graphics processor',
      incompatible: 'the graphics processor cannot run the model',
    },
    modelFailed: 'loading the model failed',
    details: 'Details',
    thinking: 'Searching the documents…',
    confidence: { high: 'High confidence', medium: 'Medium confidence', low: 'No definitive answer' },
    domain: 'Domain',
    error: 'Error',
    you: 'You',
    assistant: 'Assistant',
    storage: (used: string, quota: string) => `Storage: ${used} of ${quota}`,
    storagePersisted: 'kept on this device for offline use',
    staleIndex: 'The new version of the documents could not be loaded, so answers come from the version stored on this device.',
  },
} as const;

export type UiStrings = (typeof UI_STRINGS)[Lang];

/** Product domains as customers call them. Unknown domains show their id. */
const DOMAIN_NAMES: Record<string, Record<Lang, string>> = {
  apartment: { he: 'דירה', en: 'Home' },
  business: { he: 'עסקים', en: 'Business' },
  car: { he: 'רכב', en: 'Car' },
  dental: { he: 'שיניים', en: 'Dental' },
  'diseases-disabilities': { he: 'מחלות ונכויות', en: 'Illness & disability' },
  health: { he: 'בריאות', en: 'Health' },
  life: { he: 'חיים', en: 'Life' },
  'long-term-care': { he: 'סיעוד', en: 'Long-term care' },
  'loss-of-working-ability': { he: 'אובדן כושר עבודה', en: 'Loss of working ability' },
  mortgage: { he: 'משכנתא', en: 'Mortgage' },
  'personal-accident': { he: 'תאונות אישיות', en: 'Personal accident' },
  travel: { he: 'נסיעות לחו״ל', en: 'Travel' },
};

export function domainName(domain: string, lang: Lang): string {
  return DOMAIN_NAMES[domain]?.[lang] ?? domain;
}

/** Starter questions shown in an empty conversation, per interface language. */
export const DEFAULT_STARTERS: Record<Lang, string[]> = {
  he: ['מה ההשתתפות העצמית בביטוח הרכב?', 'האם ביטוח הנסיעות מכסה ביטול טיסה?', 'תוך כמה זמן צריך לדווח על נזק בדירה?'],
  en: ['What does the travel policy cover if my flight is cancelled?', 'How many days do I have to report a home insurance claim?'],
};

export function formatBytes(bytes: number): string {
  const text = bytes >= 1e9 ? `${(bytes / 1e9).toFixed(1)} GB` : bytes >= 1e6 ? `${Math.round(bytes / 1e6)} MB` : `${Math.max(1, Math.round(bytes / 1e3))} KB`;
  // Isolated left-to-right: in a Hebrew sentence "197 KB" would otherwise show as "KB 197".
  return `\u2066${text}\u2069`;
}
