/**
 * The reader's model file: the committed LoRA adapter (training/reader/adapter/) merged into the
 * PyPI Gemma, written to `<root>/gguf/gemma-3-270m-harel-reader.gguf` with its sha256 beside it.
 * Plain Node, no training stack. Nothing is lost on a failure: the merge goes to a temporary file
 * that is checked (length and sha256 read back) before it is renamed into place, and the base is
 * only read. A reader already written from the same base and adapter is kept.
 */
import { createHash } from 'node:crypto';
import { createReadStream } from 'node:fs';
import { open, readFile, rename, rm, stat, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { createError, isHarelError } from '../errors.ts';
import { readGgufMetadata, readGgufTensors } from '../../widget/core/format/gguf-file.ts';
import type { WorkOptions } from '../../widget/core/schema.ts';
import { pause } from '../../widget/core/steps.ts';
import { GEMMA_PATH, GEMMA_SOURCE } from './gemma-pypi.ts';
import { planLoraMerge, type MergedType } from './gguf-lora-merge.ts';
import { readLoraAdapter } from './lora-adapter.ts';

export const READER_FILE = 'gemma-3-270m-harel-reader.gguf';
/** Where the reader lies under the models folder (and under `model-base`). */
export const READER_PATH = `gguf/${READER_FILE}`;
export const READER_NAME = 'Gemma 3 270M Harel reader';
/** The adapter the repository ships. */
export const DEFAULT_ADAPTER = fileURLToPath(new URL('../../training/reader/adapter/', import.meta.url));
/** Chosen by measurement (training/reader/adapter/README.md): Q8_0 replies as F16 does, at half the added bytes. */
export const DEFAULT_MERGED_TYPE: MergedType = 'Q8_0';

export interface WriteReaderResult {
  path: string;
  bytes: number;
  sha256: string;
  reused: boolean;
  /** Adapted tensors merged (0 when reused). */
  merged: number;
  adapterSha256: string;
  ms: number;
}

export async function sha256File(path: string, onBytes?: (n: number) => void): Promise<string> {
  const hash = createHash('sha256');
  for await (const chunk of createReadStream(path, { highWaterMark: 1 << 22 })) {
    hash.update(chunk as Buffer);
    onBytes?.((chunk as Buffer).length);
  }
  return hash.digest('hex');
}

/** Reads a written file back: its length and sha256 must be what was written, else READER_MERGE_INCOMPLETE. */
export async function verifyWrittenFile(path: string, bytes: number, sha256: string): Promise<void> {
  const size = (await stat(path)).size;
  if (size !== bytes) throw createError('READER_MERGE_INCOMPLETE', path, `${size} bytes on disk where ${bytes} were written: cut short`);
  const digest = await sha256File(path);
  if (digest !== sha256) throw createError('READER_MERGE_INCOMPLETE', path, `sha256 ${digest} read back, ${sha256} written`);
}

export async function writeGemmaReader(
  root: string,
  options: WorkOptions & {
    adapter?: string;
    type?: MergedType;
    log?: (line: string) => void;
    /** The base the adapter was trained on: the PyPI Gemma's pinned sha256 (another only in tests). */
    baseSha256?: string;
  } = {},
): Promise<WriteReaderResult> {
  const started = performance.now();
  const { signal, onProgress, log = () => undefined } = options;
  const type = options.type ?? DEFAULT_MERGED_TYPE;
  const adapter = await readLoraAdapter(options.adapter ?? DEFAULT_ADAPTER);
  const basePath = join(root, GEMMA_PATH);
  const target = join(root, READER_PATH);
  const record = `${target}.sha256`;
  const baseSha256 = options.baseSha256 ?? GEMMA_SOURCE.sha256;
  const metadata = [
    ['general.name', READER_NAME],
    ['harel.reader.base_sha256', baseSha256],
    ['harel.reader.adapter_sha256', adapter.weightsSha256],
    ['harel.reader.adapter_config_sha256', adapter.configSha256],
    ['harel.reader.merge', `LoRA rank ${adapter.rank}, alpha ${adapter.alpha}, ${adapter.pairs.length} tensors merged as ${type}`],
  ] as const;

  const kept = await keptReader(target, record, metadata);
  if (kept) return { path: target, ...kept, reused: true, merged: 0, adapterSha256: adapter.weightsSha256, ms: performance.now() - started };

  let base: Buffer;
  try {
    base = await readFile(basePath);
  } catch (error) {
    throw createError('MODEL_FILE_INVALID', basePath, `it cannot be read (${error instanceof Error ? error.message : String(error)})`);
  }
  const baseSha = createHash('sha256').update(base).digest('hex');
  if (baseSha !== baseSha256) throw createError('READER_BASE_MISMATCH', basePath, baseSha, baseSha256);
  const plan = planLoraMerge(base, adapter, { type, metadata, file: basePath });

  const temporary = `${target}.tmp-${process.pid}`;
  const hash = createHash('sha256');
  try {
    const out = await open(temporary, 'w');
    try {
      let done = 0;
      for (const piece of plan.pieces) {
        await out.write(piece.bytes);
        hash.update(piece.bytes);
        if (piece.tensor) onProgress?.({ step: 'merge', done: ++done, total: plan.merged, detail: piece.tensor });
        await pause(signal);
      }
    } finally {
      await out.close();
    }
    const digest = hash.digest('hex');
    await verifyWrittenFile(temporary, plan.bytes, digest);
    await rename(temporary, target);
    await writeFile(record, `${digest}\n`);
    const ms = performance.now() - started;
    log(`reader: ${plan.merged} tensors of ${options.adapter ?? 'training/reader/adapter'} merged as ${type} in ${(ms / 1000).toFixed(1)} s, sha256 ${digest}`);
    return { path: target, bytes: plan.bytes, sha256: digest, reused: false, merged: plan.merged, adapterSha256: adapter.weightsSha256, ms };
  } catch (error) {
    await rm(temporary, { force: true });
    if (isHarelError(error)) throw error;
    throw createError('READER_MERGE_INCOMPLETE', target, error instanceof Error ? error.message : String(error));
  }
}

/** The reader already on disk when it was merged from these inputs and is intact (its recorded sha256 read back). */
async function keptReader(target: string, record: string, metadata: ReadonlyArray<readonly [string, string]>): Promise<{ bytes: number; sha256: string } | null> {
  let recorded: string;
  try {
    recorded = (await readFile(record, 'utf8')).trim();
  } catch {
    return null;
  }
  try {
    const handle = await open(target, 'r');
    let head: Uint8Array;
    try {
      head = new Uint8Array(16 << 20);
      head = head.subarray(0, (await handle.read(head, 0, head.length, 0)).bytesRead);
    } finally {
      await handle.close();
    }
    const meta = readGgufMetadata(head, target);
    readGgufTensors(head, meta, target);
    if (!metadata.every(([key, value]) => meta.values.get(key) === value)) return null;
    const size = (await stat(target)).size;
    return (await sha256File(target)) === recorded ? { bytes: size, sha256: recorded } : null;
  } catch {
    return null;
  }
}
