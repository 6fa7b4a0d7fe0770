/**
 * The one message protocol between the page and the project's workers (search, document) and of
 * the project's own notices from the web-llm worker. A method map names each method's params, its
 * reply and the events its handler pushes; the client's `call` and the server's handlers are typed
 * from the same map, so a request and its reply cannot drift apart. Aborts (a cancel message) and
 * errors (as {code, message}: a HarelError's class does not survive structured cloning) are
 * handled here once.
 *
 * Every message carries an `rpc` tag, a key that neither web-llm's protocol (`kind`) nor pdf.js's
 * in-worker messages (`action`) use: theirs share the port and are left to them.
 */
import { asHarelError, createError, type ErrorCode, HarelError } from '../core/errors.ts';

export interface Method {
  params: unknown;
  reply: unknown;
  /** What the handler pushes on the call's id before (and, for a follower, after) its reply. */
  event?: unknown;
}

/** A map from method name to its Method. */
export type MethodMap<M> = { [K in keyof M]: Method };
type Name<M> = keyof M & string;
export type EventOf<T> = T extends { event: infer E } ? E : never;

export interface SerializedError {
  code: ErrorCode;
  message: string;
}

export function serializeError(error: unknown): SerializedError {
  const harel = asHarelError(error);
  return { code: harel.code, message: harel.message };
}

export const deserializeError = (error: SerializedError): HarelError => new HarelError(error.code, error.message);

export type RpcCall<M> = { [K in Name<M>]: { rpc: 'call'; id: number; method: K; params: M[K] extends Method ? M[K]['params'] : never } }[Name<M>];
export type RpcRequest<M> = RpcCall<M> | { rpc: 'cancel'; id: number };
type Reply<M> = { [K in Name<M>]: M[K] extends Method ? M[K]['reply'] : never }[Name<M>];
export type RpcResponse<M, N = never> =
  | { rpc: 'reply'; id: number; reply: Reply<M> }
  | { rpc: 'event'; id: number; event: { [K in Name<M>]: EventOf<M[K]> }[Name<M>] }
  | { rpc: 'error'; id: number; error: SerializedError }
  /** Not tied to a call: the worker's own news (the web-llm worker's start, a failure outside a request). */
  | { rpc: 'notice'; notice: N };

const TAGS: ReadonlySet<unknown> = new Set<(RpcRequest<never> | RpcResponse<never>)['rpc']>(['call', 'cancel', 'reply', 'event', 'error', 'notice']);

/** True for this protocol's messages, false for web-llm's or pdf.js's on the same port. */
export function isRpcMessage(data: unknown): boolean {
  return typeof data === 'object' && data !== null && TAGS.has((data as { rpc?: unknown }).rpc);
}

/** The notice a message carries, or null for any other message. */
export function noticeOf<N>(data: unknown): N | null {
  return isRpcMessage(data) && (data as { rpc: string }).rpc === 'notice' ? (data as { notice: N }).notice : null;
}

export interface CallOptions<E> {
  signal?: AbortSignal;
  transfer?: Transferable[];
  /** Each event the handler pushes before its reply. */
  onEvent?: (event: E) => void;
  /** Events pushed after the reply (a load's later info): heard until `until` fires. */
  after?: { onEvent: (event: E) => void; until: AbortSignal };
}

interface Pending {
  resolve(reply: unknown): void;
  reject(error: HarelError): void;
  onEvent?: (event: never) => void;
}

/**
 * The page's side of one worker. Its owner hands it the worker's messages (`receive`, which says
 * whether a message was this protocol's) and its failures (`failAll`).
 */
export class RpcClient<M extends MethodMap<M>, N = never> {
  private nextId = 1;
  private readonly pending = new Map<number, Pending>();
  private readonly followers = new Map<number, (event: never) => void>();

  constructor(
    private readonly post: (message: RpcRequest<M>, transfer: Transferable[]) => void,
    private readonly onNotice?: (notice: N) => void,
  ) {}

  /** Resolves with the method's reply; rejects with its HarelError, or ABORTED at once when the signal fires (the worker is told to stop). */
  call<K extends Name<M>>(method: K, params: M[K]['params'], options: CallOptions<EventOf<M[K]>> = {}): Promise<M[K]['reply']> {
    const { signal, after } = options;
    if (signal?.aborted) return Promise.reject(createError('ABORTED'));
    const id = this.nextId++;
    return new Promise((resolve, reject) => {
      const onAbort = () => {
        this.pending.delete(id);
        this.post({ rpc: 'cancel', id }, []);
        reject(createError('ABORTED'));
      };
      signal?.addEventListener('abort', onAbort, { once: true });
      const stopWatching = () => signal?.removeEventListener('abort', onAbort);
      this.pending.set(id, {
        resolve: (reply) => {
          stopWatching();
          if (after && !after.until.aborted) this.follow(id, after);
          resolve(reply as M[K]['reply']);
        },
        reject: (error) => {
          stopWatching();
          reject(error);
        },
        onEvent: options.onEvent,
      });
      this.post({ rpc: 'call', id, method, params } as RpcCall<M>, options.transfer ?? []);
    });
  }

  receive(data: unknown): boolean {
    if (!isRpcMessage(data)) return false;
    const message = data as RpcResponse<M, N>;
    if (message.rpc === 'notice') {
      this.onNotice?.(message.notice);
      return true;
    }
    const pending = this.pending.get(message.id);
    if (message.rpc === 'event') {
      const event = message.event as never;
      if (pending) pending.onEvent?.(event);
      else this.followers.get(message.id)?.(event);
      return true;
    }
    // Aborted or failed meanwhile, or a followed call's late error: nobody waits for it.
    if (!pending) return true;
    this.pending.delete(message.id);
    if (message.rpc === 'reply') pending.resolve(message.reply);
    else if (message.rpc === 'error') pending.reject(deserializeError(message.error));
    return true;
  }

  /** Rejects every waiting call with `error` and stops every follower (the worker died, or is disposed of). */
  failAll(error: HarelError): void {
    const waiting = [...this.pending.values()];
    this.pending.clear();
    this.followers.clear();
    for (const pending of waiting) pending.reject(error);
  }

  private follow(id: number, after: NonNullable<CallOptions<never>['after']>): void {
    this.followers.set(id, after.onEvent);
    after.until.addEventListener('abort', () => this.followers.delete(id), { once: true });
  }
}

export interface HandlerContext<E> {
  /** Fires when the page cancels the call. */
  signal: AbortSignal;
  emit(event: E): void;
  /** Work that goes on once the reply is posted (a load's query model), its events still on the call's id; its failure reaches nobody. */
  afterReply(work: () => Promise<void>): void;
}

export type Handlers<M> = {
  [K in Name<M>]: M[K] extends Method ? (params: M[K]['params'], context: HandlerContext<EventOf<M[K]>>) => Promise<M[K]['reply']> | M[K]['reply'] : never;
};

/** A worker's global scope, as far as the protocol needs it. */
export interface WorkerScope {
  postMessage(message: unknown, transfer?: Transferable[]): void;
  addEventListener(type: 'message', listener: (event: MessageEvent<unknown>) => void): void;
}

/** The worker's side: answers each call with its handler's reply or error; a cancel aborts the handler's signal. */
export function serve<M extends MethodMap<M>>(scope: WorkerScope, handlers: Handlers<M>): void {
  const running = new Map<number, AbortController>();
  const post = (message: RpcResponse<M>) => scope.postMessage(message);
  // A listener, not onmessage: pdf.js's and web-llm's code may listen on the same port.
  scope.addEventListener('message', (event) => {
    if (!isRpcMessage(event.data)) return;
    const request = event.data as RpcRequest<M>;
    if (request.rpc === 'cancel') {
      running.get(request.id)?.abort();
      return;
    }
    if (request.rpc !== 'call') return;
    const { id } = request;
    const controller = new AbortController();
    running.set(id, controller);
    let later: (() => Promise<void>) | null = null;
    const context: HandlerContext<never> = { signal: controller.signal, emit: (e) => post({ rpc: 'event', id, event: e }), afterReply: (work) => void (later = work) };
    let result: Promise<unknown>;
    try {
      const handler = handlers[request.method] as (params: unknown, context: HandlerContext<never>) => unknown;
      result = Promise.resolve(handler(request.params, context));
    } catch (error) {
      result = Promise.reject(error);
    }
    result
      .then(
        (reply) => {
          post({ rpc: 'reply', id, reply: reply as Reply<M> });
          return later?.().catch(() => undefined);
        },
        (error: unknown) => post({ rpc: 'error', id, error: serializeError(controller.signal.aborted ? createError('ABORTED') : error) }),
      )
      .finally(() => running.delete(id));
  });
}

/** Posts the worker's notices (typed by N) to the page. */
export function notifier<N>(scope: Pick<WorkerScope, 'postMessage'>): (notice: N) => void {
  return (notice) => scope.postMessage({ rpc: 'notice', notice } satisfies RpcResponse<never, N>);
}
