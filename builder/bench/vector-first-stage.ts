/**
 * How little of the vector set a first stage may read and still find what the full scan finds
 * (issue 56 item 2): recall@30 against the full int8 scan, and the bytes a widget would fetch for
 * it, for two first stages:
 * - **IVF**: spherical k-means lists (trained on a seeded sample), the query's nearest `probes`
 *   lists fetched and rescored exactly; the bytes are the centroids plus those lists' int8 vectors;
 * - **binary codes**: one sign bit a dimension (48 bytes at 384), every code scanned by Hamming
 *   distance, the best `rescore` rescored exactly with their int8 vectors;
 * - **product quantisation**: `parts` bytes a vector (each piece of the vector the nearest of 256
 *   centroids), every code scanned by table lookups, the best `rescore` rescored exactly.
 * The first stages read the vectors less their mean (see `measure`).
 * On the index's own vectors and questions (real E5), and on a larger set made from them
 * (`--scale`): each made vector is a real one plus Gaussian noise, normalised, the noise sized so a
 * copy's cosine to its source is the real vectors' median nearest-neighbour cosine, so the made
 * set is as crowded as the real one is (the bench's synthetic corpora carry no vectors).
 *
 *   npx tsx builder/bench/vector-first-stage.ts --index .tmp/harel-e5 --model-dir models \
 *     --questions ../shared/data/harel/questions/dev-v2.json [--scale 200000] [--json f]
 *
 * A measure that steers the design, never asserted in tests (docs/benchmarks.md).
 */
import { writeFile } from 'node:fs/promises';
import { parseArgs } from 'node:util';
import { dequantizeDot, packVectors } from '../../widget/core/format/int8.ts';
import type { VectorTable } from '../../widget/core/format/vector-file.ts';
import { cachedQueryEmbedder } from '../eval/fit/query-vectors.ts';
import { loadQuestions } from '../eval/questions.ts';
import { seededRandom } from '../eval/seeded-random.ts';
import { readIndexFolder } from '../read-index-folder.ts';

const USAGE = `usage: npx tsx builder/bench/vector-first-stage.ts --index <dir> --model-dir <dir> --questions <file> [--questions <file>]…
  [--scale <n>] [--lists <n>] [--probes 2,4,8,16,32] [--rescore 100,300,1000] [--parts 16,24,48] [--k 30] [--seed 55] [--vectors-cache <file>] [--json <file>]`;

function gaussian(next: () => number): number {
  return Math.sqrt(-2 * Math.log(1 - next())) * Math.cos(2 * Math.PI * next());
}

function normalise(v: Float32Array): Float32Array {
  let n = 0;
  for (const x of v) n += x * x;
  const s = n > 0 ? 1 / Math.sqrt(n) : 1;
  for (let i = 0; i < v.length; i++) v[i] *= s;
  return v;
}

function dot(a: Float32Array, b: Float32Array, offset = 0): number {
  let s = 0;
  for (let i = 0; i < a.length; i++) s += a[i] * b[offset + i];
  return s;
}

/** The table's vectors as float rows, one Float32Array over all of them. */
function dequantise(table: VectorTable): Float32Array {
  const out = new Float32Array(table.count * table.dim);
  for (let i = 0; i < table.count; i++) for (let j = 0; j < table.dim; j++) out[i * table.dim + j] = table.data[i * table.dim + j] * table.scales[i];
  return out;
}

function topK(scores: Float32Array | Float64Array, k: number, among?: Iterable<number>): number[] {
  const ids = among ? [...among] : Array.from({ length: scores.length }, (_, i) => i);
  return ids.sort((a, b) => scores[b] - scores[a]).slice(0, k);
}

/** The median cosine between a sampled real vector and its nearest other vector. */
function medianNearest(rows: Float32Array, dim: number, next: () => number, sample = 300): number {
  const count = rows.length / dim;
  const nearest: number[] = [];
  for (let s = 0; s < sample; s++) {
    const i = Math.floor(next() * count);
    const v = rows.subarray(i * dim, (i + 1) * dim);
    let best = -1;
    for (let j = 0; j < count; j++) if (j !== i) best = Math.max(best, dot(v, rows, j * dim));
    nearest.push(best);
  }
  nearest.sort((a, b) => a - b);
  return nearest[Math.floor(nearest.length / 2)];
}

/**
 * `target` vectors: the real ones, then copies of random real ones with noise of the size that
 * puts a copy at cosine `cosine` from its source (for unit vectors in d dimensions, noise of
 * σ per dimension gives cosine ≈ 1 / sqrt(1 + d σ²)).
 */
function scaleUp(rows: Float32Array, dim: number, target: number, cosine: number, next: () => number): Float32Array {
  const count = rows.length / dim;
  const out = new Float32Array(target * dim);
  out.set(rows.subarray(0, Math.min(count, target) * dim));
  const sigma = Math.sqrt((1 / (cosine * cosine) - 1) / dim);
  for (let i = count; i < target; i++) {
    const source = Math.floor(next() * count);
    const v = new Float32Array(dim);
    for (let j = 0; j < dim; j++) v[j] = rows[source * dim + j] + sigma * gaussian(next);
    out.set(normalise(v), i * dim);
  }
  return out;
}

interface Lists {
  centroids: Float32Array;
  members: number[][];
}

/** k-means (spherical by default: by cosine, centroids normalised): `lists` centroids trained on a sample of at most `sample` rows, then every row assigned. */
function kMeans(rows: Float32Array, dim: number, lists: number, next: () => number, iterations = 12, sample = 40_000, spherical = true): Lists {
  const count = rows.length / dim;
  const picked = count <= sample ? Array.from({ length: count }, (_, i) => i) : Array.from({ length: sample }, () => Math.floor(next() * count));
  const randomRow = (): Float32Array => {
    const id = picked[Math.floor(next() * picked.length)];
    return rows.subarray(id * dim, (id + 1) * dim);
  };
  const centroids = new Float32Array(lists * dim);
  for (let c = 0; c < lists; c++) centroids.set(randomRow(), c * dim);
  const nearestList = (offset: number): number => {
    let best = 0;
    let bestScore = -Infinity;
    for (let c = 0; c < lists; c++) {
      let s = 0;
      if (spherical) for (let j = 0; j < dim; j++) s += centroids[c * dim + j] * rows[offset + j];
      else
        for (let j = 0; j < dim; j++) {
          const d = centroids[c * dim + j] - rows[offset + j];
          s -= d * d;
        }
      if (s > bestScore) [best, bestScore] = [c, s];
    }
    return best;
  };
  for (let it = 0; it < iterations; it++) {
    const sums = new Float32Array(lists * dim);
    const sizes = new Uint32Array(lists);
    for (const i of picked) {
      const c = nearestList(i * dim);
      sizes[c]++;
      for (let j = 0; j < dim; j++) sums[c * dim + j] += rows[i * dim + j];
    }
    for (let c = 0; c < lists; c++) {
      // An empty list restarts at a random sampled row.
      const v = sizes[c] > 0 ? sums.subarray(c * dim, (c + 1) * dim).map((x) => x / sizes[c]) : new Float32Array(randomRow());
      centroids.set(spherical ? normalise(v) : v, c * dim);
    }
  }
  const members: number[][] = Array.from({ length: lists }, () => []);
  for (let i = 0; i < count; i++) members[nearestList(i * dim)].push(i);
  return { centroids, members };
}

function signCodes(rows: Float32Array, dim: number): Uint32Array {
  const words = Math.ceil(dim / 32);
  const count = rows.length / dim;
  const codes = new Uint32Array(count * words);
  for (let i = 0; i < count; i++) for (let j = 0; j < dim; j++) if (rows[i * dim + j] > 0) codes[i * words + (j >> 5)] |= 1 << (j & 31);
  return codes;
}

function popcount(x: number): number {
  let v = x - ((x >>> 1) & 0x55555555);
  v = (v & 0x33333333) + ((v >>> 2) & 0x33333333);
  return (((v + (v >>> 4)) & 0x0f0f0f0f) * 0x01010101) >>> 24;
}

/**
 * Product quantisation: each vector cut into `parts` pieces, each piece coded as the nearest of
 * 256 centroids trained for it (k-means on a sample), one byte a piece.
 */
function productQuantiser(rows: Float32Array, dim: number, parts: number, next: () => number): { codebooks: Float32Array[]; codes: Uint8Array; width: number } {
  const count = rows.length / dim;
  const width = dim / parts;
  const codebooks: Float32Array[] = [];
  const codes = new Uint8Array(count * parts);
  for (let p = 0; p < parts; p++) {
    const piece = new Float32Array(count * width);
    for (let i = 0; i < count; i++) piece.set(rows.subarray(i * dim + p * width, i * dim + (p + 1) * width), i * width);
    const { centroids, members } = kMeans(piece, width, 256, next, 8, 20_000, false);
    codebooks.push(centroids);
    members.forEach((list, c) => {
      for (const i of list) codes[i * parts + p] = c;
    });
  }
  return { codebooks, codes, width };
}

interface StageFigure {
  stage: string;
  setting: number;
  /** Mean share of the full scan's top k found, and the share at the worst 5 % of questions. */
  recall: number;
  recallP5: number;
  /** Mean bytes fetched for one question (int8 rows at dim + 4 bytes each, centroids or codes included). */
  bytes: number;
}

function summarise(stage: string, setting: number, recalls: number[], bytes: number[]): StageFigure {
  const sorted = [...recalls].sort((a, b) => a - b);
  return {
    stage,
    setting,
    recall: recalls.reduce((a, b) => a + b, 0) / recalls.length,
    recallP5: sorted[Math.floor(sorted.length * 0.05)],
    bytes: bytes.reduce((a, b) => a + b, 0) / bytes.length,
  };
}

function measure(table: VectorTable, queries: readonly Float32Array[], options: { lists: number; probes: number[]; rescore: number[]; parts: number[]; k: number; next: () => number }): StageFigure[] {
  const { count, dim } = table;
  const rows = dequantise(table);
  const exact = queries.map((q) => {
    const s = new Float32Array(count);
    for (let i = 0; i < count; i++) s[i] = dequantizeDot(q, table.data, i * dim, dim, table.scales[i]);
    return s;
  });
  const truth = exact.map((s) => new Set(topK(s, options.k)));
  // E5's vectors share one large direction (cosines between unrelated passages sit near 0.8):
  // the first stages read them, and the questions, less the set's mean, normalised again.
  const mean = new Float32Array(dim);
  for (let i = 0; i < count; i++) for (let j = 0; j < dim; j++) mean[j] += rows[i * dim + j] / count;
  const centre = (v: Float32Array): Float32Array => normalise(v.map((x, j) => x - mean[j]));
  const centred = new Float32Array(rows.length);
  for (let i = 0; i < count; i++) centred.set(centre(rows.slice(i * dim, (i + 1) * dim)), i * dim);
  const centredQueries = queries.map((q) => centre(Float32Array.from(q)));
  const recallOf = (qi: number, found: number[]) => found.filter((i) => truth[qi].has(i)).length / truth[qi].size;
  const rowBytes = dim + 4;
  const figures: StageFigure[] = [];

  const ivf = kMeans(centred, dim, options.lists, options.next);
  for (const probes of options.probes) {
    const recalls: number[] = [];
    const bytes: number[] = [];
    queries.forEach((_, qi) => {
      const near = topK(
        Float32Array.from({ length: options.lists }, (_, c) => dot(centredQueries[qi], ivf.centroids, c * dim)),
        probes,
      );
      const candidates = near.flatMap((c) => ivf.members[c]);
      recalls.push(recallOf(qi, topK(exact[qi], options.k, candidates)));
      bytes.push(options.lists * rowBytes + candidates.length * (rowBytes + 4));
    });
    figures.push(summarise(`IVF ${options.lists} lists`, probes, recalls, bytes));
  }

  const codes = signCodes(centred, dim);
  const words = Math.ceil(dim / 32);
  for (const rescore of options.rescore) {
    const recalls: number[] = [];
    queries.forEach((_, qi) => {
      const qc = signCodes(centredQueries[qi], dim);
      const hamming = new Float32Array(count);
      for (let i = 0; i < count; i++) {
        let d = 0;
        for (let w = 0; w < words; w++) d += popcount(codes[i * words + w] ^ qc[w]);
        hamming[i] = -d;
      }
      recalls.push(recallOf(qi, topK(exact[qi], options.k, topK(hamming, rescore))));
    });
    figures.push(summarise('binary codes', rescore, recalls, [count * words * 4 + rescore * (rowBytes + 4)]));
  }
  for (const parts of options.parts) {
    const pq = productQuantiser(centred, dim, parts, options.next);
    for (const rescore of options.rescore) {
      const recalls: number[] = [];
      queries.forEach((_, qi) => {
        // Asymmetric distance: the question's piece against each centroid, once, then a sum of lookups a vector.
        const q = centredQueries[qi];
        const table = new Float32Array(parts * 256);
        for (let p = 0; p < parts; p++) for (let c = 0; c < 256; c++) table[p * 256 + c] = dot(q.subarray(p * pq.width, (p + 1) * pq.width), pq.codebooks[p], c * pq.width);
        const approx = new Float32Array(count);
        for (let i = 0; i < count; i++) {
          let sum = 0;
          for (let p = 0; p < parts; p++) sum += table[p * 256 + pq.codes[i * parts + p]];
          approx[i] = sum;
        }
        recalls.push(recallOf(qi, topK(exact[qi], options.k, topK(approx, rescore))));
      });
      const codebookBytes = parts * 256 * pq.width;
      figures.push(summarise(`PQ ${parts} bytes a vector`, rescore, recalls, [count * parts + codebookBytes + rescore * (rowBytes + 4)]));
    }
  }
  return figures;
}

function print(title: string, count: number, dim: number, figures: readonly StageFigure[]): void {
  const full = count * (dim + 4);
  process.stdout.write(`\n${title}: ${count} vectors (full set ${(full / 1e6).toFixed(1)} MB as int8)\n`);
  process.stdout.write('stage                 probes/rescored  recall@k  worst 5 %   MB fetched  share of the set\n');
  for (const f of figures) {
    process.stdout.write(
      `${f.stage.padEnd(22)}${String(f.setting).padStart(15)}  ${f.recall.toFixed(3).padStart(8)}  ${f.recallP5.toFixed(3).padStart(9)}  ${(f.bytes / 1e6).toFixed(2).padStart(11)}  ${((100 * f.bytes) / full).toFixed(1).padStart(14)} %\n`,
    );
  }
}

async function main(): Promise<void> {
  const { values } = parseArgs({
    options: {
      index: { type: 'string' },
      'model-dir': { type: 'string', default: 'models' },
      questions: { type: 'string', multiple: true },
      scale: { type: 'string' },
      lists: { type: 'string' },
      probes: { type: 'string', default: '2,4,8,16,32' },
      rescore: { type: 'string', default: '100,300,1000' },
      parts: { type: 'string', default: '16,24,48' },
      k: { type: 'string', default: '30' },
      seed: { type: 'string', default: '55' },
      'vectors-cache': { type: 'string', default: '.tmp/eval-question-vectors.json' },
      json: { type: 'string' },
    },
  });
  if (!values.index || !values.questions?.length) throw new Error(USAGE);
  const index = await readIndexFolder(values.index);
  if (!index.vectors || !index.manifest.embedder) throw new Error(`${values.index} has no vectors: build it with --model-dir models`);
  const embedder = await cachedQueryEmbedder(index, values['model-dir'], values['vectors-cache']);
  const queries: Float32Array[] = [];
  try {
    for (const file of values.questions) for (const q of await loadQuestions(file)) queries.push(await embedder.embedQuery(index.manifest.embedder.queryPrefix + q.question));
  } finally {
    await embedder.save();
    await embedder.dispose();
  }
  const k = Number(values.k);
  const probes = values.probes.split(',').map(Number);
  const rescore = values.rescore.split(',').map(Number);
  const parts = values.parts.split(',').map(Number);
  const next = seededRandom(Number(values.seed));
  const out: Record<string, unknown> = { questions: queries.length, k };

  const real = index.vectors;
  const realLists = Number(values.lists ?? Math.round(Math.sqrt(real.count)));
  const realFigures = measure(real, queries, { lists: realLists, probes, rescore, parts, k, next });
  print(`the index's own vectors (${values.index}), ${queries.length} questions, recall@${k}`, real.count, real.dim, realFigures);
  out.real = { count: real.count, figures: realFigures };

  if (values.scale) {
    const target = Number(values.scale);
    const rows = dequantise(real);
    const cosine = medianNearest(rows, real.dim, next);
    const madeRows = scaleUp(rows, real.dim, target, cosine, next);
    const packed = packVectors(Array.from({ length: target }, (_, i) => madeRows.subarray(i * real.dim, (i + 1) * real.dim)));
    const made: VectorTable = { count: target, dim: real.dim, scales: packed.scales, data: packed.data };
    const lists = Math.round(Math.sqrt(target));
    const figures = measure(made, queries, { lists, probes, rescore, parts, k, next });
    print(`made from them: ${target} vectors (copies at cosine ${cosine.toFixed(3)}, the real median nearest neighbour), recall@${k}`, made.count, made.dim, figures);
    out.scaled = { count: target, copyCosine: cosine, figures };
  }
  if (values.json) await writeFile(values.json, `${JSON.stringify(out, null, 1)}\n`);
}

main().catch((error: unknown) => {
  process.stderr.write(`${error instanceof Error ? error.message : String(error)}\n`);
  process.exit(1);
});
