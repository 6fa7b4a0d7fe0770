/**
 * The loop's second chance and its last word. When grading keeps nothing or grounding fails, the
 * question is searched once more, broader: the whole index (no domain filter) and the lexicon's
 * equivalents weighted higher, since a wrong route or the customer's own wording is the usual
 * cause. If that fails too, the answer is the low-confidence refusal with the closest clauses,
 * each with its citation, so the customer can read the policy's own words.
 */
import { isQuotable, splitSentences } from '../text/sentences.ts';
import { documentText } from '../answer/document-text.ts';
import type { Citation } from '../answer/types.ts';
import type { Lang } from '../core/schema.ts';
import type { GradedPassage } from '../engines/engine.ts';
import type { SearchRequest } from '../search/search-service.ts';
import { buildCitations, parseCitations } from './citations.ts';
import type { GradedCandidate } from './grade.ts';
import type { SmallTalkKind } from '../text/small-talk.ts';
import { quoted, strings, type ContactChannels } from '../text/strings.ts';
import type { Word } from '../text/terms.ts';

/** Lexicon weight on the retry: the equivalents count as much as the customer's words (default 0.3). */
export const BROAD_EXPANSION_WEIGHT = 0.8;
/** More passages on the retry: without a domain filter the right one may rank lower. */
export const BROAD_K = 15;
/** Clauses shown under a refusal. */
export const CLOSEST_CLAUSES = 3;

/** The reply to an off-topic question: a greeting or thanks in kind, else what the assistant answers and whom to ask (the page's `contacts`). */
export function offTopicReply(lang: Lang, smallTalk: SmallTalkKind | null, contacts: ContactChannels): string {
  if (smallTalk === 'greeting') return strings(lang).greeting;
  if (smallTalk === 'thanks') return strings(lang).welcome;
  return offTopicText(lang, contacts);
}

export function offTopicText(lang: Lang, contacts: ContactChannels): string {
  return strings(lang).offTopic(contacts);
}

export function broaderRequest(request: SearchRequest): SearchRequest {
  return { ...request, route: false, domain: null, k: BROAD_K, expansionWeight: BROAD_EXPANSION_WEIGHT };
}

export interface Refusal {
  text: string;
  citations: Citation[];
}

/**
 * "I cannot find a definitive answer" with the closest clauses: the best-graded passages (graded
 * or not), one per page, each quoted by its sentence closest to the question.
 */
export function refusalWithClosest(lang: Lang, question: string | readonly Word[], candidates: readonly GradedCandidate[]): Refusal {
  const s = strings(lang);
  const seen = new Set<string>();
  const closest: GradedPassage[] = [];
  for (const c of [...candidates].sort((a, b) => b.relevance - a.relevance)) {
    const key = `${c.passage.file}\u0000${c.passage.page}`;
    if (seen.has(key)) continue;
    // A passage that is only a heading ("3. What is covered") is no clause to show.
    const headings = [c.passage.title, ...c.passage.sectionPath];
    if (!splitSentences(c.passage.context || c.passage.text).some((x) => isQuotable(x, headings))) continue;
    seen.add(key);
    closest.push({ ...c.passage, n: closest.length + 1, relevance: c.relevance });
    if (closest.length === CLOSEST_CLAUSES) break;
  }
  if (closest.length === 0) return { text: s.refusal, citations: [] };
  const markers = closest.map((p) => `[${p.n}]`).join(' ');
  const parsed = parseCitations(markers, closest);
  const citations = buildCitations(parsed, { reference: question });
  // The quote is the document's own text: wrapped so its own "[1]" is never read as a marker.
  const lines = citations.map((c) => `• ${quoted(documentText(c.quote))} [${c.n}]`);
  return { text: [s.refusal, '', s.closestClauses, ...lines].join('\n'), citations };
}
