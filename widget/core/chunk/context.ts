/**
 * The context line a chunk can be embedded or indexed with ("title > section > subsection"): kept
 * out of `Chunk.text` so citations quote the passage only, and so the choice of whether to use it
 * stays with the embedder and the BM25 index.
 */
import type { Chunk } from '../schema.ts';

export function chunkContextPrefix(doc: { title: string }, chunk: Pick<Chunk, 'sectionPath'>): string {
  return [doc.title, ...chunk.sectionPath]
    .map((s) => s.trim())
    .filter(Boolean)
    .join(' > ');
}
