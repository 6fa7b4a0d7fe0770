/**
 * Loads the embedder an index was built with, for embedding queries (`query: ` prefix) in the
 * CLI's search and eval. Returns null when the index has no vectors or the mode needs none.
 */
import type { LoadedIndex } from '../../widget/core/format/read-index.ts';
import type { SearchMode } from '../../widget/core/retrieval/retriever.ts';
import { createError } from '../../widget/core/errors.ts';
import type { Embedder } from '../embed/embedder.ts';

export interface QueryEmbedderOptions {
  mode: SearchMode;
  modelDir?: string;
  allowRemote?: boolean;
  /** Default: the index's file for questions (manifest embedder.queryDtype, else dtype). */
  dtype?: 'fp32' | 'q8' | 'q4';
  /** Prepended to every text; default the index's query prefix ('' embeds texts that carry their own). */
  prefix?: string;
}

export async function loadQueryEmbedder(index: LoadedIndex, options: QueryEmbedderOptions): Promise<Embedder | null> {
  const info = index.manifest.embedder;
  if (!info || options.mode === 'bm25' || !index.vectors) return null;
  // The widget's file for questions (queryDtype), so that Node and the browser rank alike.
  const dtype = options.dtype ?? info.queryDtype ?? info.dtype ?? 'q8';
  if (dtype === 'q4i8' || dtype === 'q4f32') {
    // A .q4w pair only the widget's code reads: run that code here too.
    if (!options.modelDir) throw createError('EMBEDDER_LOAD_FAILED', info.id, `the index embeds questions with its ${dtype} files, which are read from a local folder only`);
    const { loadWidgetQueryEmbedder } = await import('../embed/widget-query-embedder.ts');
    return loadWidgetQueryEmbedder({ model: info.id, modelDir: options.modelDir, dtype, prefix: options.prefix ?? info.queryPrefix });
  }
  const { loadEmbedder } = await import('../embed/embedder.ts');
  return loadEmbedder({ model: info.id, modelDir: options.modelDir, allowRemote: options.allowRemote ?? false, dtype, prefix: options.prefix ?? info.queryPrefix });
}

export async function embedQuery(embedder: Embedder | null, query: string): Promise<Float32Array | null> {
  if (!embedder) return null;
  const [vector] = await embedder.embed([query]);
  return vector;
}
