/**
 * "Talk to a representative": what the `harel-chat:escalate` event tells the site (the
 * conversation as the customer read it, and why they asked for a person), and the contact
 * channels the built-in panel lists. No DOM: escalate-view.ts renders and dispatches.
 */
import { plainAnswerText } from '../answer/document-text.ts';
import type { ChatTurn, Citation } from '../answer/types.ts';
import { stripBidiControls } from '../core/bidi-controls.ts';
import type { Lang } from '../core/schema.ts';
import { resolveSourceUrl } from '../core/url-policy.ts';
import type { ContactChannels } from '../text/strings.ts';
import { feedbackOf } from './feedback.ts';

/** Why the customer was offered (or asked for) a person. */
export type EscalateReason = 'refused' | 'rated-down' | 'asked';

/** One turn of the conversation as the customer read it. */
export interface TranscriptEntry {
  role: 'user' | 'assistant';
  /** The text as a reader sees it: document runs unwrapped, no bidi controls. */
  text: string;
  /** An answer's sources (answers only, when it has any). */
  citations?: Citation[];
}

/** `harel-chat:escalate`'s detail. The event is cancelable: `preventDefault()` keeps the built-in panel closed. */
export interface HarelChatEscalateDetail {
  transcript: TranscriptEntry[];
  reason: EscalateReason;
  /** The index build answering now ('' before the index is loaded). */
  buildId: string;
}

/**
 * The conversation as the customer read it, in order: every question, and every reply with text
 * (an answer stopped before any text was written is left out), answers with their citations.
 */
export function escalationTranscript(turns: readonly ChatTurn[]): TranscriptEntry[] {
  const out: TranscriptEntry[] = [];
  for (const turn of turns) {
    if (turn.role === 'user') {
      out.push({ role: 'user', text: stripBidiControls(turn.text) });
      continue;
    }
    const text = plainAnswerText(turn.text);
    if (!text.trim()) continue;
    const entry: TranscriptEntry = { role: 'assistant', text };
    if (turn.answer?.citations.length) entry.citations = turn.answer.citations;
    out.push(entry);
  }
  return out;
}

/**
 * Whether an answer offers a way to a person, and why: it refused (the documents do not answer,
 * or the question was about something else), or the customer rated it down. Null otherwise.
 */
export function escalationFor(turn: ChatTurn | undefined): Exclude<EscalateReason, 'asked'> | null {
  if (turn?.role !== 'assistant' || !turn.answer) return null;
  if (turn.answer.refused) return 'refused';
  return feedbackOf(turn)?.rating === 'down' ? 'rated-down' : null;
}

/** A contact channel as the panel lists it. */
export interface ContactEntry {
  kind: 'phone' | 'website' | 'email';
  /** What is shown: the number or the address as the site wrote it (bidi controls removed). */
  value: string;
  /** Where it leads: `tel:` for a phone, `mailto:` for an email, the website through the URL policy; null when it cannot be linked. */
  href: string | null;
  /** For a phone: when it is answered, in `lang` (else the other language's). */
  hours?: string;
}

/** A text given once or per language, in `lang` (else the other language's); null when blank or not text. */
function inLang(value: unknown, lang: Lang): string | null {
  let text: unknown = value;
  if (value && typeof value === 'object') {
    const byLang = value as Partial<Record<Lang, unknown>>;
    text = byLang[lang] ?? byLang[lang === 'he' ? 'en' : 'he'];
  }
  return typeof text === 'string' && text.trim() ? stripBidiControls(text).trim() : null;
}

/** The contacts as a site gives them (properties, attributes or the index): email and hours are optional extras. */
export type SiteContacts = ContactChannels & { email?: string; hours?: string | Partial<Record<Lang, string>> };

const EMAIL = /^[\w.+-]+@[\w-]+(?:\.[\w-]+)+$/;

/** The contacts as the panel shows them: the name in `lang` (else the other language's), and each channel. */
export function contactEntries(contacts: SiteContacts | null | undefined, lang: Lang, base?: string): { name: string | null; entries: ContactEntry[] } {
  const entries: ContactEntry[] = [];
  const phone = inLang(contacts?.phone, lang);
  if (phone) {
    const dial = phone.replace(/[^\d+*#]/g, '');
    const entry: ContactEntry = { kind: 'phone', value: phone, href: dial ? `tel:${dial}` : null };
    const hours = inLang(contacts?.hours, lang);
    if (hours) entry.hours = hours;
    entries.push(entry);
  }
  const website = inLang(contacts?.website, lang);
  if (website) entries.push({ kind: 'website', value: website, href: resolveSourceUrl(website, base ?? globalThis.document?.baseURI) });
  const email = inLang(contacts?.email, lang);
  if (email) entries.push({ kind: 'email', value: email, href: EMAIL.test(email) ? `mailto:${email}` : null });
  return { name: inLang(contacts?.name, lang), entries };
}
