/**
 * Step 3: the domain the question was routed to, and whether it names insurance at all.
 * Routing itself runs inside the search service (one round trip to the worker computes route and
 * hits together), so this step reads the search response rather than calling a router. Whether a
 * question is off-topic is decided by the fitted model of answerability.ts, on the evidence the
 * search left (evidence.ts); a question that names insurance is never off-topic.
 */
import { tokenize } from '../core/tokenizer/index.ts';
import type { SearchResponse } from '../search/search-service.ts';
import type { Lang } from '../core/schema.ts';
import type { ContactChannels } from './strings.ts';
import { strings } from './strings.ts';

/** The domain to report: the site's fixed domain, else the router's confident choice, else null. */
export function routedDomain(response: SearchResponse, fixed?: string | null): string | null {
  if (fixed) return fixed;
  return response.result.domainFilter ?? response.result.route?.domain ?? null;
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

export function offTopicText(lang: Lang, contacts: ContactChannels): string {
  return strings(lang).offTopic(contacts);
}
