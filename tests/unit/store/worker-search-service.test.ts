/** The worker client's plumbing, against a fake worker: ids, progress, errors, abort. */
import { afterEach, describe, expect, it, vi } from 'vitest';
import { HarelError, isHarelError } from '../../../widget/core/errors.ts';
import { WorkerSearchService } from '../../../widget/search/worker-search-service.ts';
import type { SearchWorkerRequest, SearchWorkerResponse } from '../../../widget/workers/search-protocol.ts';

class FakeWorker {
  onmessage: ((event: MessageEvent<SearchWorkerResponse>) => void) | null = null;
  onerror: ((event: ErrorEvent) => void) | null = null;
  sent: SearchWorkerRequest[] = [];
  terminated = false;
  postMessage(message: SearchWorkerRequest) {
    this.sent.push(message);
  }
  reply(message: SearchWorkerResponse) {
    this.onmessage?.({ data: message } as MessageEvent<SearchWorkerResponse>);
  }
  terminate() {
    this.terminated = true;
  }
}

function setup() {
  const worker = new FakeWorker();
  const service = new WorkerSearchService(() => worker as unknown as Worker);
  return { worker, service };
}

afterEach(() => {
  vi.unstubAllGlobals();
});

describe('WorkerSearchService', () => {
  it('posts absolute URLs, forwards progress and resolves with the ready info of its own id', async () => {
    const { worker, service } = setup();
    const progress: number[] = [];
    const loading = service.load({ manifestUrl: 'https://site.test/index/manifest.json', modelBase: 'https://site.test/models/', onProgress: (p) => progress.push(p.done) });
    const sent = worker.sent[0];
    expect(sent).toMatchObject({ type: 'load', options: { manifestUrl: 'https://site.test/index/manifest.json', modelBase: 'https://site.test/models/', embedder: null } });
    expect(sent.type === 'load' && sent.options.wasmPaths).toBe('https://site.test/ort/');
    worker.reply({ type: 'progress', id: sent.id + 1, progress: { step: 'download', done: 99, total: 100 } });
    worker.reply({ type: 'progress', id: sent.id, progress: { step: 'download', done: 5, total: 100 } });
    const info = { buildId: 'b1' } as never;
    worker.reply({ type: 'ready', id: sent.id, info });
    expect(await loading).toBe(info);
    expect(progress).toEqual([5]);
  });

  it('resolves relative URLs against the page before posting them: the worker may run from a blob: URL', () => {
    vi.stubGlobal('document', { baseURI: 'https://page.test/help/faq.html' });
    const { worker, service } = setup();
    void service.load({ manifestUrl: '/index/manifest.json', modelBase: 'models', wasmPaths: '/static/ort/' });
    expect(worker.sent[0]).toMatchObject({
      type: 'load',
      options: { manifestUrl: 'https://page.test/index/manifest.json', modelBase: 'https://page.test/help/models', wasmPaths: 'https://page.test/static/ort/' },
    });
  });

  it('rebuilds HarelErrors from {code, message}', async () => {
    const { worker, service } = setup();
    const searching = service.search({ query: 'q' });
    worker.reply({ type: 'error', id: worker.sent[0].id, error: { code: 'INDEX_NOT_READY', message: 'wait' } });
    const error = await searching.catch((e: unknown) => e);
    expect(error).toBeInstanceOf(HarelError);
    expect(isHarelError(error, 'INDEX_NOT_READY')).toBe(true);
  });

  it('aborts: rejects at once, tells the worker, and ignores a late answer', async () => {
    const { worker, service } = setup();
    const controller = new AbortController();
    const searching = service.search({ query: 'q' }, controller.signal);
    controller.abort();
    expect(isHarelError(await searching.catch((e: unknown) => e), 'ABORTED')).toBe(true);
    expect(worker.sent[1]).toEqual({ type: 'abort', id: worker.sent[0].id });
    worker.reply({ type: 'result', id: worker.sent[0].id, response: {} as never });
  });

  it('fails waiting calls when the worker dies, and on dispose', async () => {
    const { worker, service } = setup();
    const first = service.search({ query: 'q' });
    worker.onerror?.({ message: 'boom', preventDefault() {} } as ErrorEvent);
    expect(isHarelError(await first.catch((e: unknown) => e), 'UNEXPECTED')).toBe(true);
    const second = service.search({ query: 'q' });
    service.dispose();
    expect(isHarelError(await second.catch((e: unknown) => e), 'ABORTED')).toBe(true);
    expect(worker.terminated).toBe(true);
  });
});
