/**
 * Step 3: the domain the question was routed to, and whether it is about insurance at all.
 * Routing itself runs inside the search service (one round trip to the worker computes route and
 * hits together), so this step reads the search response rather than calling a router.
 *
 * Off-topic = no insurance evidence on either side: the router found no domain signal (no known
 * word, or a posterior barely above uniform) AND no retrieved passage covers the question's
 * content words. Either signal alone is not enough: "כמה עולה ביטוח?" routes nowhere in
 * particular yet retrieves well, and a rare policy term may be unknown to the router.
 */
import { tokenize } from '../core/tokenizer/index.ts';
import type { SearchResponse } from '../search/search-service.ts';
import type { Lang } from '../core/schema.ts';
import type { ContactChannels } from './strings.ts';
import { strings } from './strings.ts';

/**
 * Router posterior below which the question carries no domain evidence, and best passage coverage
 * below which retrieval found nothing relevant. Calibrated by builder/eval/calibrate-grade.ts: on
 * dev-v2 the router's posterior is ≥ 0.28 for 95 % of answerable questions, and eight questions
 * about other things (weather, football, recipes…) score 0–0.18, except "מה השעה עכשיו בניו יורק"
 * (0.69: New York reads as travel). With both limits, 7 of those 8 are flagged off-topic and 2 of
 * the 121 dev-v2 questions are (wrongly) flagged.
 */
export const OFF_TOPIC_MAX_ROUTE_CONFIDENCE = 0.25;
export const OFF_TOPIC_MAX_COVERAGE = 0.35;

/** The domain to report: the site's fixed domain, else the router's confident choice, else null. */
export function routedDomain(response: SearchResponse, fixed?: string | null): string | null {
  if (fixed) return fixed;
  return response.result.domainFilter ?? response.result.route?.domain ?? null;
}

export interface OffTopicInput {
  response: SearchResponse;
  /** Best coverage among the retrieved passages (from grade features); 0 when none. */
  bestCoverage: number;
  /** A site with a fixed domain has said what the chat is about: only retrieval decides. */
  fixedDomain?: string | null;
}

/**
 * Words that make a question about insurance whatever else it says: "מה הפרמיה לביטוח אופנוע ים?"
 * is on-topic even when no document answers it, and deserves "I cannot find it in the policy
 * documents" with the closest clauses, not "I only answer questions about insurance".
 */
const INSURANCE_WORDS = 'ביטוח מבוטח מבטח פוליסה כיסוי מכסה פרמיה תביעה השתתפות פיצוי insurance insured insurer policy cover covered coverage premium claim deductible';
const INSURANCE_TERMS = new Set(tokenize(INSURANCE_WORDS));

export function mentionsInsurance(question: string): boolean {
  return tokenize(question, { forQuery: true }).some((t) => INSURANCE_TERMS.has(t));
}

export function isOffTopic({ response, bestCoverage, fixedDomain }: OffTopicInput): boolean {
  if (mentionsInsurance(response.result.query)) return false;
  const route = response.result.route;
  const noRouteEvidence = fixedDomain ? true : !route || route.confidence < OFF_TOPIC_MAX_ROUTE_CONFIDENCE;
  const nothingRetrieved = response.passages.length === 0 || bestCoverage < OFF_TOPIC_MAX_COVERAGE;
  return noRouteEvidence && nothingRetrieved;
}

export function offTopicText(lang: Lang, contacts: ContactChannels): string {
  return strings(lang).offTopic(contacts);
}
