/**
 * The Chrome DevTools Protocol on a dedicated worker, from Playwright.
 *
 * Playwright gives no CDP session for a worker (`context.newCDPSession` takes a page or a frame),
 * and a flattened child session cannot be spoken through its CDPSession (it sends no sessionId).
 * What works here (Chromium 156, playwright-core 1.65): a browser-level session lists the worker
 * with `Target.getTargets` (type 'worker'), `Target.attachToTarget` with `flatten: false` gives a
 * session id, and messages go through `Target.sendMessageToTarget`, answers come back as
 * `Target.receivedMessageFromTarget` events.
 */
import type { Browser, CDPSession } from 'playwright-core';

interface TargetInfo {
  targetId: string;
  type: string;
  url: string;
  attached: boolean;
}

export interface HeapUsage {
  /** V8 heap in use (objects, on-heap strings). */
  usedSize: number;
  totalSize: number;
  /** Blink's own heap (Oilpan) objects of this worker. */
  embedderHeapUsedSize?: number;
  /** ArrayBuffer backing stores (the index's typed arrays live there, off the V8 heap). */
  backingStorageSize?: number;
}

/** A CPU profile as `Profiler.stop` returns it. */
export interface CpuProfile {
  nodes: { id: number; callFrame: { functionName: string; url: string; lineNumber: number; columnNumber: number }; children?: number[] }[];
  startTime: number;
  endTime: number;
  samples: number[];
  timeDeltas: number[];
}

export class WorkerCdp {
  private nextId = 0;
  private readonly pending = new Map<number, { resolve(v: unknown): void; reject(e: Error): void }>();
  private readonly listeners = new Map<string, ((params: unknown) => void)[]>();
  private readonly onMessage = (event: { sessionId: string; message: string }) => {
    if (event.sessionId !== this.sessionId) return;
    const m = JSON.parse(event.message) as { id?: number; result?: unknown; error?: { message: string }; method?: string; params?: unknown };
    if (m.id !== undefined) {
      const p = this.pending.get(m.id);
      if (!p) return;
      this.pending.delete(m.id);
      if (m.error) p.reject(new Error(`worker CDP: ${m.error.message}`));
      else p.resolve(m.result);
    } else if (m.method) {
      for (const fn of this.listeners.get(m.method) ?? []) fn(m.params);
    }
  };

  private constructor(
    private readonly session: CDPSession,
    readonly sessionId: string,
    readonly target: TargetInfo,
  ) {
    session.on('Target.receivedMessageFromTarget', this.onMessage);
  }

  /** Attaches to the one worker whose URL matches (waits up to `timeoutMs` for there to be exactly one). */
  static async attach(browser: Browser, urlPattern: RegExp, timeoutMs = 10_000): Promise<WorkerCdp> {
    const session = await browser.newBrowserCDPSession();
    const until = Date.now() + timeoutMs;
    for (;;) {
      const { targetInfos } = (await session.send('Target.getTargets')) as { targetInfos: TargetInfo[] };
      const workers = targetInfos.filter((t) => t.type === 'worker' && urlPattern.test(t.url));
      // A closed page's worker may linger in the list for a moment: wait for it to go.
      if (workers.length === 1) {
        const { sessionId } = (await session.send('Target.attachToTarget', { targetId: workers[0].targetId, flatten: false })) as { sessionId: string };
        return new WorkerCdp(session, sessionId, workers[0]);
      }
      if (Date.now() > until) throw new Error(`${workers.length ? 'more than one' : 'no'} worker matching ${urlPattern} (targets: ${targetInfos.map((t) => `${t.type} ${t.url}`).join(', ')})`);
      await new Promise((r) => setTimeout(r, 50));
    }
  }

  send<T = unknown>(method: string, params: object = {}): Promise<T> {
    const id = ++this.nextId;
    return new Promise<T>((resolve, reject) => {
      this.pending.set(id, { resolve: resolve as (v: unknown) => void, reject });
      this.session.send('Target.sendMessageToTarget', { sessionId: this.sessionId, message: JSON.stringify({ id, method, params }) }).catch(reject);
    });
  }

  on(method: string, fn: (params: unknown) => void): void {
    this.listeners.set(method, [...(this.listeners.get(method) ?? []), fn]);
  }

  /** Heap after a full garbage collection. */
  async heapAfterGc(): Promise<HeapUsage> {
    await this.send('HeapProfiler.collectGarbage');
    return this.send<HeapUsage>('Runtime.getHeapUsage');
  }

  /**
   * Self sizes of a heap snapshot summed by node type. Unlike `getHeapUsage` it also counts what
   * lives outside the V8 heap but is held by it: ArrayBuffer backing stores and external strings
   * (a big TextDecoder result is one) appear as 'native'.
   */
  async snapshotSizes(): Promise<{ total: number; byType: Record<string, number> }> {
    const parts: string[] = [];
    const collect = (params: unknown) => parts.push((params as { chunk: string }).chunk);
    this.on('HeapProfiler.addHeapSnapshotChunk', collect);
    try {
      await this.send('HeapProfiler.takeHeapSnapshot', { reportProgress: false, captureNumericValue: false });
    } finally {
      this.listeners.set('HeapProfiler.addHeapSnapshotChunk', []);
    }
    const snapshot = JSON.parse(parts.join('')) as { snapshot: { meta: { node_fields: string[]; node_types: [string[]] } }; nodes: number[] };
    const fields = snapshot.snapshot.meta.node_fields;
    const stride = fields.length;
    const typeAt = fields.indexOf('type');
    const sizeAt = fields.indexOf('self_size');
    const types = snapshot.snapshot.meta.node_types[0];
    const byType: Record<string, number> = {};
    let total = 0;
    for (let i = 0; i < snapshot.nodes.length; i += stride) {
      const size = snapshot.nodes[i + sizeAt];
      const type = types[snapshot.nodes[i + typeAt]];
      byType[type] = (byType[type] ?? 0) + size;
      total += size;
    }
    return { total, byType };
  }

  async startProfiler(intervalUs = 200): Promise<void> {
    await this.send('Profiler.enable');
    await this.send('Profiler.setSamplingInterval', { interval: intervalUs });
    await this.send('Profiler.start');
  }

  async stopProfiler(): Promise<CpuProfile> {
    const { profile } = await this.send<{ profile: CpuProfile }>('Profiler.stop');
    await this.send('Profiler.disable');
    return profile;
  }

  async detach(): Promise<void> {
    this.session.off('Target.receivedMessageFromTarget', this.onMessage);
    await this.session.send('Target.detachFromTarget', { sessionId: this.sessionId }).catch(() => undefined);
    await this.session.detach().catch(() => undefined);
  }
}

export interface ProfileEntry {
  /** Function name (or '(anonymous)', '(garbage collector)', '(program)', '(idle)'), file and line. */
  fn: string;
  selfMs: number;
  totalMs: number;
}

/** Self and inclusive time per function (name, file, line) of a CPU profile, most self time first. */
export function summarizeProfile(profile: CpuProfile): { durationMs: number; entries: ProfileEntry[] } {
  const byId = new Map(profile.nodes.map((n) => [n.id, n]));
  const parent = new Map<number, number>();
  for (const n of profile.nodes) for (const c of n.children ?? []) parent.set(c, n.id);
  const keyOf = (id: number) => {
    const { functionName, url, lineNumber } = byId.get(id)!.callFrame;
    const file = url ? url.split('/').pop()!.split('?')[0] : '';
    return file ? `${functionName || '(anonymous)'} ${file}:${lineNumber + 1}` : functionName || '(anonymous)';
  };
  const self = new Map<string, number>();
  const total = new Map<string, number>();
  profile.samples.forEach((sample, i) => {
    const dt = (profile.timeDeltas[i + 1] ?? 0) / 1000;
    const key = keyOf(sample);
    self.set(key, (self.get(key) ?? 0) + dt);
    const seen = new Set<string>();
    for (let id: number | undefined = sample; id !== undefined; id = parent.get(id)) {
      const k = keyOf(id);
      if (seen.has(k)) continue;
      seen.add(k);
      total.set(k, (total.get(k) ?? 0) + dt);
    }
  });
  const entries = [...total.keys()].map((fn) => ({ fn, selfMs: self.get(fn) ?? 0, totalMs: total.get(fn)! }));
  entries.sort((a, b) => b.selfMs - a.selfMs);
  return { durationMs: (profile.endTime - profile.startTime) / 1000, entries };
}
