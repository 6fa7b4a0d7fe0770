/** An in-memory index and its Retriever, for retrieval tests on hand-made documents and chunks. */
import { buildBm25State } from '../../../widget/core/retrieval/bm25.ts';
import { DEFAULT_RETRIEVAL } from '../../../widget/core/format/manifest.ts';
import type { LoadedIndex } from '../../../widget/core/format/read-index.ts';
import { bm25Tokenizer, Retriever } from '../../../widget/core/retrieval/retriever.ts';
import type { Chunk, IndexedDocument } from '../../../widget/core/schema.ts';

export async function inMemoryRetriever(documents: IndexedDocument[], chunks: Chunk[]): Promise<Retriever> {
  const retrieval = { ...DEFAULT_RETRIEVAL };
  const index = {
    manifest: { retrieval } as LoadedIndex['manifest'],
    documents,
    chunks,
    bm25: await buildBm25State(chunks, documents, bm25Tokenizer(retrieval)),
    vectors: null,
    router: null,
  } satisfies LoadedIndex;
  return new Retriever(index);
}
