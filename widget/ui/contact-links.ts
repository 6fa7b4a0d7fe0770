/**
 * The site's contact details where an answer writes them (the off-topic reply, a model naming the
 * phone): each occurrence becomes a link, `tel:` for the phone, `mailto:` for the e-mail, the
 * website through the URL policy. Only the values the site set are linked, and only where the
 * engine wrote them (rich-text.ts): a number or an address in a document's quote stays text, and a
 * value that cannot be linked safely (a `javascript:` "website", an e-mail with a query) stays text.
 */
import type { Lang } from '../core/schema.ts';
import { resolveSourceUrl } from '../core/url-policy.ts';
import { contactEntries, type ContactEntry, type SiteContacts } from './escalate.ts';

/** A piece of an answer's text to show as a link. */
export interface TextLink {
  kind: ContactEntry['kind'];
  /** The text as the answer writes it. */
  text: string;
  href: string;
}

const LANGS: readonly Lang[] = ['he', 'en'];

/**
 * The links for `contacts`, longest text first (so a longer value wins where one holds another).
 * A website is linked only when absolute: the answer's text may be read far from the page, and a
 * bare "insurer.example" resolved against it would lead somewhere else.
 */
export function contactLinks(contacts: SiteContacts | null | undefined): TextLink[] {
  const links = new Map<string, TextLink>();
  for (const lang of LANGS) {
    for (const entry of contactEntries(contacts, lang).entries) {
      const href = entry.kind === 'website' ? resolveSourceUrl(entry.value, undefined) : entry.href;
      if (href && !links.has(entry.value)) links.set(entry.value, { kind: entry.kind, text: entry.value, href });
    }
  }
  return [...links.values()].sort((a, b) => b.text.length - a.text.length);
}

/**
 * `contactLinks` that returns the same array while the links are the same: the element passes it
 * to rows that re-render only when what they show changed (harel-chat.ts, `guard`).
 */
export function contactLinksCache(): (contacts: SiteContacts | null | undefined) => readonly TextLink[] {
  let key = '';
  let last: readonly TextLink[] = [];
  return (contacts) => {
    const links = contactLinks(contacts);
    const next = JSON.stringify(links);
    if (next !== key) {
      key = next;
      last = links;
    }
    return last;
  };
}

const escapeRegExp = (text: string): string => text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

/** `text` cut at the links in it: strings, and the links where their text stands as a whole word. */
export function splitAtLinks(text: string, links: readonly TextLink[]): (string | TextLink)[] {
  if (!links.length || !text) return [text];
  // Not a piece of a longer number, address or word: "*12345" does not hold "*1234", nor
  // "x.example.com" "x.example"; a sentence's full stop after an address is no part of it.
  const pattern = new RegExp(`(?<![\\p{L}\\p{N}_@./])(?:${links.map((l) => escapeRegExp(l.text)).join('|')})(?![\\p{L}\\p{N}_@/-]|\\.[\\p{L}\\p{N}])`, 'gu');
  const byText = new Map(links.map((l) => [l.text, l]));
  const out: (string | TextLink)[] = [];
  let last = 0;
  for (const match of text.matchAll(pattern)) {
    const at = match.index ?? 0;
    if (at > last) out.push(text.slice(last, at));
    out.push(byText.get(match[0])!);
    last = at + match[0].length;
  }
  if (last < text.length) out.push(text.slice(last));
  return out;
}
