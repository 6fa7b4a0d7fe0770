/**
 * Reads a model's small descriptor files before web-llm starts. web-llm reports a missing file as
 * a bare "Failed to fetch" or a Cache API error with no URL; here the first file that fails names
 * itself, and tensor-cache.json tells how many bytes the weights are before a byte of them moves.
 */
import type { ModelRecord } from '@mlc-ai/web-llm';
import { createError, type HarelError } from '../../core/errors.ts';
import { modelFilesUrl } from './models.ts';
import type { LlmLoadProgress } from './progress.ts';

export interface PreflightResult {
  /** Sum of the weight shards' sizes, or null when tensor-cache.json has no usable records. */
  weightBytes: number | null;
  shards: number;
  /** Every URL read (the UI may show where the model comes from). */
  checked: string[];
}

export interface PreflightOptions {
  signal?: AbortSignal;
  onProgress?: (progress: LlmLoadProgress) => void;
  fetch?: typeof fetch;
}

export async function preflightModel(record: ModelRecord, options: PreflightOptions = {}): Promise<PreflightResult> {
  const doFetch = options.fetch ?? globalThis.fetch.bind(globalThis);
  const files = modelFilesUrl(record);
  const urls = [...(record.model_manifest ? [new URL(record.model_manifest, files).href] : []), new URL('mlc-chat-config.json', files).href, new URL('tensor-cache.json', files).href];
  const checked: string[] = [];
  let tensorCache: unknown = null;
  for (const [i, url] of urls.entries()) {
    options.onProgress?.({ step: 'download', done: i, total: urls.length + 1, detail: fileName(url) });
    const response = await get(doFetch, url, 'GET', record.model_id, options.signal);
    const body: unknown = await response.json().catch(() => {
      throw createError('MODEL_DOWNLOAD_FAILED', url, 'the file is not JSON: is model-base pointing at the right folder?');
    });
    if (url.endsWith('tensor-cache.json')) tensorCache = body;
    checked.push(url);
  }
  options.onProgress?.({ step: 'download', done: urls.length, total: urls.length + 1, detail: fileName(record.model_lib) });
  // HEAD is enough to know the library is there; some static hosts refuse HEAD (405), so only a
  // definite "not found" fails.
  const lib = await get(doFetch, record.model_lib, 'HEAD', record.model_id, options.signal, [405, 501]);
  void lib;
  checked.push(record.model_lib);
  const { weightBytes, shards } = weightSize(tensorCache);
  options.onProgress?.({ step: 'download', done: 0, total: weightBytes, detail: `model weights (${shards} files)` });
  return { weightBytes, shards, checked };
}

/** Total bytes of the shards listed in a tensor-cache.json (`records[].nbytes`). */
export function weightSize(tensorCache: unknown): { weightBytes: number | null; shards: number } {
  const records = (tensorCache as { records?: unknown } | null)?.records;
  if (!Array.isArray(records)) return { weightBytes: null, shards: 0 };
  let total = 0;
  for (const r of records) {
    const n = (r as { nbytes?: unknown }).nbytes;
    if (typeof n !== 'number' || !Number.isFinite(n)) return { weightBytes: null, shards: records.length };
    total += n;
  }
  return { weightBytes: total, shards: records.length };
}

async function get(doFetch: typeof fetch, url: string, method: 'GET' | 'HEAD', modelId: string, signal: AbortSignal | undefined, tolerated: number[] = []): Promise<Response> {
  let response: Response;
  try {
    response = await doFetch(url, { method, signal, cache: 'no-store' });
  } catch (error) {
    throw fetchFailure(error, url, modelId, signal);
  }
  if (!response.ok && !tolerated.includes(response.status)) {
    throw createError('MODEL_DOWNLOAD_FAILED', url, `HTTP ${response.status}${response.statusText ? ` ${response.statusText}` : ''}`);
  }
  return response;
}

function fetchFailure(error: unknown, url: string, modelId: string, signal: AbortSignal | undefined): HarelError {
  if (signal?.aborted || (error instanceof DOMException && error.name === 'AbortError')) {
    return createError('MODEL_LOAD_ABORTED', modelId);
  }
  const reason = error instanceof Error ? error.message : String(error);
  return createError('MODEL_DOWNLOAD_FAILED', url, `network error: ${reason}`);
}

function fileName(url: string): string {
  return url.slice(url.lastIndexOf('/') + 1);
}
