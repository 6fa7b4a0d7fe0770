/**
 * Loads the embedder an index was built with, for embedding queries (`query: ` prefix) in the
 * CLI's search and eval. Returns null when the index has no vectors or the mode needs none.
 */
import type { LoadedIndex } from '../../widget/core/format/read-index.ts';
import type { SearchMode } from '../../widget/core/retrieval/retriever.ts';
import type { Embedder } from '../embed/embedder.ts';

export interface QueryEmbedderOptions {
  mode: SearchMode;
  modelDir?: string;
  allowRemote?: boolean;
  /** Default: the index's file for questions (manifest embedder.queryDtype, else dtype). */
  dtype?: 'fp32' | 'q8' | 'q4';
}

const nodeDtype = (dtype: 'q8' | 'q4' | 'fp32' | 'q4f32' | undefined) => (dtype === 'q4f32' ? 'fp32' : dtype);

export async function loadQueryEmbedder(index: LoadedIndex, options: QueryEmbedderOptions): Promise<Embedder | null> {
  const info = index.manifest.embedder;
  if (!info || options.mode === 'bm25' || !index.vectors) return null;
  const { loadEmbedder } = await import('../embed/embedder.ts');
  return loadEmbedder({
    model: info.id,
    modelDir: options.modelDir,
    allowRemote: options.allowRemote ?? false,
    // The widget's file for questions (queryDtype), so that Node and the browser rank alike;
    // 'q4f32' (the widget's own pair) as 'fp32': the same weights and products, one file.
    dtype: options.dtype ?? nodeDtype(info.queryDtype) ?? info.dtype ?? 'q8',
    prefix: info.queryPrefix,
  });
}

export async function embedQuery(embedder: Embedder | null, query: string): Promise<Float32Array | null> {
  if (!embedder) return null;
  const [vector] = await embedder.embed([query]);
  return vector;
}
