/**
 * The workers' RPC over a real MessageChannel (structured cloning, as between page and worker):
 * typed round trips, events, cancels, errors that keep their codes, notices, and the web-llm
 * port that tells the project's notices from web-llm's own messages.
 */
import { afterEach, describe, expect, expectTypeOf, it } from 'vitest';
import { createError, HarelError, isHarelError } from '../../../widget/core/errors.ts';
import { LlmWorkerPort } from '../../../widget/engines/webllm/worker-port.ts';
import { type Forwarded, forwardCall, forwarders, forwardTo } from '../../../widget/workers/rpc-forward.ts';
import { isRpcMessage, notifier, RpcClient, serve, type WorkerScope } from '../../../widget/workers/rpc.ts';

type Methods = {
  add: { params: { a: number; b: number }; reply: number };
  count: { params: { to: number }; reply: string; event: number };
  wait: { params: null; reply: null };
  fail: { params: { unforeseen: boolean }; reply: null };
};

const ports: MessagePort[] = [];
afterEach(() => {
  for (const port of ports.splice(0)) port.close();
});

/** A served worker and its client over one channel; `cancelled` hears the handler's signal fire. */
function connect<N = never>(onNotice?: (notice: N) => void) {
  const { port1, port2 } = new MessageChannel();
  ports.push(port1, port2);
  const cancelled: string[] = [];
  serve<Methods>(port2 as unknown as WorkerScope, {
    add: ({ a, b }) => a + b,
    count: async ({ to }, { emit }) => {
      for (let i = 1; i <= to; i++) emit(i);
      return `counted to ${to}`;
    },
    wait: (_params, { signal }) =>
      new Promise<null>((_resolve, reject) =>
        signal.addEventListener('abort', () => {
          cancelled.push('wait');
          reject(new Error('stopped'));
        }),
      ),
    fail: ({ unforeseen }) => {
      if (unforeseen) throw new TypeError('x is undefined');
      throw createError('DOCUMENT_NOT_FOUND', 'd1');
    },
  });
  port2.start();
  const client = new RpcClient<Methods, N>((message, transfer) => port1.postMessage(message, transfer), onNotice);
  const foreign: unknown[] = [];
  port1.addEventListener('message', (event) => {
    if (!client.receive(event.data)) foreign.push(event.data);
  });
  port1.start();
  return { client, cancelled, foreign, worker: port2 };
}

describe('RpcClient and serve', () => {
  it("resolves each call with its own method's reply, typed from the method map", async () => {
    const { client } = connect();
    const sum = client.call('add', { a: 2, b: 3 });
    expectTypeOf(sum).resolves.toEqualTypeOf<number>();
    // @ts-expect-error: add's params are {a, b}
    void client.call('add', { a: 2 }).catch(() => undefined);
    // @ts-expect-error: no such method
    void client.call('subtract', { a: 2, b: 3 }).catch(() => undefined);
    const [a, b] = await Promise.all([sum, client.call('add', { a: 10, b: -4 })]);
    expect([a, b]).toEqual([5, 6]);
  });

  it('hands the events of a call to it before its reply', async () => {
    const { client } = connect();
    const heard: number[] = [];
    expect(await client.call('count', { to: 3 }, { onEvent: (n) => heard.push(n) })).toBe('counted to 3');
    expect(heard).toEqual([1, 2, 3]);
  });

  it('aborts: rejects at once with ABORTED, and the handler sees its signal fire', async () => {
    const { client, cancelled } = connect();
    const controller = new AbortController();
    const waiting = client.call('wait', null, { signal: controller.signal });
    await new Promise((resolve) => setTimeout(resolve, 10));
    controller.abort();
    const error = await waiting.catch((e: unknown) => e);
    expect(isHarelError(error, 'ABORTED')).toBe(true);
    await expect.poll(() => cancelled).toEqual(['wait']);
    // A signal that has already fired posts nothing.
    expect(isHarelError(await client.call('add', { a: 1, b: 1 }, { signal: controller.signal }).catch((e: unknown) => e), 'ABORTED')).toBe(true);
  });

  it('rebuilds a HarelError with its code and message; anything else arrives as UNEXPECTED', async () => {
    const { client } = connect();
    const error = await client.call('fail', { unforeseen: false }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(HarelError);
    expect(isHarelError(error, 'DOCUMENT_NOT_FOUND')).toBe(true);
    expect((error as HarelError).message).toBe(createError('DOCUMENT_NOT_FOUND', 'd1').message);
    const unforeseen = await client.call('fail', { unforeseen: true }).catch((e: unknown) => e);
    expect(isHarelError(unforeseen, 'UNEXPECTED')).toBe(true);
    expect((unforeseen as HarelError).message).toContain('x is undefined');
  });

  it('fails every waiting call at once (the worker died)', async () => {
    const { client } = connect();
    const waiting = client.call('wait', null);
    client.failAll(createError('UNEXPECTED', 'the worker failed'));
    expect(isHarelError(await waiting.catch((e: unknown) => e), 'UNEXPECTED')).toBe(true);
  });

  it('leaves messages without its tag to their owners (web-llm, pdf.js), both ways', async () => {
    const { client, foreign, worker } = connect();
    worker.postMessage({ kind: 'return', uuid: 'u1', content: 1 });
    worker.postMessage({ sourceName: 'pdf', targetName: 'main', action: 'ready' });
    expect(await client.call('add', { a: 1, b: 2 })).toBe(3);
    await expect.poll(() => foreign.length).toBe(2);
    expect(isRpcMessage({ kind: 'return' })).toBe(false);
    expect(isRpcMessage(null)).toBe(false);
  });

  it('follows the events a handler pushes after its reply until told to stop', () => {
    const client = new RpcClient<Methods>(() => undefined);
    const heard: number[] = [];
    const until = new AbortController();
    const counting = client.call('count', { to: 0 }, { onEvent: () => heard.push(-1), after: { onEvent: (n) => heard.push(n), until: until.signal } });
    client.receive({ rpc: 'reply', id: 1, reply: 'counted to 0' });
    client.receive({ rpc: 'event', id: 1, event: 7 });
    until.abort();
    client.receive({ rpc: 'event', id: 1, event: 8 });
    expect(heard).toEqual([7]);
    return expect(counting).resolves.toBe('counted to 0');
  });

  it('carries notices, tied to no call', async () => {
    const notices: { type: string }[] = [];
    const { worker } = connect<{ type: 'ready' }>((notice) => notices.push(notice));
    notifier<{ type: 'ready' }>(worker)({ type: 'ready' });
    await expect.poll(() => notices).toEqual([{ type: 'ready' }]);
  });
});

describe('forwarding an interface argument for argument', () => {
  interface Store {
    get(key: string, signal?: AbortSignal): Promise<string>;
    put(key: string, bytes: Uint8Array): Promise<number>;
  }

  it('puts the worker its own signal where the caller passed one, and copies bytes across', async () => {
    const { port1, port2 } = new MessageChannel();
    ports.push(port1, port2);
    const seen: unknown[] = [];
    const store: Store = {
      get: async (key, signal) => {
        seen.push(signal instanceof AbortSignal);
        return `value of ${key}`;
      },
      put: async (_key, bytes) => bytes.length,
    };
    serve(
      port2 as unknown as WorkerScope,
      forwardTo<Store, 'get' | 'put'>(() => store, ['get', 'put']),
    );
    port2.start();
    const client = new RpcClient<Forwarded<Store, 'get' | 'put'>>((message, transfer) => port1.postMessage(message, transfer));
    port1.addEventListener('message', (event) => client.receive(event.data));
    port1.start();
    const remote = forwarders<Store, 'get' | 'put'>(['get', 'put'], (method, args) => forwardCall(() => client, method, args));
    expectTypeOf(remote.get).returns.toEqualTypeOf<Promise<string>>();
    expect(await remote.get('k', new AbortController().signal)).toBe('value of k');
    expect(await remote.get('k')).toBe('value of k');
    expect(seen).toEqual([true, false]);
    expect(await remote.put('k', new Uint8Array(8).subarray(2, 5))).toBe(3);
  });
});

describe('LlmWorkerPort', () => {
  it("keeps the project's notices from web-llm's client and passes web-llm's messages on", () => {
    const listeners: ((event: MessageEvent) => void)[] = [];
    const worker = { addEventListener: (type: string, listener: (event: MessageEvent) => void) => type === 'message' && listeners.push(listener), postMessage() {}, terminate() {} };
    const port = new LlmWorkerPort(worker as unknown as Worker);
    const forwarded: unknown[] = [];
    port.onmessage = (event) => forwarded.push(event.data);
    const send = (data: unknown) => {
      for (const listener of listeners) listener({ data } as MessageEvent);
    };
    notifier({ postMessage: send })({ type: 'ready' });
    notifier({ postMessage: send })({ type: 'error', message: 'Error: boom' });
    send({ kind: 'return', uuid: 'u1', content: 'hi' });
    expect(forwarded).toEqual([{ kind: 'return', uuid: 'u1', content: 'hi' }]);
    expect(port.lastError).toBe('Error: boom');
  });
});
