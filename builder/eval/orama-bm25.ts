/**
 * The reference BM25: Orama over the chunks with the project's tokenizer. Index format 1 shipped
 * this index; format 2 ships compiled postings (widget/core/format/compile-bm25.ts) scored by
 * widget/core/retrieval/bm25-index.ts, and tests hold that scorer to this one's scores. Orama's
 * tokenizer, as before, must be ours: its default one splits on a Latin-only pattern and
 * yields no tokens for Hebrew. Orama's default tokenizer splits on
 * a Latin-only pattern and yields no tokens for Hebrew, so the tokenizer is always passed in;
 * restoring goes through create() + load() for the same reason (the persistence plugin's
 * restore() would rebuild the database with the default tokenizer).
 */
import { create, insertMultiple, load, save, search, type Orama, type RawData, type Tokenizer } from '@orama/orama';
import { index as oramaIndex } from '@orama/orama/components';
import { throwIfAborted } from '../errors.ts';
import type { RetrievalDefaults } from '../../widget/core/format/manifest.ts';
import type { Chunk, IndexedDocument, WorkOptions } from '../../widget/core/schema.ts';
import { createOramaTokenizer } from './orama-tokenizer.ts';
import { chunkContext } from '../../widget/core/format/compile-bm25.ts';
import type { Bm25Hit, Bm25SearchOptions } from '../../widget/core/retrieval/bm25-index.ts';

export const BM25_SCHEMA = {
  /** The passage text. */
  body: 'string',
  /** Document title and section path: matched with a lower boost. */
  context: 'string',
  domain: 'enum',
} as const;

export type Bm25Database = Orama<typeof BM25_SCHEMA>;

/** The tokenizer of the reference index: ours behind Orama's interface. */
export function bm25Tokenizer(retrieval: Pick<RetrievalDefaults, 'termMatch'>): Tokenizer {
  return createOramaTokenizer({ wholeTerms: retrieval.termMatch === 'whole' });
}

type OramaIndexComponent = ReturnType<typeof oramaIndex.createIndex>;
type IndexData = Parameters<OramaIndexComponent['insertDocumentScoreParameters']>[0];

/**
 * Orama's index component with its two BM25 bookkeeping steps replaced. Orama 3.1.18 stores
 * tf as count / field length (length is then normalised a second time by the formula) and counts
 * a term's "document frequency" once per occurrence, so frequent terms get a negative IDF; and it
 * recounts the whole token list for every token (quadratic in the field length). Measured on the
 * Harel development questions, page-level hit@5 went from 28 % to the figures in the README once
 * tf is the raw count and df counts documents. Only insertion changes: the saved state keeps
 * Orama's layout, so a browser restores it with Orama's stock index component.
 */
export function createBm25IndexComponent(): OramaIndexComponent {
  const base = oramaIndex.createIndex();
  let current: { data: IndexData; prop: string; id: number; counts: Map<string, number> } | null = null;
  return {
    ...base,
    insertDocumentScoreParameters(data, prop, id, tokens, docsCount) {
      base.insertDocumentScoreParameters(data, prop, id, tokens, docsCount);
      const counts = new Map<string, number>();
      for (const t of tokens) counts.set(t, (counts.get(t) ?? 0) + 1);
      current = { data, prop, id: id as number, counts };
    },
    insertTokenScoreParameters(data, prop, id, _tokens, token) {
      if (!current || current.data !== data || current.prop !== prop || current.id !== id) {
        throw new Error('BM25 bookkeeping out of step with Orama insert order');
      }
      const frequencies = data.frequencies[prop][id as number]!;
      if (token in frequencies) return;
      frequencies[token] = current.counts.get(token) ?? 0;
      data.tokenOccurrences[prop][token] = (data.tokenOccurrences[prop][token] ?? 0) + 1;
    },
    search(data, term, tokenizer, language, properties, exact, tolerance, boost, relevance, docsCount, whereFiltersIDs, threshold) {
      // Orama's term lookup collects postings with Array.includes (quadratic in a term's document
      // count: 180 ms a question on the Harel corpus). For the whole-term, any-term search we
      // run, a direct walk to the term's node gives the same postings; other searches keep
      // Orama's path.
      if (exact || tolerance || threshold !== 1) {
        return base.search(data, term, tokenizer, language, properties, exact, tolerance, boost, relevance, docsCount, whereFiltersIDs, threshold);
      }
      const tokens = tokenizer.tokenize(term, language);
      const store = data as unknown as IndexData;
      const boosts = boost as Record<string, number>;
      const results = new Map<number, number>();
      const matches = new Map<number, Map<string, number>>();
      for (const prop of properties) {
        const tree = store.indexes[prop];
        if (tree?.type !== 'Radix') continue;
        for (const token of tokens) {
          const ids = exactPostings(tree.node as unknown as RadixNode, token);
          if (ids) base.calculateResultScores(store, prop, token, ids as never, docsCount, relevance, results as never, boosts[prop] ?? 1, whereFiltersIDs, matches as never);
        }
      }
      return [...results.entries()].sort((a, b) => b[1] - a[1]) as never;
    },
  };
}

interface RadixNode {
  w: string;
  s: string;
  e: boolean;
  d: Set<number>;
  c: Map<string, RadixNode>;
}

/** The node of exactly `term` in Orama's radix tree, or null. */
function exactNode(root: RadixNode, term: string): RadixNode | null {
  let node = root;
  let i = 0;
  while (i < term.length) {
    const child = node.c.get(term[i]);
    if (!child || !term.startsWith(child.s, i)) return null;
    i += child.s.length;
    node = child;
  }
  return node.e && node.w === term ? node : null;
}

/** The document ids of exactly `term` in Orama's radix tree, or null. */
function exactPostings(root: RadixNode, term: string): number[] | null {
  const node = exactNode(root, term);
  return node ? [...node.d] : null;
}

function createDatabase(tokenizer: Tokenizer): Bm25Database {
  return create({ schema: BM25_SCHEMA, components: { tokenizer, index: createBm25IndexComponent() } }) as Bm25Database;
}

/**
 * Builds the BM25 index and returns Orama's saved state with each stored document reduced to
 * nothing: the chunk store already holds the text, and Orama scores from its own index, not from
 * the stored documents, so shipping them would only send the corpus twice.
 */
export async function buildBm25State(chunks: readonly Chunk[], documents: readonly IndexedDocument[], tokenizer: Tokenizer, options: WorkOptions = {}): Promise<RawData> {
  const db = createDatabase(tokenizer);
  const rows = chunks.map((chunk, i) => ({
    id: String(i),
    body: chunk.text,
    context: chunkContext(chunk, documents[chunk.doc]),
    domain: documents[chunk.doc].domain,
  }));
  const batch = 500;
  for (let start = 0; start < rows.length; start += batch) {
    throwIfAborted(options.signal);
    await insertMultiple(db, rows.slice(start, start + batch), batch);
    options.onProgress?.({ step: 'bm25', done: Math.min(start + batch, rows.length), total: rows.length });
  }
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
    ...(options.relevance ? { relevance: options.relevance } : {}),
    ...(options.domain ? { where: { domain: { eq: options.domain } } } : {}),
  });
  // search() is synchronous for a database without async components; guard the type anyway.
  if (result instanceof Promise) throw new Error('Orama returned a promise for a synchronous search');
  return result.hits.map((hit) => ({ chunk: Number(hit.id), score: hit.score }));
}
