/**
 * The reply to a question about something other than the site's insurance documents. It names the
 * site's contact channels when the site set them, and no insurer when it did not: the widget
 * cannot know whose documents it serves, and a wrong name sends the customer to the wrong company.
 */
import type { Lang } from '../core/schema.ts';

/** How a customer reaches the insurer: the element's `contacts` property. Every field is optional. */
export interface ContactChannels {
  /** The insurer's name: one for both languages, or one per language. */
  name?: string | Partial<Record<Lang, string>>;
  phone?: string;
  website?: string;
  email?: string;
  /** When the phone is answered: one text, or one per language. */
  hours?: string | Partial<Record<Lang, string>>;
}

/** A text to write in `lang`: that language's, else the other's; null when blank. */
export function localizedText(text: string | Partial<Record<Lang, string>> | undefined, lang: Lang): string | null {
  if (!text) return null;
  if (typeof text === 'string') return text.trim() || null;
  return (text[lang] ?? text[lang === 'he' ? 'en' : 'he'] ?? '').trim() || null;
}

/** The name to write in `lang`: that language's, else the other's. */
export function contactName(contacts: ContactChannels | undefined, lang: Lang): string | null {
  return localizedText(contacts?.name, lang);
}

/** "a", "a or b", "a, b or c". */
function orList(ways: string[], or: string): string {
  return ways.length > 2 ? `${ways.slice(0, -1).join(', ')} ${or} ${ways[ways.length - 1]}` : ways.join(` ${or} `);
}

export function offTopicHe(contacts?: ContactChannels): string {
  const name = contactName(contacts, 'he');
  const hours = localizedText(contacts?.hours, 'he');
  const ways = [contacts?.phone && `בטלפון ${contacts.phone}${hours ? ` (${hours})` : ''}`, contacts?.website && `באתר ${contacts.website}`, contacts?.email && `בדוא״ל ${contacts.email}`].filter(
    (w): w is string => Boolean(w),
  );
  const whom = name ? `אל ${name}` : ways.length ? 'לשירות הלקוחות' : 'לשירות הלקוחות של חברת הביטוח שלכם';
  return `אני עונה רק על שאלות בנושא מסמכי הביטוח שבאתר הזה. בכל נושא אחר אפשר לפנות ${[whom, orList(ways, 'או')].filter(Boolean).join(' ')}.`;
}

export function offTopicEn(contacts?: ContactChannels): string {
  const name = contactName(contacts, 'en');
  const hours = localizedText(contacts?.hours, 'en');
  const ways = [
    contacts?.phone && `by phone at ${contacts.phone}${hours ? ` (${hours})` : ''}`,
    contacts?.website && `at ${contacts.website}`,
    contacts?.email && `by email at ${contacts.email}`,
  ].filter((w): w is string => Boolean(w));
  const whom = name ?? (ways.length ? 'customer service' : "your insurer's customer service");
  return `I can only answer questions about the insurance documents on this site. For anything else, please contact ${[whom, orList(ways, 'or')].filter(Boolean).join(' ')}.`;
}
