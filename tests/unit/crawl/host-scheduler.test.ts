import { afterEach, describe, expect, it, vi } from 'vitest';
import { HostScheduler, systemClock, type Clock } from '../../../builder/crawl/host-scheduler.ts';
import { isHarelError } from '../../../builder/errors.ts';

/** Virtual time: sleeps resolve only when the test advances the clock past them. */
class FakeClock implements Clock {
  time = 0;
  readonly #timers: { at: number; resolve: () => void }[] = [];

  now(): number {
    return this.time;
  }

  sleep(ms: number, signal?: AbortSignal): Promise<void> {
    if (signal?.aborted) return Promise.reject(signal.reason);
    return new Promise((resolve, reject) => {
      const timer = {
        at: this.time + ms,
        resolve: () => {
          signal?.removeEventListener('abort', onAbort);
          resolve();
        },
      };
      const onAbort = (): void => {
        this.#timers.splice(this.#timers.indexOf(timer), 1);
        reject(signal?.reason);
      };
      signal?.addEventListener('abort', onAbort, { once: true });
      this.#timers.push(timer);
    });
  }

  get pending(): number {
    return this.#timers.length;
  }

  /** Fires timers in time order up to `until` (all of them when omitted), letting promises settle between. */
  async run(until = Number.POSITIVE_INFINITY): Promise<void> {
    for (;;) {
      await settle();
      const next = [...this.#timers].sort((a, b) => a.at - b.at)[0];
      if (next === undefined || next.at > until) break;
      this.#timers.splice(this.#timers.indexOf(next), 1);
      this.time = Math.max(this.time, next.at);
      next.resolve();
    }
    if (Number.isFinite(until)) this.time = Math.max(this.time, until);
  }
}

/** Lets every pending promise continuation run. */
function settle(): Promise<void> {
  return new Promise((resolve) => setImmediate(resolve));
}

interface Start {
  id: string;
  host: string;
  at: number;
}

/** Runs requests through a scheduler on a fake clock, recording when each started and the peak in flight. */
function harness(concurrency: number) {
  const clock = new FakeClock();
  const scheduler = new HostScheduler({ concurrency, clock });
  const starts: Start[] = [];
  let peak = 0;
  const request = async (id: string, host: string, holdMs: number, signal?: AbortSignal): Promise<void> => {
    const release = await scheduler.acquire(host, signal);
    starts.push({ id, host, at: clock.now() });
    peak = Math.max(peak, scheduler.active);
    await clock.sleep(holdMs);
    release();
  };
  return { clock, scheduler, starts, request, peak: () => peak };
}

function startTimes(starts: Start[], host?: string): number[] {
  return starts.filter((s) => host === undefined || s.host === host).map((s) => s.at);
}

describe('HostScheduler: per-host interval', () => {
  it('starts requests to one host at least the interval apart, even when they wait together', async () => {
    const { clock, scheduler, starts, request } = harness(4);
    scheduler.setInterval('a', 1000);
    const done = Promise.all([request('1', 'a', 10), request('2', 'a', 10), request('3', 'a', 10)]);
    await clock.run();
    await done;
    expect(startTimes(starts)).toEqual([0, 1000, 2000]);
  });

  it('measures the interval from the previous start, not its end', async () => {
    const { clock, scheduler, starts, request } = harness(4);
    scheduler.setInterval('a', 1000);
    const done = Promise.all([request('long', 'a', 5000), request('next', 'a', 10)]);
    await clock.run();
    await done;
    expect(startTimes(starts)).toEqual([0, 1000]);
  });

  it('does not let hosts delay each other', async () => {
    const { clock, scheduler, starts, request } = harness(4);
    scheduler.setInterval('a', 1000);
    scheduler.setInterval('b', 300);
    const done = Promise.all([request('a1', 'a', 10), request('a2', 'a', 10), request('b1', 'b', 10), request('b2', 'b', 10), request('c1', 'c', 10)]);
    await clock.run();
    await done;
    expect(startTimes(starts, 'a')).toEqual([0, 1000]);
    expect(startTimes(starts, 'b')).toEqual([0, 300]);
    expect(startTimes(starts, 'c')).toEqual([0]);
  });

  it('holds no slot while a request sleeps out its interval', async () => {
    const { clock, scheduler, starts, request } = harness(1);
    scheduler.setInterval('a', 1000);
    const early = [request('a1', 'a', 10), request('a2', 'a', 10)];
    // b1 arrives after a2 is already waiting, so a2 would be first in line for the slot.
    await clock.run(5);
    const done = Promise.all([...early, request('b1', 'b', 10)]);
    await clock.run();
    await done;
    expect(starts).toEqual([
      { id: 'a1', host: 'a', at: 0 },
      { id: 'b1', host: 'b', at: 10 },
      { id: 'a2', host: 'a', at: 1000 },
    ]);
  });

  it('applies an interval raised while a request is already waiting (a Crawl-delay learnt late)', async () => {
    const { clock, scheduler, starts, request } = harness(2);
    scheduler.setInterval('a', 100);
    const done = Promise.all([request('1', 'a', 10), request('2', 'a', 10)]);
    await clock.run(50);
    scheduler.setInterval('a', 2000);
    await clock.run();
    await done;
    expect(startTimes(starts)).toEqual([0, 2000]);
  });

  it('keeps starts spaced when both the interval and the slots are tight', async () => {
    const { clock, scheduler, starts, request, peak } = harness(2);
    scheduler.setInterval('a', 100);
    scheduler.setInterval('b', 100);
    const requests: Promise<void>[] = [];
    for (let i = 0; i < 6; i++) requests.push(request(`a${i}`, 'a', 250), request(`b${i}`, 'b', 250));
    const done = Promise.all(requests);
    await clock.run();
    await done;
    expect(peak()).toBe(2);
    for (const host of ['a', 'b']) {
      const times = startTimes(starts, host);
      expect(times).toHaveLength(6);
      for (let i = 1; i < times.length; i++) expect(times[i] - times[i - 1]).toBeGreaterThanOrEqual(100);
    }
    expect(scheduler.active).toBe(0);
  });
});

describe('HostScheduler: global concurrency', () => {
  it('never exceeds the bound and serves waiters first come, first served', async () => {
    const { clock, scheduler, starts, request, peak } = harness(2);
    const done = Promise.all(['1', '2', '3', '4', '5'].map((id) => request(id, `host-${id}`, 100)));
    await clock.run();
    await done;
    expect(peak()).toBe(2);
    expect(starts.map((s) => [s.id, s.at])).toEqual([
      ['1', 0],
      ['2', 0],
      ['3', 100],
      ['4', 100],
      ['5', 200],
    ]);
    expect(scheduler.active).toBe(0);
  });

  it('counts active slots and makes release idempotent', async () => {
    const scheduler = new HostScheduler({ concurrency: 2, clock: new FakeClock() });
    const first = await scheduler.acquire('a');
    await scheduler.acquire('b');
    expect(scheduler.active).toBe(2);
    first();
    first();
    expect(scheduler.active).toBe(1);
  });

  it('rejects a concurrency that is not a positive integer', () => {
    for (const concurrency of [0, -1, 1.5, Number.NaN]) {
      let caught: unknown;
      try {
        new HostScheduler({ concurrency });
      } catch (error) {
        caught = error;
      }
      expect(isHarelError(caught, 'BAD_ARGUMENT')).toBe(true);
    }
    expect(() => new HostScheduler({ concurrency: 1 }).setInterval('a', -5)).toThrowError(/0 ms or more/);
  });
});

describe('HostScheduler: abort', () => {
  it('rejects at once for an already aborted signal, taking nothing', async () => {
    const scheduler = new HostScheduler({ concurrency: 1, clock: new FakeClock() });
    const reason = new Error('stop');
    await expect(scheduler.acquire('a', AbortSignal.abort(reason))).rejects.toBe(reason);
    expect(scheduler.active).toBe(0);
    const release = await scheduler.acquire('a');
    expect(scheduler.active).toBe(1);
    release();
  });

  it('rejects a request waiting for a slot and leaks no slot', async () => {
    const clock = new FakeClock();
    const scheduler = new HostScheduler({ concurrency: 1, clock });
    const holder = await scheduler.acquire('a');
    const controller = new AbortController();
    const waiting = scheduler.acquire('b', controller.signal);
    const after = scheduler.acquire('c');
    await settle();
    controller.abort();
    await expect(waiting).rejects.toMatchObject({ name: 'AbortError' });
    expect(scheduler.active).toBe(1);
    holder();
    const third = await after;
    expect(scheduler.active).toBe(1);
    third();
    expect(scheduler.active).toBe(0);
  });

  it('rejects a request sleeping out its interval and lets the next one on the host go on time', async () => {
    const { clock, scheduler, starts, request } = harness(4);
    scheduler.setInterval('a', 1000);
    const controller = new AbortController();
    const first = request('1', 'a', 10);
    const aborted = request('2', 'a', 10, controller.signal);
    const third = request('3', 'a', 10);
    await clock.run(500);
    expect(clock.pending).toBe(1);
    controller.abort(new Error('user cancelled'));
    await expect(aborted).rejects.toThrowError('user cancelled');
    await clock.run();
    await Promise.all([first, third]);
    expect(starts.map((s) => [s.id, s.at])).toEqual([
      ['1', 0],
      ['3', 1000],
    ]);
    expect(scheduler.active).toBe(0);
    expect(clock.pending).toBe(0);
  });

  it('rejects a request queued behind another on the same host', async () => {
    const { clock, scheduler, starts, request } = harness(1);
    scheduler.setInterval('a', 1000);
    const controller = new AbortController();
    const first = request('1', 'a', 10);
    const second = request('2', 'a', 10);
    const aborted = request('3', 'a', 10, controller.signal);
    await clock.run(100);
    controller.abort();
    await expect(aborted).rejects.toMatchObject({ name: 'AbortError' });
    await clock.run();
    await Promise.all([first, second]);
    expect(startTimes(starts)).toEqual([0, 1000]);
    expect(scheduler.active).toBe(0);
  });
});

describe('systemClock', () => {
  afterEach(() => {
    vi.useRealTimers();
  });

  it('sleeps for the given time', async () => {
    vi.useFakeTimers();
    let done = false;
    const sleeping = systemClock.sleep(1000).then(() => {
      done = true;
    });
    await vi.advanceTimersByTimeAsync(999);
    expect(done).toBe(false);
    await vi.advanceTimersByTimeAsync(1);
    await sleeping;
    expect(done).toBe(true);
  });

  it("rejects with the signal's reason when aborted, clearing its timer", async () => {
    vi.useFakeTimers();
    const controller = new AbortController();
    const sleeping = systemClock.sleep(60_000, controller.signal);
    expect(vi.getTimerCount()).toBe(1);
    controller.abort(new Error('enough'));
    await expect(sleeping).rejects.toThrowError('enough');
    expect(vi.getTimerCount()).toBe(0);
  });

  it('rejects with an AbortError for an already aborted signal', async () => {
    await expect(systemClock.sleep(10, AbortSignal.abort())).rejects.toMatchObject({ name: 'AbortError' });
  });

  it('reads the real time', () => {
    vi.useFakeTimers({ now: 123_456 });
    expect(systemClock.now()).toBe(123_456);
  });
});
