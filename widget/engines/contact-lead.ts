/**
 * The lead of an answer to a question that asks how to reach the insurer ("לאן שולחים את
 * הטפסים?", "מה מספר הפקס?", "how do I submit a claim?"): the contacts of the asked channels that
 * the best quote's document states, each cited to its passage, one line or a list ("דרכי הפנייה:
 * - דוא״ל: … [1] - פקס: 03-7348102 [1] - דואר: רח' אבא הלל 3 ת.ד 10952 רמת גן 5252202 [1]").
 *
 * Only that document's, and of one passage: a department's numbers are its own, and the fax of car
 * claims found on another page would send a dental claim to the wrong desk. The best quote's
 * passage is read first; where it states none of the asked channels, the next passage of that
 * document among those retrieved that does. The values are the document's own text, checked with
 * the loop's grounding like a fact line (answer-leads.ts).
 */
import { documentText } from '../answer/document-text.ts';
import type { Lang } from '../core/schema.ts';
import { findContacts, type ContactChannel } from '../text/contacts.ts';
import type { QuestionReading } from '../text/question-reading.ts';
import { oneLine, sentenceSpans } from '../text/sentences.ts';
import { ANSWER_LEADS } from '../text/strings.ts';
import { groundable, type QuotedSentence } from './answer-leads.ts';
import type { GradedPassage } from './engine.ts';

/** More contacts than this are a directory, not an answer: the quotes show the rest. */
export const MAX_CONTACTS = 5;

export interface ContactLead {
  /** The lead's lines. */
  text: string;
  /** The sentence stating the first contact listed, with its passage's number: the quote under the lead holds it. */
  source: { n: number; sentence: string };
}

/** Longer than this, the quote under the lead is the stretch of its sentence that lists the contacts. */
export const MAX_SOURCE_CHARS = 450;
/** How much of the sentence before the first contact the stretch keeps (its channel's words). */
const BEFORE_FIRST = 80;

/**
 * The sentence of `text` holding the contacts listed from it (`spans`, offsets in `text`), as the
 * quotes write sentences; a sentence of a scraped page can run on through its whole menu, so a
 * long one is cut to the words from shortly before the first contact to the end of the last.
 */
function sourceSentence(text: string, spans: readonly { at: number; end: number }[]): string | null {
  const [first] = spans;
  const sentence = sentenceSpans(text).find((s) => first.at >= s.start && first.at < s.start + s.text.length);
  if (!sentence) return null;
  const sentenceEnd = sentence.start + sentence.text.length;
  if (sentence.text.length <= MAX_SOURCE_CHARS) return oneLine(sentence.text);
  const end = Math.max(...spans.filter((c) => c.end <= sentenceEnd).map((c) => c.end));
  let start = Math.max(sentence.start, first.at - BEFORE_FIRST);
  // From a word's start, so the quote never opens inside a word.
  while (start > sentence.start && !/\s/u.test(text[start - 1])) start--;
  return oneLine(text.slice(start, end));
}

export function contactLead(reading: QuestionReading, lang: Lang, quotes: readonly QuotedSentence[], passages: readonly GradedPassage[]): ContactLead | null {
  const channels = reading.contactChannels;
  const first = quotes[0];
  if (!channels || !first) return null;
  const asked = new Set<ContactChannel>(channels);
  const leads = ANSWER_LEADS[lang];
  const sources = [first.passage, ...passages.filter((p) => p !== first.passage && p.file === first.passage.file)];
  const seen = new Set<string>();
  const items: string[] = [];
  let source: ContactLead['source'] | null = null;
  for (const passage of sources) {
    const text = passage.context || passage.text;
    const listed: { at: number; end: number }[] = [];
    for (const contact of findContacts(text)) {
      const key = contact.value.replace(/[\s-]/g, '');
      if (!asked.has(contact.channel) || seen.has(key)) continue;
      const item = `${leads.contact[contact.channel]}: ${documentText(contact.value)} [${passage.n}]`;
      if (!groundable(item, passage)) continue;
      seen.add(key);
      items.push(item);
      listed.push({ at: contact.at, end: contact.at + contact.value.length });
    }
    if (listed.length > 0) {
      const sentence = sourceSentence(text, listed);
      if (sentence) source = { n: passage.n, sentence };
      // One passage's contacts: those of the clause that answers, not every desk the document lists.
      break;
    }
  }
  if (items.length === 0 || !source) return null;
  const text = items.length === 1 ? items[0] : [`${leads.contacts}:`, ...items.slice(0, MAX_CONTACTS).map((i) => `- ${i}`)].join('\n');
  return { text, source };
}
