/**
 * The widget's own question embedder, run in Node: the query model's files from a local folder
 * through the very code the widget runs (widget/embed/query-tokenizer.ts, the .q4w expansion of
 * widget/core/embedding/q4-weights.ts, widget/embed/onnx-encoder.ts on onnxruntime-web's wasm,
 * the first window only). What `harel-builder eval`/`search` embed questions with when the index
 * names a .q4w precision ('q4i8', 'q4f32'), which transformers.js cannot load, so that Node and
 * the browser rank every question alike.
 */
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { expandQ4Weights } from '../../widget/core/embedding/q4-weights.ts';
import { createWindowedEncoder } from '../../widget/core/embedding/windowed-encoder.ts';
import { createError } from '../errors.ts';
import { configureOnnxRuntime, createOnnxEncoder } from '../../widget/embed/onnx-encoder.ts';
import { QUERY_MODEL_FILE, q4wFileOf, type QueryDtype } from '../../widget/embed/query-embedder.ts';
import { createQueryTokenizer } from '../../widget/embed/query-tokenizer.ts';
import { type Embedder, fingerprintOf } from './embedder.ts';

const PROBE = 'passage: ביטוח רכב, claim within 30 days';

export interface WidgetQueryEmbedderOptions {
  model: string;
  /** The folder holding `<model>/tokenizer.json, onnx/…`. */
  modelDir: string;
  dtype: Extract<QueryDtype, 'q4i8' | 'q4f32'>;
  /** Prepended to every text ('query: '). */
  prefix?: string;
}

export async function loadWidgetQueryEmbedder(options: WidgetQueryEmbedderOptions): Promise<Embedder> {
  const { model, dtype, prefix = '' } = options;
  const dir = join(options.modelDir, model);
  const file = (name: string) => readFile(join(dir, name));
  try {
    const json = async (name: string) => JSON.parse((await file(name)).toString('utf8')) as unknown;
    const tokenizer = createQueryTokenizer(await json('tokenizer.json'), await json('tokenizer_config.json'));
    const weights = expandQ4Weights(new Uint8Array(await file(q4wFileOf(dtype) as string)));
    configureOnnxRuntime(null);
    const onnx = await createOnnxEncoder(new Uint8Array(await file(QUERY_MODEL_FILE[dtype])), { externalData: { path: weights.location, data: weights.data } });
    const encoder = createWindowedEncoder({ ...tokenizer, run: onnx.run }, { firstWindowOnly: true });
    const [probe] = await encoder.encode([PROBE]);
    return {
      id: model,
      dimensions: probe.length,
      dtype,
      fingerprint: fingerprintOf(probe, dtype, prefix),
      embed: (texts) => encoder.encode(texts.map((t) => prefix + t)),
      countTokens: (text) => encoder.countTokens(text),
      dispose: () => onnx.dispose(),
    };
  } catch (error) {
    throw createError('EMBEDDER_LOAD_FAILED', model, `${dir} (${dtype}): ${error instanceof Error ? error.message : String(error)}`);
  }
}
