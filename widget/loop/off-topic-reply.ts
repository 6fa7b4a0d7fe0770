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
}

/** The name to write in `lang`: that language's, else the other's. */
function contactName(contacts: ContactChannels | undefined, lang: Lang): string | null {
  const name = contacts?.name;
  if (!name) return null;
  if (typeof name === 'string') return name.trim() || null;
  return (name[lang] ?? name[lang === 'he' ? 'en' : 'he'] ?? '').trim() || null;
}

export function offTopicHe(contacts?: ContactChannels): string {
  const name = contactName(contacts, 'he');
  const ways = [contacts?.phone && `בטלפון ${contacts.phone}`, contacts?.website && `באתר ${contacts.website}`].filter(Boolean);
  const whom = name ? `אל ${name}` : ways.length ? 'לשירות הלקוחות' : 'לשירות הלקוחות של חברת הביטוח שלכם';
  return `אני עונה רק על שאלות בנושא מסמכי הביטוח שבאתר הזה. בכל נושא אחר אפשר לפנות ${[whom, ways.join(' או ')].filter(Boolean).join(' ')}.`;
}

export function offTopicEn(contacts?: ContactChannels): string {
  const name = contactName(contacts, 'en');
  const ways = [contacts?.phone && `by phone at ${contacts.phone}`, contacts?.website && `at ${contacts.website}`].filter(Boolean);
  const whom = name ?? (ways.length ? 'customer service' : "your insurer's customer service");
  return `I can only answer questions about the insurance documents on this site. For anything else, please contact ${[whom, ways.join(' or ')].filter(Boolean).join(' ')}.`;
}
