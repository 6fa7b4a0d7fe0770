/** The worker client's plumbing, against a fake worker: ids, progress, errors, abort, forwarded methods. */
import { afterEach, describe, expect, it, vi } from 'vitest';
import { HarelError, isHarelError } from '../../../widget/core/errors.ts';
import { WorkerSearchService } from '../../../widget/search/worker-search-service.ts';
import type { SearchWorkerRequest, SearchWorkerResponse } from '../../../widget/workers/search-protocol.ts';

class FakeWorker {
  onmessage: ((event: MessageEvent<SearchWorkerResponse>) => void) | null = null;
  onerror: ((event: ErrorEvent) => void) | null = null;
  sent: SearchWorkerRequest[] = [];
  terminated = false;
  transfers: Transferable[][] = [];
  postMessage(message: SearchWorkerRequest, transfer: Transferable[] = []) {
    this.sent.push(message);
    this.transfers.push(transfer);
  }
  /** The call posted `n`th (pdf.js-free: every message here is the RPC's). */
  call(n = 0) {
    const sent = this.sent[n];
    if (sent.rpc !== 'call') throw new Error(`message ${n} is a ${sent.rpc}`);
    return sent;
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
    const sent = worker.call();
    expect(sent).toMatchObject({ method: 'load', params: { manifestUrl: 'https://site.test/index/manifest.json', modelBase: 'https://site.test/models/', embedder: null } });
    expect(sent.method === 'load' && sent.params.wasmPaths).toBe('https://site.test/ort/');
    worker.reply({ rpc: 'event', id: sent.id + 1, event: { progress: { step: 'download', done: 99, total: 100 } } });
    worker.reply({ rpc: 'event', id: sent.id, event: { progress: { step: 'download', done: 5, total: 100 } } });
    const info = { buildId: 'b1' } as never;
    worker.reply({ rpc: 'reply', id: sent.id, reply: info });
    expect(await loading).toBe(info);
    expect(progress).toEqual([5]);
  });

  it('resolves relative URLs against the page before posting them: the worker may run from a blob: URL', () => {
    vi.stubGlobal('document', { baseURI: 'https://page.test/help/faq.html' });
    const { worker, service } = setup();
    void service.load({ manifestUrl: '/index/manifest.json', modelBase: 'models', wasmPaths: '/static/ort/' });
    expect(worker.sent[0]).toMatchObject({
      rpc: 'call',
      method: 'load',
      params: { manifestUrl: 'https://page.test/index/manifest.json', modelBase: 'https://page.test/help/models', wasmPaths: 'https://page.test/static/ort/' },
    });
  });

  it('rebuilds HarelErrors from {code, message}', async () => {
    const { worker, service } = setup();
    const searching = service.search({ query: 'q' });
    worker.reply({ rpc: 'error', id: worker.call().id, error: { code: 'INDEX_NOT_READY', message: 'wait' } });
    const error = await searching.catch((e: unknown) => e);
    expect(error).toBeInstanceOf(HarelError);
    expect(isHarelError(error, 'INDEX_NOT_READY')).toBe(true);
    expect((error as HarelError).message).toBe('wait');
  });

  it('aborts: rejects at once, tells the worker, and ignores a late answer', async () => {
    const { worker, service } = setup();
    const controller = new AbortController();
    const searching = service.search({ query: 'q' }, controller.signal);
    controller.abort();
    expect(isHarelError(await searching.catch((e: unknown) => e), 'ABORTED')).toBe(true);
    expect(worker.sent[1]).toEqual({ rpc: 'cancel', id: worker.call().id });
    worker.reply({ rpc: 'reply', id: worker.call().id, reply: {} as never });
  });

  it('rejects a call whose signal has already fired without posting it', async () => {
    const { worker, service } = setup();
    const controller = new AbortController();
    controller.abort();
    expect(isHarelError(await service.search({ query: 'q' }, controller.signal).catch((e: unknown) => e), 'ABORTED')).toBe(true);
    expect(worker.sent).toEqual([]);
  });

  it('forwards each SearchService method argument for argument: the signal as a cancel, bytes as a transferred copy', async () => {
    const { worker, service } = setup();
    const controller = new AbortController();
    const file = new Uint8Array([1, 2, 3, 4]).subarray(1, 3);
    const document = { name: 'policy.pdf' } as never;
    const adding = service.addDocument(document, file, controller.signal);
    const sent = worker.call();
    expect(sent).toMatchObject({ method: 'addDocument', params: [document, new Uint8Array([2, 3]), { rpcSignal: true }] });
    // The caller keeps its bytes; exactly the view's bytes cross, in a buffer of their own.
    expect(file).toEqual(new Uint8Array([2, 3]));
    const crossed = (sent.params as unknown[])[1] as Uint8Array;
    expect(worker.transfers[0]).toEqual([crossed.buffer]);
    expect(crossed.buffer.byteLength).toBe(2);
    const info = { id: 'd1' } as never;
    worker.reply({ rpc: 'reply', id: sent.id, reply: info });
    expect(await adding).toBe(info);

    const page = service.devicePage('d1', 3);
    expect(worker.call(1)).toMatchObject({ method: 'devicePage', params: ['d1', 3] });
    worker.reply({ rpc: 'reply', id: worker.call(1).id, reply: 'page text' });
    expect(await page).toBe('page text');

    const removing = service.removeAllDocuments();
    expect(worker.call(2)).toMatchObject({ method: 'removeAllDocuments', params: [] });
    worker.reply({ rpc: 'reply', id: worker.call(2).id, reply: undefined });
    expect(await removing).toBeUndefined();
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
