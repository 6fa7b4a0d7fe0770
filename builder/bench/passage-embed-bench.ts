/**
 * Passage embedding in Node, as `build` embeds (builder/embed/embedder.ts): passages per second
 * on a seeded sample of a real index's chunks, for each setting asked, with the arithmetic it
 * does (FLOP per passage from E5-small's shape and the tokens it runs, padding included) and the
 * cosine of every vector against the first setting's. Never asserted in tests.
 *
 *   npx tsx builder/bench/passage-embed-bench.ts --index .tmp/harel [--sample 384] [--settings workers=2,batch=1 ...]
 *   npm run bench -- --embed-only [--embed-sample 384]     (the same, in the bench's report)
 */
import { cpus, loadavg } from 'node:os';
import { resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { passageText } from '../../widget/core/embedding/passage-text.ts';
import { parseScriptArgs } from '../../tools/script-args.ts';
import { loadEmbedder, type Embedder } from '../embed/embedder.ts';
import { defaultEmbedWorkers, loadEmbedderPool } from '../embed/embedder-pool.ts';
import { defaultEmbedder } from '../embed/local-model.ts';
import { PASSAGE_PREFIX } from '../embed/defaults.ts';
import { readIndexFolder } from '../read-index-folder.ts';

/** E5-small: 12 layers of hidden 384, feed-forward 1,536. */
const LAYERS = 12;
const HIDDEN = 384;
const FFN = 1536;
/** Multiply-adds of the dense layers per token: q, k, v, o and the two feed-forward matrices. */
const LINEAR_MACS_PER_TOKEN = LAYERS * (4 * HIDDEN * HIDDEN + 2 * HIDDEN * FFN);

/** FLOP of one sequence of `length` tokens: the dense layers, and attention's two T×T products. */
export function flopOf(length: number): number {
  return 2 * LINEAR_MACS_PER_TOKEN * length + 2 * LAYERS * 2 * length * length * HIDDEN;
}

export interface EmbedSetting {
  /** Worker threads (builder/embed/embedder-pool.ts); 0: the builder's own thread only, as before the pool. */
  workers: number;
  /** onnxruntime's intra-op threads on the builder's thread (0: its default); with workers, one each. */
  threads: number;
  batch: number;
}

export interface EmbedSettingResult extends EmbedSetting {
  passagesPerSecond: number;
  ms: number;
  /** Work actually done: every batch runs padded to its longest passage. */
  gflop: number;
  gflopPerSecond: number;
  minCosine: number;
  loadavg: number[];
}

const cosine = (a: Float32Array, b: Float32Array) => {
  let dot = 0;
  for (let i = 0; i < a.length; i++) dot += a[i] * b[i];
  return dot;
};

function seededSample<T>(items: readonly T[], n: number, seed = 1234): T[] {
  let s = seed >>> 0;
  const next = () => {
    s = (s * 1664525 + 1013904223) >>> 0;
    return s / 2 ** 32;
  };
  const copy = items.slice();
  for (let i = copy.length - 1; i > 0; i--) {
    const j = Math.floor(next() * (i + 1));
    [copy[i], copy[j]] = [copy[j], copy[i]];
  }
  return copy.slice(0, Math.min(n, copy.length));
}

/** The FLOP that embedding `lengths` in batches of `batch` (sorted by length, as the embedder does) costs. */
function paddedFlop(lengths: readonly number[], batch: number): number {
  const sorted = lengths.slice().sort((a, b) => a - b);
  let flop = 0;
  for (let i = 0; i < sorted.length; i += batch) {
    const group = sorted.slice(i, i + batch);
    flop += group.length * flopOf(Math.min(512, group[group.length - 1]));
  }
  return flop;
}

export const USAGE = `usage: npx tsx builder/bench/passage-embed-bench.ts [options]

  --index <dir>        an index build whose chunks are sampled (default .tmp/harel)
  --sample <n>         passages, seeded (default 384)
  --model-dir <dir>    where models fetch put E5 (default models)
  --settings <spec>    workers=W,threads=N,batch=M (repeatable); threads=N: one session on the builder's
                       thread (0: onnxruntime's default); workers=W: the pool's W threads, one each.
                       Default: threads=0,batch=16 (the builder before its pool) and workers=<cores>,batch=1
                       (the build now); the first is the cosine reference
`;

export interface PassageEmbedFigures {
  index: string;
  sample: number;
  chunks: number;
  tokens: { mean: number; p50: number; max: number };
  /** GFLOP of a passage of the mean length. */
  gflopPerMeanPassage: number;
  cores: number;
  settings: EmbedSettingResult[];
}

/** Parses `workers=2,batch=1` / `threads=2,batch=16`. */
export function parseEmbedSetting(spec: string): EmbedSetting {
  const parts = Object.fromEntries(spec.split(',').map((kv) => kv.split('=') as [string, string]));
  return { workers: Number(parts.workers ?? 0), threads: Number(parts.threads ?? 0), batch: Number(parts.batch ?? 16) };
}

/** The builder before its pool, then the pool as the build runs it: the two figures that matter. */
export const DEFAULT_EMBED_SETTINGS = ['threads=0,batch=16', `workers=${defaultEmbedWorkers()},batch=1`];

/** Embeds a seeded sample of `index`'s passages under each setting; a line per setting through `log`. */
export async function measurePassageEmbedding(
  options: { index: string; sample: number; modelDir: string; settings: readonly EmbedSetting[] },
  log: (line: string) => void = (line) => console.log(line),
): Promise<PassageEmbedFigures> {
  const index = await readIndexFolder(options.index);
  const sample = seededSample(index.chunks, options.sample);
  const texts = sample.map((c) => passageText(c, index.documents[c.doc]));
  const modelDir = resolve(options.modelDir);
  const model = await defaultEmbedder(undefined, modelDir);
  let reference: Float32Array[] | null = null;
  let lengths: number[] | null = null;
  const results: EmbedSettingResult[] = [];
  for (const setting of options.settings) {
    const loadOptions = { model, modelDir, prefix: PASSAGE_PREFIX, batchSize: setting.batch };
    const embedder: Embedder = setting.workers ? await loadEmbedderPool({ ...loadOptions, workers: setting.workers, minTexts: 1 }) : await loadEmbedder({ ...loadOptions, threads: setting.threads });
    // Windows of 512 at most: the embedder splits longer passages (core/embedding/windows.ts).
    lengths ??= texts.map((t) => embedder.countTokens(PASSAGE_PREFIX + t));
    // Warm-up (allocation, first-run kernels; the pool's threads start here, so their load is not timed).
    await embedder.embed(texts.slice(0, Math.max(setting.batch, setting.workers * 8)));
    const start = performance.now();
    const vectors = await embedder.embed(texts);
    const ms = performance.now() - start;
    await embedder.dispose();
    reference ??= vectors;
    const minCosine = Math.min(...vectors.map((v, i) => cosine(v, (reference as Float32Array[])[i])));
    const gflop = paddedFlop(lengths, setting.batch) / 1e9;
    const result = { ...setting, passagesPerSecond: texts.length / (ms / 1000), ms, gflop, gflopPerSecond: gflop / (ms / 1000), minCosine, loadavg: loadavg() };
    results.push(result);
    log(
      `${setting.workers ? `${setting.workers} embedding threads` : `one session, threads ${setting.threads || 'default'}`}, batch ${setting.batch}: ${result.passagesPerSecond.toFixed(1)} passages/s (${(ms / 1000).toFixed(1)} s), ` +
        `${result.gflopPerSecond.toFixed(1)} GFLOP/s of ${gflop.toFixed(0)} GFLOP, min cosine ${minCosine.toFixed(5)} to the first, load ${result.loadavg.map((x) => x.toFixed(1)).join(' ')}`,
    );
  }
  const sorted = (lengths ?? []).slice().sort((a, b) => a - b);
  const mean = sorted.reduce((a, b) => a + b, 0) / Math.max(1, sorted.length);
  const figures: PassageEmbedFigures = {
    index: options.index,
    sample: texts.length,
    chunks: index.chunks.length,
    tokens: { mean, p50: sorted[sorted.length >> 1] ?? 0, max: sorted[sorted.length - 1] ?? 0 },
    gflopPerMeanPassage: flopOf(mean) / 1e9,
    cores: cpus().length,
    settings: results,
  };
  log(
    `sample ${texts.length} of ${index.chunks.length} chunks; tokens mean ${mean.toFixed(0)}, p50 ${figures.tokens.p50}, max ${figures.tokens.max}; ` +
      `${figures.gflopPerMeanPassage.toFixed(2)} GFLOP a mean passage; ${cpus().length} cores (${cpus()[0]?.model ?? '?'})`,
  );
  return figures;
}

async function main(): Promise<void> {
  const { values } = parseScriptArgs(USAGE, {
    options: {
      index: { type: 'string', default: '.tmp/harel' },
      sample: { type: 'string', default: '384' },
      'model-dir': { type: 'string', default: 'models' },
      settings: { type: 'string', multiple: true },
    },
  });
  await measurePassageEmbedding({
    index: String(values.index),
    sample: Number(values.sample),
    modelDir: String(values['model-dir']),
    settings: ((values.settings as string[] | undefined) ?? DEFAULT_EMBED_SETTINGS).map(parseEmbedSetting),
  });
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) await main();
