/**
 * Loads the model that embeds an index's questions (`query: ` prefix) in the CLI's search and
 * eval, and bench: the index's embedder, or a question model tuned against it (`--query-model`,
 * else the manifest's embedder.queryModel), refused with QUERY_MODEL_MISMATCH when its folder says
 * it was trained against other passages (widget/core/embedding/query-model.ts decides, as the
 * widget does). Returns null when the index has no vectors or the mode needs none.
 */
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { checkQueryModelPairing, type QueryModelConfig, queryDtypeOf, queryModelOf } from '../../widget/core/embedding/query-model.ts';
import type { LoadedIndex } from '../../widget/core/format/read-index.ts';
import type { SearchMode } from '../../widget/core/retrieval/retriever.ts';
import { createError } from '../errors.ts';
import type { Embedder } from '../embed/embedder.ts';

export interface QueryEmbedderOptions {
  mode: SearchMode;
  modelDir?: string;
  allowRemote?: boolean;
  /** Default: the index's file for questions (manifest embedder.queryDtype, else dtype); a question model's own. */
  dtype?: 'fp32' | 'q8' | 'q4';
  /** Prepended to every text; default the index's query prefix ('' embeds texts that carry their own). */
  prefix?: string;
  /** The question model (`--query-model`); default the manifest's embedder.queryModel, else the embedder. */
  queryModel?: string;
}

/** The question model's config.json from the model folder, or null where there is none to read. */
async function readQueryModelConfig(modelDir: string | undefined, id: string): Promise<QueryModelConfig | null> {
  if (!modelDir) return null;
  try {
    return JSON.parse(await readFile(join(modelDir, id, 'config.json'), 'utf8')) as QueryModelConfig;
  } catch {
    return null;
  }
}

/**
 * The question model for `index` and its config.json, pairing checked (QUERY_MODEL_MISMATCH).
 * A model other than the embedder is read from --model-dir only: no hub has it.
 */
export async function resolveQueryModel(index: LoadedIndex, options: Pick<QueryEmbedderOptions, 'modelDir' | 'queryModel'>): Promise<{ id: string; config: QueryModelConfig | null } | null> {
  const info = index.manifest.embedder;
  if (!info) return null;
  const id = queryModelOf(info, options.queryModel);
  const config = await readQueryModelConfig(options.modelDir, id);
  if (id !== info.id && !config) {
    throw createError(
      'EMBEDDER_LOAD_FAILED',
      id,
      options.modelDir ? `no ${join(options.modelDir, id, 'config.json')}: run "npx harel-builder models fetch" with its adapter` : 'a question model is read from a local folder only',
    );
  }
  checkQueryModelPairing(info.id, id, config);
  return { id, config };
}

export async function loadQueryEmbedder(index: LoadedIndex, options: QueryEmbedderOptions): Promise<Embedder | null> {
  const info = index.manifest.embedder;
  if (!info || options.mode === 'bm25' || !index.vectors) return null;
  const resolved = await resolveQueryModel(index, options);
  if (!resolved) return null;
  const model = resolved.id;
  // The widget's file for questions (queryDtype), so that Node and the browser rank alike.
  const dtype = options.dtype ?? queryDtypeOf<'fp32' | 'q8' | 'q4' | 'q4f32' | 'q4i8'>(info, model, resolved.config);
  if (dtype === 'q4i8' || dtype === 'q4f32') {
    // A .q4w pair only the widget's code reads: run that code here too.
    if (!options.modelDir) throw createError('EMBEDDER_LOAD_FAILED', model, `the index embeds questions with its ${dtype} files, which are read from a local folder only`);
    const { loadWidgetQueryEmbedder } = await import('../embed/widget-query-embedder.ts');
    return loadWidgetQueryEmbedder({ model, modelDir: options.modelDir, dtype, prefix: options.prefix ?? info.queryPrefix });
  }
  const { loadEmbedder } = await import('../embed/embedder.ts');
  return loadEmbedder({ model, modelDir: options.modelDir, allowRemote: options.allowRemote ?? false, dtype, prefix: options.prefix ?? info.queryPrefix });
}

export async function embedQuery(embedder: Embedder | null, query: string): Promise<Float32Array | null> {
  if (!embedder) return null;
  const [vector] = await embedder.embed([query]);
  return vector;
}
