/**
 * Quotes by meaning (issue 25, item 4): where the search ran hybrid, the extractive answerer quotes
 * first the near-tied sentence the query embedder puts nearest the question; without it, or when
 * it fails, is slow, or is another model, the lexical order stands exactly.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { isHarelError } from '../../../widget/core/errors.ts';
import { packVectors } from '../../../widget/core/format/int8.ts';
import type { LoadedIndex } from '../../../widget/core/format/read-index.ts';
import type { AnswerEngine, GenerateRequest, GradedPassage, QuerySimilarity } from '../../../widget/engines/engine.ts';
import { ExtractiveEngine, firstByMeaning, MEANING_TIE, type MeaningTie, nearTies, scoreSentences, selectSentences } from '../../../widget/engines/extractive.ts';
import { runAnswerLoop } from '../../../widget/loop/machine.ts';
import { LocalSearchService } from '../../../widget/search/local-search-service.ts';
import type { SimilarityResult } from '../../../widget/search/search-service.ts';
import { WorkerSearchService } from '../../../widget/search/worker-search-service.ts';
import type { SearchWorkerRequest, SearchWorkerResponse } from '../../../widget/workers/search-protocol.ts';
import { buildDemoIndex, passage } from '../loop/helpers.ts';

const E5 = MEANING_TIE.embedder;
// Two clauses that share the question's words alike (a lexical tie), on two pages.
const WATER = 'בכל תביעה על נזק מים בדירה ינוכה סכום קבוע מהתגמולים של המבוטח.';
const THEFT = 'על נזק מפריצה לדירה ינוכה מכל תביעה שיעור של עשרה אחוזים מן הנזק שנגרם בפועל.';
const QUESTION = 'כמה ינוכה בתביעה על נזק בדירה?';
const passages: GradedPassage[] = [passage(WATER, { n: 1, chunkId: 'a', page: 1 }), passage(THEFT, { n: 2, chunkId: 'b', page: 2 })];

/** A similarity by the E5 the rule was fitted with. */
const e5 = (cosines: QuerySimilarity['cosines'], embedder = E5): QuerySimilarity => ({ embedder, cosines });
/** Cosines a fake embedder gives each text: THEFT nearest the question. */
const near = (texts: readonly string[]): SimilarityResult => ({ embedder: E5, cosines: texts.map((t) => (t === THEFT ? 0.9 : 0.8)) });

async function firstQuote(request: Partial<GenerateRequest>, tie: MeaningTie = MEANING_TIE): Promise<string> {
  const result = await new ExtractiveEngine({}, tie).generate({ question: QUESTION, lang: 'he', passages, history: [], ...request });
  return [...result.quotes!.entries()][0][1];
}

describe('quotes by meaning', () => {
  it('the two clauses tie lexically, and the lexical order quotes the first passage first', () => {
    const candidates = scoreSentences(QUESTION, passages);
    expect(nearTies(candidates, 0, 4).map((c) => c.sentence)).toEqual([WATER, THEFT]);
    expect(selectSentences(QUESTION, passages)[0].sentence).toBe(WATER);
  });

  it('quotes first the tied sentence the embedder puts nearest the question, the other after it', async () => {
    const asked: string[][] = [];
    const result = await new ExtractiveEngine().generate({
      question: QUESTION,
      lang: 'he',
      passages,
      history: [],
      similarity: e5(async (texts) => {
        asked.push([...texts]);
        return near(texts);
      }),
    });
    expect(asked).toEqual([[WATER, THEFT]]);
    expect([...result.quotes!.keys()]).toEqual([2, 1]);
    expect(result.text.indexOf('[2]')).toBeLessThan(result.text.indexOf('[1]'));
  });

  it('without a similarity (BM25 only) the answer is exactly the lexical one', async () => {
    const plain = await new ExtractiveEngine().generate({ question: QUESTION, lang: 'he', passages, history: [] });
    expect([...plain.quotes!.keys()]).toEqual(selectSentences(QUESTION, passages).map((s) => s.n));
    expect(plain.quotes!.get(1)).toBe(WATER);
  });

  it('keeps the lexical order when the cosines are another embedder’s, fail, are not numbers, or lead by no more than the margin', async () => {
    // The browser tests' tiny embedder: not even asked.
    let asked = 0;
    const tiny = e5(async (texts) => {
      asked++;
      return near(texts);
    }, 'fixture/tiny-embedder');
    expect(await firstQuote({ similarity: tiny })).toBe(WATER);
    expect(asked).toBe(0);
    expect(await firstQuote({ similarity: e5(async (texts) => ({ ...near(texts), embedder: 'fixture/tiny-embedder' })) })).toBe(WATER);
    expect(await firstQuote({ similarity: e5(async () => Promise.reject(new Error('onnx failed'))) })).toBe(WATER);
    expect(await firstQuote({ similarity: e5(async () => null) })).toBe(WATER);
    expect(await firstQuote({ similarity: e5(async () => ({ embedder: E5, cosines: [0.8, Number.NaN] })) })).toBe(WATER);
    expect(await firstQuote({ similarity: e5(async () => ({ embedder: E5, cosines: [0.8] })) })).toBe(WATER);
    expect(await firstQuote({ similarity: e5(async () => ({ embedder: E5, cosines: [0.8, 0.8 + MEANING_TIE.margin / 2] })) })).toBe(WATER);
  });

  it('gives up at the time budget, even on a similarity that ignores its signal', async () => {
    let signalled: AbortSignal | null = null;
    const started = performance.now();
    const quote = await firstQuote(
      {
        similarity: e5((_texts, signal) => {
          signalled = signal;
          return new Promise(() => undefined);
        }),
      },
      { ...MEANING_TIE, budgetMs: 30 },
    );
    expect(quote).toBe(WATER);
    expect(performance.now() - started).toBeLessThan(1000);
    expect(signalled!.aborted).toBe(true);
  });

  it("the customer's stop aborts the similarity and the answer", async () => {
    const controller = new AbortController();
    let signalled: AbortSignal | null = null;
    const answer = firstQuote({
      signal: controller.signal,
      similarity: e5((_texts, signal) => {
        signalled = signal;
        setTimeout(() => controller.abort(), 5);
        return new Promise(() => undefined);
      }),
    });
    await expect(answer).rejects.toSatisfy((e: unknown) => isHarelError(e, 'ABORTED'));
    expect(signalled!.aborted).toBe(true);
  });

  it('asks only about near-ties: at most `cap`, near-copies once, nothing when one sentence leads', async () => {
    const copy = passage(WATER, { n: 3, chunkId: 'c', page: 3 });
    const candidates = scoreSentences(QUESTION, [...passages, copy]);
    expect(nearTies(candidates, 0.5, 4).map((c) => c.n)).toEqual([1, 2]);
    expect(nearTies(candidates, 0.5, 1)).toHaveLength(1);
    const alone = scoreSentences(QUESTION, [passages[0], passage('הפוליסה אינה מכסה בלאי של צנרת ישנה בבניין.', { n: 2, chunkId: 'd', page: 2 })]);
    let asked = 0;
    const first = await firstByMeaning(
      alone,
      e5(async (texts) => {
        asked++;
        return near(texts);
      }),
    );
    expect(first).toBeUndefined();
    expect(asked).toBe(0);
  });
});

describe('the search service’s similarity, and the loop that offers it', () => {
  let index: LoadedIndex;
  let cleanup: () => Promise<void> = async () => undefined;
  /** A made-up 4-dimensional embedder: a unit vector from the text's length, each call counted. */
  const calls: string[] = [];
  const embed = async (text: string) => {
    calls.push(text);
    const v = new Float32Array(4);
    v[text.length % 4] = 1;
    return v;
  };

  beforeAll(async () => {
    const built = await buildDemoIndex();
    cleanup = built.cleanup;
    const n = built.index.chunks.length;
    const packed = packVectors(
      Array.from({ length: n }, (_, i) => {
        const v = new Float32Array(4);
        v[i % 4] = 1;
        return v;
      }),
    );
    index = {
      ...built.index,
      vectors: { count: n, dim: 4, scales: packed.scales, data: packed.data },
      manifest: {
        ...built.index.manifest,
        embedder: { id: E5, dimensions: 4, quantization: 'int8-per-vector-scale', passagePrefix: 'passage: ', queryPrefix: 'query: ', fixture: false, dtype: 'q4' },
      },
    } as LoadedIndex;
  }, 60_000);
  afterAll(() => cleanup());

  it('embeds each text with the passage prefix and reuses the vector the search just made', async () => {
    const service = LocalSearchService.fromIndex(index, { embedQuery: embed });
    calls.length = 0;
    await service.search({ query: 'ביטוח רכב' });
    const result = await service.similarity('ביטוח רכב', ['abcd', 'abcde']);
    expect(calls).toEqual(['query: ביטוח רכב', 'passage: abcd', 'passage: abcde']);
    expect(result!.embedder).toBe(E5);
    expect(result!.cosines).toHaveLength(2);
    // Another query is embedded anew.
    await service.similarity('משהו אחר', ['abcd']);
    expect(calls.at(-2)).toBe('query: משהו אחר');
  });

  it('says nothing without an embedder, or when an embedding fails', async () => {
    expect(await LocalSearchService.fromIndex(index).similarity('ביטוח רכב', ['abc'])).toBeNull();
    const failing = LocalSearchService.fromIndex(index, { embedQuery: async (t) => (t.startsWith('passage: ') ? null : embed(t)) });
    expect(await failing.similarity('ביטוח רכב', ['abc'])).toBeNull();
  });

  it('the loop offers it to the engine only when the search ran hybrid', async () => {
    const seen: (GenerateRequest['similarity'] | undefined)[] = [];
    const extractive = new ExtractiveEngine();
    const engine: AnswerEngine = {
      mode: 'extractive',
      generate: (request) => {
        seen.push(request.similarity);
        return extractive.generate(request);
      },
    };
    const question = 'מה ההשתתפות העצמית בביטוח הרכב?';
    await runAnswerLoop({ question, history: [] }, { search: LocalSearchService.fromIndex(index, { embedQuery: embed }), engine });
    await runAnswerLoop({ question, history: [] }, { search: LocalSearchService.fromIndex(index), engine });
    expect(seen.length).toBeGreaterThanOrEqual(2);
    expect(seen[0]?.embedder).toBe(E5);
    expect(seen.at(-1)).toBeUndefined();
  });
});

describe('WorkerSearchService.similarity', () => {
  it('asks the worker by id, resolves with its answer, and tells it to stop on abort', async () => {
    const sent: SearchWorkerRequest[] = [];
    const worker = {
      onmessage: null as ((event: MessageEvent<SearchWorkerResponse>) => void) | null,
      onerror: null,
      postMessage: (m: SearchWorkerRequest) => sent.push(m),
      terminate: () => undefined,
    };
    const service = new WorkerSearchService(() => worker as unknown as Worker);
    const asked = service.similarity('q', ['a', 'b']);
    expect(sent[0]).toMatchObject({ type: 'similarity', query: 'q', texts: ['a', 'b'] });
    worker.onmessage?.({ data: { type: 'similar', id: sent[0].id, similarity: { embedder: E5, cosines: [0.1, 0.2] } } } as MessageEvent<SearchWorkerResponse>);
    expect(await asked).toEqual({ embedder: E5, cosines: [0.1, 0.2] });

    const controller = new AbortController();
    const stopped = service.similarity('q', ['a'], controller.signal);
    controller.abort();
    await expect(stopped).rejects.toSatisfy((e: unknown) => isHarelError(e, 'ABORTED'));
    expect(sent.at(-1)).toEqual({ type: 'abort', id: sent[1].id });
  });
});
