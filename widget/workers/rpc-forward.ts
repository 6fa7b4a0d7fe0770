/**
 * An interface's methods over the RPC (rpc.ts), argument for argument: a method's params on the
 * wire are its arguments, its AbortSignal (wherever it stands) crossing as a cancel and each byte
 * array as a transferred copy (the caller keeps its bytes, the worker owns its own). A method
 * forwarded this way needs no line of its own in the protocol, the worker or the client.
 */
import { createError } from '../core/errors.ts';
import type { HandlerContext, Handlers, MethodMap, RpcClient } from './rpc.ts';

/** Where the caller's signal stood: the worker puts its own (cancelled with the caller's) there. */
const SIGNAL = { rpcSignal: true } as const;
type WireArg<T> = T extends AbortSignal ? typeof SIGNAL : T;

/** The method map of S's methods K, each's params its arguments and its reply what its promise resolves to. */
export type Forwarded<S, K extends keyof S> = {
  [N in K]-?: NonNullable<S[N]> extends (...args: infer A) => infer R ? { params: { [I in keyof A]: WireArg<A[I]> }; reply: Awaited<R> } : never;
};

const isSignal = (arg: unknown) => typeof arg === 'object' && arg !== null && (arg as { rpcSignal?: unknown }).rpcSignal === true;

/** Calls `method` with `args` through the client (not asked for when a signal has already fired). */
export function forwardCall<M extends MethodMap<M>, K extends keyof M & string>(client: () => RpcClient<M>, method: K, args: readonly unknown[]): Promise<M[K]['reply']> {
  let signal: AbortSignal | undefined;
  const transfer: Transferable[] = [];
  const params = args.map((arg) => {
    if (arg instanceof AbortSignal) {
      signal = arg;
      return SIGNAL;
    }
    if (arg instanceof Uint8Array) {
      const copy = arg.slice();
      transfer.push(copy.buffer);
      return copy;
    }
    return arg;
  });
  if ((signal as AbortSignal | undefined)?.aborted) return Promise.reject(createError('ABORTED'));
  return client().call(method, params as M[K]['params'], { signal, transfer });
}

/** S's methods `names`, each forwarded through `call` (the client's side). */
export function forwarders<S, K extends keyof S & string>(names: readonly K[], call: (method: K, args: unknown[]) => Promise<unknown>): Pick<Required<S>, K> {
  const methods: Record<string, unknown> = {};
  for (const name of names) methods[name] = (...args: unknown[]) => call(name, args);
  return methods as Pick<Required<S>, K>;
}

/** Handlers that call `names` on the object `target` returns (which may throw: the call's error). */
export function forwardTo<S, K extends keyof S & string>(target: () => S, names: readonly K[]): Handlers<Forwarded<S, K>> {
  const handlers: Record<string, unknown> = {};
  for (const name of names) {
    handlers[name] = (params: unknown[], { signal }: HandlerContext<never>) => {
      const object = target();
      const method = object[name] as (...args: unknown[]) => unknown;
      return method.apply(
        object,
        params.map((arg) => (isSignal(arg) ? signal : arg)),
      );
    };
  }
  return handlers as Handlers<Forwarded<S, K>>;
}
