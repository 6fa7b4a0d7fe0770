/**
 * Crawl politeness: at most `concurrency` requests in flight overall, and requests to one host
 * started at least its interval apart (robots.txt `Crawl-delay`, or `--delay`). A site that is
 * hammered blocks the crawler or falls over; a crawl that waits on one slow host while others are
 * idle is needlessly slow. Time comes from a Clock so tests can run it on virtual time.
 */
import { createError } from '../errors.ts';

export interface Clock {
  now(): number;
  /** Resolves after `ms`; rejects with the signal's reason when it is aborted first. */
  sleep(ms: number, signal?: AbortSignal): Promise<void>;
}

function abortReason(signal: AbortSignal): unknown {
  return signal.reason ?? new DOMException('The operation was aborted.', 'AbortError');
}

export const systemClock: Clock = {
  now: () => Date.now(),
  sleep: (ms, signal) =>
    new Promise<void>((resolve, reject) => {
      if (signal?.aborted) {
        reject(abortReason(signal));
        return;
      }
      const onAbort = (): void => {
        clearTimeout(timer);
        reject(abortReason(signal as AbortSignal));
      };
      const timer = setTimeout(() => {
        signal?.removeEventListener('abort', onAbort);
        resolve();
      }, ms);
      signal?.addEventListener('abort', onAbort, { once: true });
    }),
};

/**
 * A FIFO counting semaphore whose waits can be aborted. A freed unit is handed straight to the
 * oldest waiter, so a newcomer cannot overtake it and an aborted waiter never holds a unit.
 */
class Semaphore {
  #held = 0;
  readonly #waiters: Array<() => void> = [];

  constructor(readonly capacity: number) {}

  get held(): number {
    return this.#held;
  }

  take(signal?: AbortSignal): Promise<void> {
    if (signal?.aborted) return Promise.reject(abortReason(signal));
    if (this.#held < this.capacity && this.#waiters.length === 0) {
      this.#held++;
      return Promise.resolve();
    }
    return new Promise<void>((resolve, reject) => {
      const grant = (): void => {
        signal?.removeEventListener('abort', onAbort);
        resolve();
      };
      const onAbort = (): void => {
        this.#waiters.splice(this.#waiters.indexOf(grant), 1);
        reject(abortReason(signal as AbortSignal));
      };
      signal?.addEventListener('abort', onAbort, { once: true });
      this.#waiters.push(grant);
    });
  }

  give(): void {
    const next = this.#waiters.shift();
    if (next) next();
    else this.#held--;
  }
}

/** One host's queue: a one-at-a-time gate in front of the start, and when it last started. */
interface Lane {
  gate: Semaphore;
  lastStart: number;
}

export class HostScheduler {
  readonly #slots: Semaphore;
  readonly #clock: Clock;
  readonly #lanes = new Map<string, Lane>();
  readonly #intervals = new Map<string, number>();

  constructor(options: { concurrency: number; clock?: Clock }) {
    if (!Number.isInteger(options.concurrency) || options.concurrency < 1) {
      throw createError('BAD_ARGUMENT', `--concurrency must be a positive integer, not "${options.concurrency}".`);
    }
    this.#slots = new Semaphore(options.concurrency);
    this.#clock = options.clock ?? systemClock;
  }

  /** The least time between two request starts on `host`; 0 (the default) means none. */
  setInterval(host: string, ms: number): void {
    if (!Number.isFinite(ms) || ms < 0) throw createError('BAD_ARGUMENT', `A request interval must be 0 ms or more, not "${ms}".`);
    this.#intervals.set(host, ms);
  }

  /** Requests in flight. */
  get active(): number {
    return this.#slots.held;
  }

  /**
   * Waits for the host's turn, its interval since its previous start and a free slot, then
   * resolves to the function that frees the slot (calling it again does nothing). Rejects with the
   * signal's reason when aborted while waiting.
   */
  async acquire(host: string, signal?: AbortSignal): Promise<() => void> {
    const lane = this.#lane(host);
    // The gate is held from "my turn on this host" until "I started", so the next request to the
    // host measures its interval from this start; requests sleeping out an interval hold no slot,
    // so other hosts go on meanwhile.
    await lane.gate.take(signal);
    try {
      await this.#waitForInterval(host, lane, signal);
      await this.#slots.take(signal);
      lane.lastStart = this.#clock.now();
    } finally {
      lane.gate.give();
    }
    return this.#releaser();
  }

  #lane(host: string): Lane {
    let lane = this.#lanes.get(host);
    if (!lane) {
      lane = { gate: new Semaphore(1), lastStart: Number.NEGATIVE_INFINITY };
      this.#lanes.set(host, lane);
    }
    return lane;
  }

  /** Loops because the interval may grow while sleeping (a Crawl-delay learnt meanwhile). */
  async #waitForInterval(host: string, lane: Lane, signal?: AbortSignal): Promise<void> {
    for (;;) {
      const wait = lane.lastStart + (this.#intervals.get(host) ?? 0) - this.#clock.now();
      if (!(wait > 0)) return;
      await this.#clock.sleep(wait, signal);
    }
  }

  #releaser(): () => void {
    let released = false;
    return () => {
      if (released) return;
      released = true;
      this.#slots.give();
    };
  }
}
