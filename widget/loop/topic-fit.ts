/**
 * Whether a bare ellipsis ("רכב חלופי?", "dental?") continues the previous question's topic, by the
 * domain router: its own words must point, with real evidence, at the domain the previous question
 * was about. "מזג האוויר?" after a health question routes to travel (travel policies speak of
 * weather): a new topic, searched on its own.
 */
import type { RouteResult } from '../core/retrieval/route.ts';

/**
 * Router posterior above which a question's words are evidence for its top domain. Measured on the
 * Harel index and the demo index (12 domains, so no evidence is 1/12 ≈ 0.08): words a domain only
 * brushes against stay at or below 0.18 ("how do I change a flat tyre?" → mortgage 0.18, "water
 * damage?" → travel 0.17), while one word the router knows for a domain gives 0.25 or more
 * ("car?" 0.26, "לחו"ל?" 0.42, "ניתוח?" 0.53, "רכב חלופי?" 0.82).
 */
export const TOPIC_FIT_MIN_CONFIDENCE = 0.2;

/** The search service's router: the top domain of a text and its posterior, null without a router. */
export type RouteFn = (query: string) => Promise<RouteResult | null>;

/** The best domain when the text carries any evidence (a router's own threshold may have nulled `domain`). */
function topDomain(route: RouteResult | null): string | null {
  if (!route || route.confidence <= 0) return null;
  return route.domain ?? route.scores[0]?.domain ?? null;
}

/** A `fitsPreviousTopic` for analyzeQuestion, built on the router. */
export function routerTopicFit(route: RouteFn, minConfidence = TOPIC_FIT_MIN_CONFIDENCE): (question: string, previous: string) => Promise<boolean> {
  return async (question, previous) => {
    const own = await route(question);
    const domain = topDomain(own);
    if (!domain || own!.confidence <= minConfidence) return false;
    return topDomain(await route(previous)) === domain;
  };
}
