/**
 * The inside of an embedding thread (started by `embedder-pool.ts`): the same embedder as the
 * builder's own thread, on one onnxruntime thread, answering one group of passages at a time.
 */
import { parentPort } from 'node:worker_threads';
import { type ErrorCode, isHarelError } from '../errors.ts';
import { loadEmbedder, type Embedder, type LoadEmbedderOptions } from './embedder.ts';

/** What a thread is given to load: the builder's options less what cannot cross a thread (signal, callbacks). */
export type EmbedWorkerLoadOptions = Omit<LoadEmbedderOptions, 'signal' | 'onProgress'>;

/** Pool → thread. */
export type EmbedWorkerRequest = { type: 'load'; options: EmbedWorkerLoadOptions } | { type: 'embed'; texts: string[] };

/**
 * Thread → pool: one reply a request (a thread has one request at a time, so replies need no id).
 * `vectors` is every vector of the group end to end (transferred, not cloned). A HarelError does
 * not survive the structured clone as one, so its code and message travel.
 */
export type EmbedWorkerReply = { type: 'loaded'; fingerprint: string; dimensions: number } | { type: 'embedded'; vectors: Float32Array } | { type: 'failed'; code: ErrorCode | null; message: string };

const port = parentPort;
if (!port) throw new Error('builder/embed/embed-worker.ts is the entry of a worker thread (builder/embed/embedder-pool.ts starts it)');

let embedder: Embedder | null = null;

port.on('message', async (request: EmbedWorkerRequest) => {
  let reply: EmbedWorkerReply;
  let transfer: ArrayBuffer[] = [];
  try {
    if (request.type === 'load') {
      embedder = await loadEmbedder(request.options);
      reply = { type: 'loaded', fingerprint: embedder.fingerprint, dimensions: embedder.dimensions };
    } else {
      if (!embedder) throw new Error('asked to embed before the model was loaded');
      const vectors = await embedder.embed(request.texts);
      const packed = new Float32Array(vectors.length * embedder.dimensions);
      vectors.forEach((v, i) => packed.set(v, i * embedder!.dimensions));
      reply = { type: 'embedded', vectors: packed };
      transfer = [packed.buffer];
    }
  } catch (error) {
    reply = isHarelError(error) ? { type: 'failed', code: error.code, message: error.message } : { type: 'failed', code: null, message: error instanceof Error ? error.message : String(error) };
  }
  port.postMessage(reply, transfer);
});
