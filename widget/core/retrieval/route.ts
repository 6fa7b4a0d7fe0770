/**
 * Query → insurance domain, with a confidence. Retrieval filters by domain only when the router is
 * confident; below `minConfidence` the domain is null and the whole index is searched.
 */
import { tokenize } from '../tokenizer/index.ts';
import type { RouterModel } from './route-model.ts';

export { trainRouter, phraseTerms, ROUTER_MODEL_VERSION } from './route-model.ts';
export type { RouterModel, RouterTrainingDoc, TrainRouterOptions } from './route-model.ts';

export interface RouteResult {
  /** The routed domain, or null when the top posterior is below minConfidence. */
  domain: string | null;
  /** Posterior of the top domain (0..1). */
  confidence: number;
  /** Every domain with its posterior, best first. */
  scores: { domain: string; score: number }[];
}

export interface RouteOptions {
  /** Defaults to the model's own minConfidence. */
  minConfidence?: number;
}

// Term → row, built once per model object (models are loaded once and queried many times).
const rowsCache = new WeakMap<RouterModel, Map<string, number>>();

function rows(model: RouterModel): Map<string, number> {
  let map = rowsCache.get(model);
  if (!map) {
    map = new Map(model.terms.map((t, i) => [t, i]));
    rowsCache.set(model, map);
  }
  return map;
}

export function routeQuery(model: RouterModel, query: string, options: RouteOptions = {}): RouteResult {
  const terms = tokenize(query, { forQuery: true });
  const termSet = new Set(terms);
  const raw = model.domains.map(() => 0);
  const index = rows(model);
  for (const t of terms) {
    const row = index.get(t);
    if (row === undefined) continue;
    const w = model.weights[row];
    for (let d = 0; d < raw.length; d++) raw[d] += w[d];
  }
  for (const phrase of model.curated) {
    if (phrase.terms.every((t) => termSet.has(t))) raw[phrase.domain] += model.curatedBonus;
  }

  const scaled = raw.map((s) => s / model.temperature);
  const max = Math.max(...scaled);
  const exp = scaled.map((s) => Math.exp(s - max));
  const sum = exp.reduce((a, b) => a + b, 0);
  const scores = model.domains.map((domain, d) => ({ domain, score: exp[d] / sum })).sort((a, b) => b.score - a.score);

  const top = scores[0];
  const minConfidence = options.minConfidence ?? model.minConfidence;
  // A query with no known term leaves every domain equal: that is no evidence, not a tie to break.
  const evidence = raw.some((s) => s !== raw[0]);
  const confident = evidence && top !== undefined && top.score >= minConfidence;
  return { domain: confident ? top.domain : null, confidence: evidence && top ? top.score : 0, scores };
}
