/** An in-memory index and its Retriever, for retrieval tests on hand-made documents and chunks. */
import { compileBm25File } from '../../../widget/core/format/compile-bm25.ts';
import { DEFAULT_RETRIEVAL } from '../../../widget/core/format/manifest.ts';
import type { LoadedIndex } from '../../../widget/core/format/read-index.ts';
import { Retriever } from '../../../widget/core/retrieval/retriever.ts';
import type { Chunk, IndexedDocument } from '../../../widget/core/schema.ts';

export async function inMemoryRetriever(documents: IndexedDocument[], chunks: Chunk[]): Promise<Retriever> {
  const retrieval = { ...DEFAULT_RETRIEVAL };
  const index = {
    manifest: { retrieval } as LoadedIndex['manifest'],
    documents,
    chunks,
    bm25: compileBm25File(chunks, documents),
    vectors: null,
    router: null,
  } satisfies LoadedIndex;
  return new Retriever(index);
}
