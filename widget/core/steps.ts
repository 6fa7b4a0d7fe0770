/**
 * Cooperative multitasking for long synchronous loops: the build's (Node), and a customer's document
 * parsed and chunked in a browser worker, whose abort message is a macrotask too.
 *
 * Why: Node runs a signal handler (Ctrl-C → SIGINT → builder/cli/cancellable.ts, which aborts the
 * build's AbortSignal) only when JavaScript hands the event loop a turn. Chunking, twins, lexicon
 * mining, router training and BM25 are pure CPU work of seconds each on a real corpus; run as
 * plain loops they never return to the event loop, so Ctrl-C was seen only once they were done,
 * and the build went on to write. Every long loop of `build` therefore gives the event loop a turn
 * once about SLICE_MS of work has run since the last one (an `await` of setImmediate: a macrotask,
 * because awaiting a resolved promise queues a microtask and lets no signal handler in), then
 * checks the signal and throws ABORTED when it fired.
 *
 * A long pure computation is written once, as a generator that `yield`s between small units of
 * work (a chunk, a line, a term). `finishNow` runs it to the end at once, for in-memory callers
 * and tests; `runSteps` runs it with those pauses and checks, for the build. Async loops that do
 * their own units call `pause` between them. The time since the event loop's last turn is one
 * clock for the whole process (or worker), so nested and successive loops share it.
 */
import { throwIfAborted } from './errors.ts';

/** A long computation that yields between units of work and returns T. */
export type Steps<T> = Generator<unknown, T, undefined>;

/** Work between two turns of the event loop: Ctrl-C (or an abort message) is seen within about this, and the cost is one macrotask per slice. */
export const SLICE_MS = 50;

let lastTurn = performance.now();

/**
 * One macrotask: setImmediate in Node; in a browser (which has none) a MessageChannel message,
 * since setTimeout is clamped to 4 ms or more once nested.
 */
const macrotask = (): Promise<void> => {
  if (typeof setImmediate === 'function') return new Promise((resolve) => setImmediate(resolve));
  return new Promise((resolve) => {
    const channel = new MessageChannel();
    channel.port1.onmessage = () => {
      channel.port1.close();
      resolve();
    };
    channel.port2.postMessage(null);
  });
};

/** Runs the steps to the end without pausing (no signal, no event-loop turns). */
export function finishNow<T>(steps: Steps<T>): T {
  for (;;) {
    const step = steps.next();
    if (step.done) return step.value;
  }
}

/**
 * Between two units of long work: throws ABORTED when the signal fired, and once a slice of work
 * has run since the event loop's last turn, gives it one (Ctrl-C handlers, progress) and checks
 * the signal again.
 */
export async function pause(signal?: AbortSignal): Promise<void> {
  throwIfAborted(signal);
  if (performance.now() - lastTurn < SLICE_MS) return;
  await macrotask();
  lastTurn = performance.now();
  throwIfAborted(signal);
}

/** Runs the steps to the end, pausing (see `pause`) between them. Throws ABORTED when the signal fires. */
export async function runSteps<T>(steps: Steps<T>, signal?: AbortSignal): Promise<T> {
  throwIfAborted(signal);
  for (;;) {
    const step = steps.next();
    if (step.done) return step.value;
    if (performance.now() - lastTurn >= SLICE_MS) await pause(signal);
  }
}

/**
 * Pieces of a long text cut at line breaks (else at spaces) near every `size` characters: tokens
 * and words never span a line break or a space, so working piece by piece gives what the whole
 * text gives, with a yield point between pieces.
 */
export function* textPieces(text: string, size = 65_536): Generator<string, void, undefined> {
  let start = 0;
  while (text.length - start > size) {
    let cut = text.indexOf('\n', start + size);
    if (cut < 0 || cut - start > 4 * size) cut = text.indexOf(' ', start + size);
    if (cut < 0) break;
    yield text.slice(start, cut);
    start = cut;
  }
  yield text.slice(start);
}
