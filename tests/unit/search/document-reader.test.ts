/**
 * The page's side of the document worker, against a fake worker: the parse call with its bytes
 * transferred, progress, pdf.js's own messages left alone, errors with their codes, and the
 * worker terminated once it answers or the read is cancelled.
 */
import { afterEach, describe, expect, it, vi } from 'vitest';
import { isHarelError } from '../../../widget/core/errors.ts';
import { readDeviceDocument } from '../../../widget/search/document-reader.ts';
import type { DocumentMethods } from '../../../widget/workers/document-protocol.ts';
import type { RpcRequest, RpcResponse } from '../../../widget/workers/rpc.ts';

class FakeWorker {
  static started: FakeWorker[] = [];
  onmessage: ((event: MessageEvent<unknown>) => void) | null = null;
  onerror: ((event: ErrorEvent) => void) | null = null;
  sent: { message: RpcRequest<DocumentMethods>; transfer: Transferable[] }[] = [];
  terminated = false;
  constructor() {
    FakeWorker.started.push(this);
  }
  postMessage(message: RpcRequest<DocumentMethods>, transfer: Transferable[] = []) {
    this.sent.push({ message, transfer });
  }
  reply(data: RpcResponse<DocumentMethods> | object) {
    this.onmessage?.({ data } as MessageEvent<unknown>);
  }
  terminate() {
    this.terminated = true;
  }
}

/** The worker of the read just started, once the file's bytes are read. */
async function started(): Promise<FakeWorker> {
  await vi.waitFor(() => expect(FakeWorker.started.length).toBe(1));
  return FakeWorker.started[0];
}

afterEach(() => {
  FakeWorker.started = [];
  vi.unstubAllGlobals();
});

describe('readDeviceDocument', () => {
  it("posts one parse call with the file's bytes transferred, hears its progress and resolves with the parsed document", async () => {
    vi.stubGlobal('Worker', FakeWorker);
    const progress: number[] = [];
    const reading = readDeviceDocument(new Blob([new Uint8Array([37, 80, 68, 70])]), 'policy.pdf', { onProgress: (p) => progress.push(p.done) });
    const worker = await started();
    const { message, transfer } = worker.sent[0];
    expect(message).toMatchObject({ rpc: 'call', method: 'parse', params: { name: 'policy.pdf' } });
    const call = message as Extract<RpcRequest<DocumentMethods>, { rpc: 'call' }>;
    expect(transfer).toEqual([call.params.bytes]);
    // pdf.js's own announcement on the same port is not an answer.
    worker.reply({ sourceName: 'pdfjs', targetName: 'main', action: 'ready' });
    worker.reply({ rpc: 'event', id: call.id, event: { step: 'parse', done: 1, total: 2 } });
    const parsed = { name: 'policy.pdf' } as never;
    worker.reply({ rpc: 'reply', id: call.id, reply: parsed });
    expect(await reading).toBe(parsed);
    expect(progress).toEqual([1]);
    expect(worker.terminated).toBe(true);
  });

  it("rejects with the worker's code and message", async () => {
    vi.stubGlobal('Worker', FakeWorker);
    const reading = readDeviceDocument(new Blob(['x']), 'scan.pdf');
    const worker = await started();
    worker.reply({ rpc: 'error', id: worker.sent[0].message.id, error: { code: 'DOCUMENT_NO_TEXT', message: 'no text layer' } });
    const error = await reading.catch((e: unknown) => e);
    expect(isHarelError(error, 'DOCUMENT_NO_TEXT')).toBe(true);
    expect((error as Error).message).toBe('no text layer');
    expect(worker.terminated).toBe(true);
  });

  it('cancels: rejects with ABORTED at once and terminates the worker', async () => {
    vi.stubGlobal('Worker', FakeWorker);
    const controller = new AbortController();
    const reading = readDeviceDocument(new Blob(['x']), 'big.pdf', { signal: controller.signal });
    const worker = await started();
    controller.abort();
    expect(isHarelError(await reading.catch((e: unknown) => e), 'ABORTED')).toBe(true);
    expect(worker.sent[1].message).toEqual({ rpc: 'cancel', id: worker.sent[0].message.id });
    expect(worker.terminated).toBe(true);
  });

  it('fails the read when the worker cannot start', async () => {
    vi.stubGlobal('Worker', FakeWorker);
    const reading = readDeviceDocument(new Blob(['x']), 'policy.pdf');
    const worker = await started();
    worker.onerror?.({ message: 'blocked', preventDefault() {} } as ErrorEvent);
    const error = await reading.catch((e: unknown) => e);
    expect(isHarelError(error, 'UNEXPECTED')).toBe(true);
    expect((error as Error).message).toContain('the document worker failed: blocked');
    expect(worker.terminated).toBe(true);
  });
});
