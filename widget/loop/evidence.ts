/**
 * The evidence a question's search left behind, as numbers a fitted model can weigh: how much of
 * the question the index knows at all, how much of it the best passage and the best single
 * sentence hold, whether that sentence states the kind of fact asked for, how clearly the best
 * passage stands out, and whether the router agrees. The answerability model
 * (answerability.ts) turns these into the decisions the loop makes without an LLM: off-topic,
 * refuse, and the confidence tier. Pure: the fitting script (builder/eval/fit-answerability.ts)
 * computes exactly the same features in Node.
 */
import { detectLang } from '../core/tokenizer/index.ts';
import type { TextReading } from '../text/question-reading.ts';
import type { SemanticEvidence, TermStats } from '../core/retrieval/retriever.ts';
import type { RouteResult } from '../core/retrieval/route.ts';
import type { ContextPassage, SearchResponse } from '../search/search-service.ts';
import { answersType } from '../text/facts.ts';
import { passageMatchText } from '../text/passage-text.ts';
import type { QuestionType } from '../text/question-type.ts';
import { isQuotable, oneLine, splitSentences } from '../text/sentences.ts';
import { termSet, wordFound, type Word } from '../text/terms.ts';

/** The features every search yields (BM25's, the router's, the sentences'), in stored order. */
export const LEXICAL_FEATURES = [
  'unknownMass',
  'unknownWords',
  'familiarity',
  'leastFamiliar',
  'passageCoverage',
  'sentenceCoverage',
  'localCoverage',
  'topRelevance',
  'margin',
  'topVsMean',
  'bm25Strength',
  'routeConfidence',
  'routeAgrees',
  'insuranceWords',
  'typed',
  'factInBest',
  'factNearTop',
  'contentWords',
  'langMismatch',
  'bestEvidence',
  'knownPassageCoverage',
  'knownSentenceCoverage',
  'missingKey',
  'keyUnknown',
  'smallTalk',
] as const;

/**
 * E5's evidence, measured only when the search ran hybrid (0 otherwise): how near the question
 * lies to the nearest chunk of the index (its distance to the corpus), how far that chunk stands
 * out from the nearest other page, whether BM25's best chunk lies on the vectors' best page, the
 * best cosine among the passages the answer quotes from, how near the question lies to the
 * index as a whole, relative to how tightly the index gathers (widget/core/retrieval/corpus-centroid.ts),
 * and how near the sentence the answer quotes first lies to the question: semQuote, known only once
 * the answer has its quote, so the loop's ground step measures it (machine.ts, measureQuote) and the
 * off-topic model, which decides before that, never reads it.
 */
export const SEMANTIC_FEATURES = ['semTop', 'semMargin', 'semAgree', 'semPassage', 'semCorpus', 'semQuote'] as const;

/**
 * The words of a quote that semQuote embeds: its first QUOTE_WORDS. A whole quoted sentence is 71
 * tokens at the median on dev-v2 (132 at p90), three times a question, and its embedding doubled
 * the time to an answer (demo, Chromium: p50 97 → 195 ms); its first twenty words cost about a
 * question's, and held out they separated right answers from wrong ones as well or better (dev-v2
 * "high" right 78.4 % over six fold shuffles, against 73.6 % for the whole sentence; 12 words
 * 77.8 %: docs/how-it-answers.md).
 */
export const QUOTE_WORDS = 20;
export function quoteHead(quote: string): string {
  return quote.trim().split(/\s+/).slice(0, QUOTE_WORDS).join(' ');
}

/**
 * Every feature, in the order rows are stored. A model names the features it reads
 * (answerability-model.ts), so adding one here changes no fitted model.
 */
export const EVIDENCE_FEATURES = [...LEXICAL_FEATURES, ...SEMANTIC_FEATURES] as const;

export type EvidenceFeature = (typeof EVIDENCE_FEATURES)[number];
export type EvidenceVector = Record<EvidenceFeature, number>;

export interface Evidence {
  features: EvidenceVector;
  questionType: QuestionType;
  /**
   * The best passage is from a document the customer added on this device, and holds at least
   * OWN_DOCUMENT_MIN_COVERAGE of the question's words: the question is about their own policy,
   * never off-topic, whatever the site's index knows of its words. Not a feature: no model was
   * fitted with it. Absent: false.
   */
  ownDocument?: boolean;
}

/**
 * Share of the question's weighted words the customer's best passage must hold to make the
 * question theirs. An English question about an English policy the customer added over a Hebrew
 * site reads as off-topic to the site's models (its words are unknown to the site); a question that
 * shares a few words with their policy by chance ("what is the weather tomorrow?") does not reach this.
 */
export const OWN_DOCUMENT_MIN_COVERAGE = 0.3;

/** Passages whose sentences are examined: those an engine would quote from. */
export const EVIDENCE_PASSAGES = 5;
/** Sentences ranked by coverage that count as "near the top" for the fact feature. */
const FACT_SENTENCES = 3;

/** BM25's IDF of a term found in `df` of `n` chunks. */
export function idf(df: number, n: number): number {
  return Math.log(1 + (n - df + 0.5) / (df + 0.5));
}

/**
 * Each content word's rarity in the whole index. A word's candidates (surface form, prefix
 * strippings) are alternatives, so the word is as common as its most common candidate; a word
 * none of whose candidates the index holds weighs as a term found in half a chunk.
 */
export function wordIdf(words: readonly Word[], stats: TermStats): { idf: number[]; unknown: boolean[]; familiarity: number[] } {
  const out = words.map((w) => Math.max(0, ...w.map((t) => stats.df[t] ?? 0)));
  return {
    idf: out.map((df) => idf(df, stats.chunks)),
    unknown: out.map((df) => df === 0),
    familiarity: out.map((df) => Math.log10((df + 0.5) / Math.max(stats.chunks, 1))),
  };
}

function weightedShare(words: readonly Word[], weights: readonly number[], terms: ReadonlySet<string>): number {
  let found = 0;
  let total = 0;
  words.forEach((w, i) => {
    total += weights[i];
    if (wordFound(w, terms)) found += weights[i];
  });
  return total > 0 ? found / total : 0;
}

/**
 * The router's confidence above what a question with no domain words gets: a posterior of 0.3 is
 * strong evidence among twelve domains and none among four, so it is rescaled from 1/domains → 0
 * to 1 → 1. Without a router (or with no word it knows) there is no evidence.
 */
export function routeEvidence(route: RouteResult | null): number {
  if (!route || route.confidence <= 0) return 0;
  const uniform = 1 / Math.max(route.scores.length, 2);
  return Math.max(0, (route.confidence - uniform) / (1 - uniform));
}

/**
 * How specific the question's most specific missing word is: for each passage, the largest IDF
 * among the question's words it lacks; the passage that lacks the least decides. Scaled by the IDF
 * of a word no chunk holds, so 1 means some passage would have to hold a word the index has never
 * seen, and 0 that one passage holds every word. Coverage averages a missing word away; this does
 * not: an unanswerable question often differs from an answerable one by a single word (the product
 * the documents do not sell, the detail they never state).
 */
export function missingKey(words: readonly Word[], weights: readonly number[], passages: readonly ReadonlySet<string>[], chunks: number): number {
  if (words.length === 0) return 0;
  const ceiling = idf(0, Math.max(chunks, 1));
  let best = Infinity;
  for (const terms of passages) {
    let missing = 0;
    words.forEach((w, i) => {
      if (!wordFound(w, terms)) missing = Math.max(missing, weights[i]);
    });
    best = Math.min(best, missing);
  }
  return best === Infinity ? 1 : Math.min(1, best / ceiling);
}

/** The semantic features (SEMANTIC_FEATURES): all 0 unless the search ran hybrid. */
export function semanticFeatures(semantic: SemanticEvidence | null, passages: readonly Pick<ContextPassage, 'vector'>[]): Record<(typeof SEMANTIC_FEATURES)[number], number> {
  if (!semantic) return { semTop: 0, semMargin: 0, semAgree: 0, semPassage: 0, semCorpus: 0, semQuote: 0 };
  return {
    semTop: semantic.top,
    semMargin: Math.max(0, semantic.top - semantic.second),
    semAgree: semantic.agree ? 1 : 0,
    // A passage found by BM25 alone has no cosine: it counts as 0.
    semPassage: passages.reduce((m, p) => Math.max(m, p.vector ?? 0), 0),
    semCorpus: semantic.corpus,
    // Known only once the answer has picked its quote: the ground step measures it (quoteSimilarity).
    semQuote: 0,
  };
}

export interface EvidenceInput {
  /** The searched question's reading (a follow-up already rewritten): the features were fitted on it. */
  query: TextReading;
  response: Pick<SearchResponse, 'result'>;
  /** The graded passages (best retrieval first). */
  passages: readonly ContextPassage[];
  /** Grading's features of the same passages. */
  graded: readonly { coverage: number; relevance: number }[];
  /** A site with a fixed domain: the router did not run, and the domain is certain. */
  fixedDomain?: string | null;
}

export function computeEvidence({ query, response, passages, graded, fixedDomain }: EvidenceInput): Evidence {
  const words = query.words;
  const type = query.type;
  const stats = response.result.termStats ?? { chunks: 1, df: {} };
  const { idf: weights, unknown, familiarity } = wordIdf(words, stats);
  const mass = weights.reduce((s, w) => s + w, 0);
  const unknownMass = mass > 0 ? weights.reduce((s, w, i) => s + (unknown[i] ? w : 0), 0) / mass : 1;

  const top = passages.slice(0, EVIDENCE_PASSAGES);
  const passageTerms = passages.map((p) => termSet(passageMatchText(p)));
  const passageCoverage = passageTerms.reduce((m, terms) => Math.max(m, weightedShare(words, weights, terms)), 0);
  const sentences: { text: string; coverage: number; sectionPath: readonly string[] }[] = [];
  for (const p of top) {
    const headings = [p.title, ...p.sectionPath];
    for (const s of splitSentences(p.context || p.text)) {
      if (!isQuotable(s, headings)) continue;
      sentences.push({ text: oneLine(s), coverage: weightedShare(words, weights, termSet(s)), sectionPath: p.sectionPath });
    }
  }
  sentences.sort((a, b) => b.coverage - a.coverage);
  const best = sentences[0] ?? null;
  const fact = (s: (typeof sentences)[number]) => (type !== 'other' && answersType(s.text, type, s.sectionPath) ? 1 : 0);

  // Raw BM25 of the passages BM25 found: a fused hybrid score is min-max normalised per query and
  // means nothing across queries, and a passage found by its vector alone has no BM25 score.
  const scores = passages
    .map((p) => p.bm25 ?? 0)
    .filter((x) => x > 0)
    .sort((a, b) => b - a);
  const s1 = scores[0] ?? 0;
  const s2 = scores[1] ?? 0;
  const meanScore = scores.length ? scores.reduce((a, b) => a + b, 0) / scores.length : 0;
  const route = response.result.route;
  const routeConfidence = fixedDomain ? 1 : routeEvidence(route);
  const lang = query.lang;
  const topLang = passages[0] ? detectLang(passages[0].text) : lang;

  const features: EvidenceVector = {
    unknownMass,
    unknownWords: Math.log1p(unknown.filter(Boolean).length),
    // How much the index speaks the question's words: the mean and the lowest log share of chunks
    // holding each word. Index-relative, so a general-knowledge index and an insurer's both work.
    familiarity: familiarity.length ? familiarity.reduce((a, b) => a + b, 0) / familiarity.length : -6,
    leastFamiliar: familiarity.length ? Math.min(...familiarity) : -6,
    passageCoverage,
    sentenceCoverage: best?.coverage ?? 0,
    localCoverage: graded.reduce((m, g) => Math.max(m, g.coverage), 0),
    topRelevance: graded.reduce((m, g) => Math.max(m, g.relevance), 0),
    margin: s1 > 0 ? (s1 - s2) / s1 : 0,
    // Capped: a lone BM25 hit among vector hits must not read as a landslide.
    topVsMean: meanScore > 0 ? Math.min(s1 / meanScore, 4) : 0,
    // BM25's top score against the most the question's words could contribute (their IDF mass).
    bm25Strength: mass > 0 ? Math.min(s1 / mass, 5) : 0,
    routeConfidence,
    routeAgrees: fixedDomain ? 1 : route?.domain != null && passages[0]?.domain === route.domain ? 1 : 0,
    insuranceWords: query.insuranceWords ? 1 : 0,
    typed: type === 'other' ? 0 : 1,
    factInBest: best ? fact(best) : 0,
    factNearTop: sentences.slice(0, FACT_SENTENCES).some((s) => fact(s) === 1) ? 1 : 0,
    contentWords: Math.log1p(words.length),
    langMismatch: passages[0] && topLang !== lang ? 1 : 0,
    // Interactions a linear model cannot form itself: a general-knowledge question over a
    // general-knowledge index has no router evidence but a sentence that holds it, an off-topic
    // question over an insurer's index has neither; coverage counts for more when the index
    // knows the question's words.
    bestEvidence: Math.max(routeConfidence, best?.coverage ?? 0),
    knownPassageCoverage: passageCoverage * (1 - unknownMass),
    knownSentenceCoverage: (best?.coverage ?? 0) * (1 - unknownMass),
    missingKey: missingKey(words, weights, passageTerms.slice(0, EVIDENCE_PASSAGES), stats.chunks),
    // The question's most specific word is one the index has never seen.
    keyUnknown: weights.length > 0 && unknown[weights.indexOf(Math.max(...weights))] ? 1 : 0,
    smallTalk: query.smallTalk ? 1 : 0,
    ...semanticFeatures(response.result.semantic ?? null, top),
  };
  const ownDocument = passages[0]?.origin === 'device' && weightedShare(words, weights, passageTerms[0]) >= OWN_DOCUMENT_MIN_COVERAGE;
  return { features, questionType: type, ownDocument };
}
