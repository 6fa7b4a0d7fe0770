/**
 * Training the domain router: a multinomial naive Bayes over our BM25 terms, learned from the
 * corpus's own titles, headings and text, pruned to the most domain-specific terms so that the
 * model ships to the browser (JSON, a few hundred KB at most).
 */
import { tokenize, TOKENIZER_VERSION } from '../tokenizer/index.ts';
import { DOMAIN_KEYWORDS } from './domain-keywords.ts';

export const ROUTER_MODEL_VERSION = 1;

export interface RouterModel {
  version: number;
  /** TOKENIZER_VERSION the terms were produced with: a query must be tokenised the same way. */
  tokenizer: string;
  domains: string[];
  /** Kept vocabulary; `weights[i][d]` is log P(terms[i] | domains[d]) minus its mean over domains. */
  terms: string[];
  weights: number[][];
  /** Curated phrases: each matches when every one of its word terms is among the query's terms. */
  curated: { domain: number; terms: string[] }[];
  /** Added to a domain's score per curated phrase found in the query. */
  curatedBonus: number;
  /** Score divisor before the softmax: naive Bayes sums are far too peaked to read as probabilities. */
  temperature: number;
  /** Default confidence below which routeQuery answers "no domain" (0.9: ~85% right on the dev questions). */
  minConfidence: number;
}

export interface RouterTrainingDoc {
  domain: string;
  title: string;
  headings: string[];
  text: string;
}

export interface TrainRouterOptions {
  /** Domain → phrases. Defaults to DOMAIN_KEYWORDS. */
  curated?: Record<string, string[]>;
  /** Vocabulary kept after pruning (default 3000). */
  maxTerms?: number;
  curatedBonus?: number;
  temperature?: number;
  minConfidence?: number;
  /** Additive smoothing of term counts (default 0.1; 1 measured clearly worse). */
  smoothing?: number;
  /** Clip each term's centred log-ratio to ±clip (default 8: tighter clipping measured worse). */
  clip?: number;
  /** Weight of title terms relative to body terms (default 6). */
  titleWeight?: number;
  /** Weight of heading terms relative to body terms (default 2). */
  headingWeight?: number;
}

// Titles and headings name the topic; body text mostly repeats legal boilerplate.
const TITLE_WEIGHT = 6;
const HEADING_WEIGHT = 2;
const CLIP = 8;
// Each document contributes the same mass to its domain, so one 80-page policy cannot drown the rest.
const DOC_MASS = 1000;
const SMOOTHING = 0.1;

function addTerms(into: Map<string, number>, terms: string[], weight: number): void {
  for (const t of terms) into.set(t, (into.get(t) ?? 0) + weight);
}

/** A phrase's word terms: the surface term of each word (prefixed forms reach it by stripping). */
export function phraseTerms(phrase: string): string[] {
  return phrase
    .split(/\s+/)
    .map((word) => tokenize(word)[0])
    .filter((t): t is string => t !== undefined);
}

export function trainRouter(docs: RouterTrainingDoc[], options: TrainRouterOptions = {}): RouterModel {
  const steps = trainRouterSteps(docs, options);
  for (;;) {
    const step = steps.next();
    if (step.done) return step.value;
  }
}

/**
 * Pieces of a long text cut at line breaks near every `size` characters: a term never spans a
 * line break, so tokenizing piece by piece gives the whole text's terms, in order.
 */
function* linePieces(text: string, size = 65_536): Generator<string, void, undefined> {
  let start = 0;
  for (let cut = text.indexOf('\n', start + size); cut >= 0; cut = text.indexOf('\n', start + size)) {
    yield text.slice(start, cut);
    start = cut;
  }
  yield text.slice(start);
}

/**
 * `trainRouter` as steps, one per piece of text and per term: the builder runs it with pauses
 * (widget/core/steps.ts) so that a build stays cancellable while the router trains.
 */
export function* trainRouterSteps(docs: RouterTrainingDoc[], options: TrainRouterOptions = {}): Generator<void, RouterModel, undefined> {
  const curatedSource = options.curated ?? DOMAIN_KEYWORDS;
  const domains = [...new Set([...docs.map((d) => d.domain), ...Object.keys(curatedSource)])].sort();
  const domainIndex = new Map(domains.map((d, i) => [d, i]));
  const counts = domains.map(() => new Map<string, number>());
  const docFreq = new Map<string, number>();

  for (const doc of docs) {
    const bag = new Map<string, number>();
    addTerms(bag, tokenize(doc.title), options.titleWeight ?? TITLE_WEIGHT);
    addTerms(bag, tokenize(doc.headings.join('\n')), options.headingWeight ?? HEADING_WEIGHT);
    for (const piece of linePieces(doc.text)) {
      yield;
      addTerms(bag, tokenize(piece), 1);
    }
    let mass = 0;
    // Sublinear counts: a term repeated 500 times in one policy is not 500 times the evidence.
    for (const [t, n] of bag) {
      const v = 1 + Math.log(n);
      bag.set(t, v);
      mass += v;
    }
    if (mass === 0) continue;
    const into = counts[domainIndex.get(doc.domain)!];
    for (const [t, v] of bag) {
      into.set(t, (into.get(t) ?? 0) + (v * DOC_MASS) / mass);
      docFreq.set(t, (docFreq.get(t) ?? 0) + 1);
    }
  }

  // In a real corpus, terms seen in one document only are mostly PDF noise and do not generalise;
  // a handful of documents has too few repeats for that filter.
  const minDocFreq = docs.length >= 50 ? 2 : 1;
  const vocabulary = [...docFreq.entries()].filter(([, n]) => n >= minDocFreq).map(([t]) => t);
  const totals = counts.map((m) => [...m.values()].reduce((a, b) => a + b, 0));
  const alpha = options.smoothing ?? SMOOTHING;
  const logProb = (d: number, t: string) => Math.log(((counts[d].get(t) ?? 0) + alpha) / (totals[d] + alpha * vocabulary.length));

  // Rank terms by their contribution to the mutual information between term and domain.
  const ranked: { t: string; lp: number[]; score: number }[] = [];
  for (const t of vocabulary) {
    yield;
    const lp = domains.map((_, d) => logProb(d, t));
    const p = lp.map(Math.exp);
    const mean = p.reduce((a, b) => a + b, 0) / p.length;
    let score = 0;
    for (let d = 0; d < p.length; d++) score += p[d] * Math.log(p[d] / mean);
    ranked.push({ t, lp, score });
  }
  ranked.sort((a, b) => b.score - a.score);
  const kept = ranked.slice(0, options.maxTerms ?? 3000);

  const clip = options.clip ?? CLIP;
  const round = (x: number) => Math.round(Math.max(-clip, Math.min(clip, x)) * 10) / 10;
  const weights = kept.map(({ lp }) => {
    const mean = lp.reduce((a, b) => a + b, 0) / lp.length;
    return lp.map((x) => round(x - mean));
  });

  const curated: RouterModel['curated'] = [];
  for (const [domain, phrases] of Object.entries(curatedSource)) {
    const d = domainIndex.get(domain)!;
    for (const phrase of phrases) {
      const terms = phraseTerms(phrase);
      if (terms.length > 0) curated.push({ domain: d, terms });
    }
  }

  return {
    version: ROUTER_MODEL_VERSION,
    tokenizer: TOKENIZER_VERSION,
    domains,
    terms: kept.map((k) => k.t),
    weights,
    curated,
    curatedBonus: options.curatedBonus ?? 4,
    temperature: options.temperature ?? 3,
    minConfidence: options.minConfidence ?? 0.9,
  };
}
