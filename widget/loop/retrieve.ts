/**
 * Step: search. The service routes and retrieves in one call (in the widget, one message to the
 * search worker): routing is no step of its own, the loop reads the routed domain from the
 * response, and keeps the whole response for the assessment, grading and evaluation.
 */
import type { RankedPassage } from '../answer/types.ts';
import { createError, isHarelError } from '../core/errors.ts';
import type { ContextPassage, SearchRequest, SearchResponse, SearchService } from '../search/search-service.ts';

/** Passages graded: more than the engine reads, so grading has something to reject. */
export const RETRIEVE_K = 10;

/**
 * Depth of the ranked list the search returns and evaluations score: three results a passage
 * graded (a page may hold several sections), so the list spans at least ten distinct pages (page
 * hit@10 needs them) — the depth `harel-builder eval` asks for (k × 3).
 */
export const RANKED_K = RETRIEVE_K * 3;

export interface Retrieved {
  request: SearchRequest;
  response: SearchResponse;
  passages: ContextPassage[];
}

export async function retrieve(search: SearchService, request: SearchRequest, signal?: AbortSignal): Promise<Retrieved> {
  const graded = request.k ?? RETRIEVE_K;
  const full = { ...request, k: Math.max(RANKED_K, graded) };
  let response: SearchResponse;
  try {
    response = await search.search(full, signal);
  } catch (error) {
    if (signal?.aborted && !isHarelError(error, 'ABORTED')) throw createError('ABORTED');
    throw error;
  }
  if (signal?.aborted) throw createError('ABORTED');
  return { request: full, response, passages: response.passages.slice(0, graded) };
}

/** The ranked list as evaluations score it. */
export function rankedPassages(passages: readonly ContextPassage[]): RankedPassage[] {
  return passages.map((p, i) => ({
    rank: p.rank ?? i + 1,
    chunkId: p.chunkId,
    file: p.file,
    page: p.page,
    score: p.score,
    twin: p.twin,
    pageTwin: p.pageTwin,
  }));
}

/** The domain to report: the site's fixed domain, else the router's confident choice, else null. */
export function routedDomain(response: SearchResponse, fixed?: string | null): string | null {
  if (fixed) return fixed;
  return response.result.domainFilter ?? response.result.route?.domain ?? null;
}
