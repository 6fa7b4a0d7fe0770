/**
 * BM25 over chunks with Orama and the project's tokenizer. Orama's default tokenizer splits on
 * a Latin-only pattern and yields no tokens for Hebrew, so the tokenizer is always passed in;
 * restoring goes through create() + load() for the same reason (the persistence plugin's
 * restore() would rebuild the database with the default tokenizer).
 */
import { create, insertMultiple, load, save, search, type Orama, type RawData, type Tokenizer } from '@orama/orama';
import type { Chunk, IndexedDocument } from '../schema.ts';

export const BM25_SCHEMA = {
  /** The passage text. */
  body: 'string',
  /** Document title and section path: matched with a lower boost. */
  context: 'string',
  domain: 'enum',
} as const;

export type Bm25Database = Orama<typeof BM25_SCHEMA>;

export interface Bm25Hit {
  /** Index of the chunk in the index's chunk table. */
  chunk: number;
  score: number;
}

export interface Bm25SearchOptions {
  k: number;
  domain?: string | null;
  /** Boost of the context field relative to the body. */
  contextBoost?: number;
}

export function chunkContext(chunk: Chunk, document: IndexedDocument): string {
  return [document.title, ...chunk.sectionPath].join(' \u203a ');
}

function createDatabase(tokenizer: Tokenizer): Bm25Database {
  return create({ schema: BM25_SCHEMA, components: { tokenizer } }) as Bm25Database;
}

/**
 * Builds the BM25 index and returns Orama's saved state with each stored document reduced to
 * nothing: the chunk store already holds the text, and Orama scores from its own index, not from
 * the stored documents, so shipping them would only send the corpus twice.
 */
export async function buildBm25State(
  chunks: readonly Chunk[],
  documents: readonly IndexedDocument[],
  tokenizer: Tokenizer,
): Promise<RawData> {
  const db = createDatabase(tokenizer);
  const rows = chunks.map((chunk, i) => ({
    id: String(i),
    body: chunk.text,
    context: chunkContext(chunk, documents[chunk.doc]),
    domain: documents[chunk.doc].domain,
  }));
  await insertMultiple(db, rows, 1000);
  const state = save(db) as RawData & { docs: { docs: Record<string, unknown> } };
  const stripped: Record<string, Record<string, never>> = {};
  for (const key of Object.keys(state.docs.docs)) stripped[key] = {};
  return { ...state, docs: { ...state.docs, docs: stripped } };
}

export function restoreBm25(state: RawData, tokenizer: Tokenizer): Bm25Database {
  const db = createDatabase(tokenizer);
  load(db, state);
  return db;
}

export function searchBm25(db: Bm25Database, query: string, options: Bm25SearchOptions): Bm25Hit[] {
  const result = search(db, {
    term: query,
    properties: ['body', 'context'],
    boost: { context: options.contextBoost ?? 0.5 },
    // Any query term may match: customer questions are long and no passage holds every word.
    threshold: 1,
    // Never `exact: true`: Orama then re-checks hits against the stored raw text, which the
    // shipped index does not hold. Whole-term vs prefix matching is the tokenizer's choice.
    limit: options.k,
    ...(options.domain ? { where: { domain: { eq: options.domain } } } : {}),
  });
  // search() is synchronous for a database without async components; guard the type anyway.
  if (result instanceof Promise) throw new Error('Orama returned a promise for a synchronous search');
  return result.hits.map((hit) => ({ chunk: Number(hit.id), score: hit.score }));
}
