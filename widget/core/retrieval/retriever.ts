/**
 * The retrieval pipeline shared by the builder's `search`/`eval` (Node) and the widget's search
 * worker (browser): route → BM25 and/or vectors → fuse → rank. Query embedding is done by the
 * caller (Node and browsers load the embedder differently) and passed in as a vector.
 */
import { corpusAffinity, corpusCentroid } from './corpus-centroid.ts';
import type { PassageOrigin } from '../device/device-document.ts';
import type { DeviceSearchPart } from '../device/device-search-part.ts';
import type { LoadedIndex } from '../format/read-index.ts';
import type { Chunk, IndexedDocument } from '../schema.ts';
import { createError } from '../errors.ts';
import { tokenize } from '../tokenizer/index.ts';
import { Bm25Index, type Bm25SearchOptions } from './bm25-index.ts';
import { collapseTwins, type CollapsedHit } from './collapse.ts';
import { clauseExcerpt, CrossReferenceResolver } from './cross-references.ts';
import { QueryExpander, type Expansion } from './expand.ts';
import { LEXICON } from './lexicon.ts';
import { fuse, fuseScores, type FusedHit, type FusionMethod, type ScoredChunk } from './fuse.ts';
import { routeQuery, type RouteResult } from './route.ts';
import { searchVectors } from './vector-search.ts';
import { groupByPage, groupBySection, type PageCandidate, type PlaceOf } from './page-groups.ts';

export type SearchMode = 'bm25' | 'vector' | 'hybrid';

export interface SearchOptions {
  mode?: SearchMode;
  k?: number;
  /** A fixed domain (the site owner's or the CLI's --domain): skips routing. */
  domain?: string | null;
  /** Route the query and filter by domain when the router is confident. Default true. */
  route?: boolean;
  /** The query's embedding (with the embedder's query prefix); required for vector and hybrid. */
  queryVector?: Float32Array | null;
  /** Override the build's BM25 weight in hybrid fusion. */
  bm25Weight?: number;
  /** Override the build's hybrid fusion method: min-max weighted scores or reciprocal ranks. */
  fusion?: FusionMethod;
  /** Override the build's RRF rank offset. */
  rrfK?: number;
  /** Override how many BM25 candidates enter hybrid fusion. */
  bm25Pool?: number;
  /** Override how many vector candidates enter hybrid fusion. */
  vectorPool?: number;
  /** Override the build's router threshold. */
  routeMinConfidence?: number;
  /** Override the build's weight of the context field (title, file name, section path) in BM25. */
  contextBoost?: number;
  /** Weight of curated lexicon equivalents against the query's own words in BM25 (0 turns them off). */
  expansionWeight?: number;
  /** Weight of the equivalents mined from the corpus (0 turns them off). */
  minedExpansionWeight?: number;
  /** Attach the clauses each returned passage refers to (default true). */
  crossReferences?: boolean;
  /** Collapse near-identical chunks into one result with "also in" sources (default: the build's). */
  collapseTwins?: boolean;
  /** Override the build's soft boost of the routed domain (below the filter threshold). */
  routeBoost?: number;
}

export interface RetrievedPassage extends FusedHit {
  rank: number;
  chunkId: string;
  file: string;
  page: number;
  title: string;
  url: string | null;
  domain: string;
  sectionPath: string[];
  clause: string | null;
  text: string;
  /** Near-identical chunk group, or null. */
  twin: number | null;
  /** Near-identical page group of this chunk's page, or null. */
  pageTwin: number | null;
  /** Near-identical passages collapsed into this one (other editions or copies), if any. */
  alsoIn: { chunkId: string; file: string; page: number; title: string; url: string | null }[];
  /** The pages that hold the same text in another-language edition of this document ("also in English, p. 30"). */
  editions: EditionPage[];
  /**
   * Clauses of the same document this passage refers to ("ראה סעיף 4.1"): supporting context,
   * not ranked hits.
   */
  references?: PassageReference[];
  /** The site's index, or a document the customer added on this device (absent: the site's). */
  origin?: PassageOrigin;
  /** For a device passage: the customer document's id (DeviceDocumentInfo.id). */
  deviceDocument?: string;
}

export interface EditionPage {
  file: string;
  page: number;
  title: string;
  url: string | null;
  /** The edition's language ('he', 'en', 'ru', 'ar'). */
  lang: string;
}

export interface PassageReference {
  clause: string;
  chunkId: string;
  page: number;
  text: string;
}

export interface SearchResult {
  query: string;
  /** The mode actually used: vector modes fall back to BM25 without a query vector or vectors. */
  mode: SearchMode;
  route: RouteResult | null;
  /** The domain retrieval was filtered to, or null for the whole index. */
  domainFilter: string | null;
  /** Lexicon equivalents added to the BM25 query, and what triggered them. */
  expansions: Expansion[];
  /**
   * How many chunks of the whole index hold each of the query's terms, and out of how many: the
   * answer loop weighs the question's words by their rarity in the index, and a word the index
   * never uses is evidence that the documents do not speak of it.
   */
  termStats: TermStats;
  /**
   * What the vector side found, for the answer loop's evidence (widget/loop/evidence.ts): null
   * unless the search ran hybrid. Absent from results made before it existed.
   */
  semantic?: SemanticEvidence | null;
  hits: RetrievedPassage[];
}

/** The vector side's view of a hybrid search, before fusion. */
export interface SemanticEvidence {
  /** Cosine of the nearest chunk (within the routed domain when the search was filtered to it). */
  top: number;
  /** Cosine of the nearest chunk on another page than the nearest one's (0 if none). */
  second: number;
  /** BM25's and the vectors' best chunks lie on the same page. */
  agree: boolean;
  /** The question's cosine to the index's mean direction less the index's coherence (corpus-centroid.ts). */
  corpus: number;
  /** The embedder whose cosines these are (the manifest's id): a model fitted on one reads no other's. */
  embedder: string;
}

export interface TermStats {
  /** Chunks in the index. */
  chunks: number;
  /** Query term → chunks whose body holds it (0 for a term the index never uses). */
  df: Record<string, number>;
}

/**
 * Chunks a single-sided search (BM25 with its expansion passes, or vectors alone) ranks, whatever
 * k is, so `k 10` and `k 30` rank their first ten results identically. 150 chunks hold about 90
 * distinct pages on the Harel corpus, well past the 30 that page recall@30 reads. Hybrid search
 * takes each side's pool from the build's retrieval defaults (bm25Pool, vectorPool: fitted).
 */
export const FIRST_STAGE_POOL = 150;

/** The first stage before fusion: each side's candidates, best first, and how the query was routed. */
export interface FirstStageCandidates {
  query: string;
  mode: SearchMode;
  route: RouteResult | null;
  domainFilter: string | null;
  expansions: Expansion[];
  bm25: ScoredChunk[];
  vector: ScoredChunk[];
}

/**
 * How much a customer's own document is preferred over the site's where both answer: its fused
 * scores are multiplied by 1 + this, and the extractive engine's sentence scores the same. Its
 * figures are the customer's own (their deductible, their sums), the site's booklets the general
 * ones; a passage of theirs that matches only weakly still ranks below a site passage that
 * matches well. Measured on builder/eval/device-questions.json over the Harel site, which holds
 * the same booklet (`device-retrieval.ts --answers`: the answer's first citation on the customer's
 * right page, ±1, of the 17 Hebrew questions, BM25 / hybrid; the 14 English ones stayed at 3):
 * 0.5 gave 6 / 8, 1 gave 9 / 10, 2 and 4 gave 11 / 9. 1 is kept: the least that takes the gain, and
 * the best hybrid figure. With the off-topic guard that came after (loop/evidence.ts ownDocument,
 * capped by loop/answerability.ts OWN_DOCUMENT_MAX_OFF_TOPIC), 1 gives 9 / 10 Hebrew and 4 / 3
 * English. Development questions, chosen and reported on the same set
 * (docs/evaluation.md#a-customers-own-pdf).
 */
export const DEVICE_PREFERENCE = 1;

/** What reads a build's fragments when a search needs them (core/format/index-by-need.ts IndexByNeed). */
export interface FragmentReader {
  ensureTerms(terms: Iterable<string>, signal?: AbortSignal): Promise<void>;
  /** Resolves to whether any chunk fragment was read. */
  ensureChunks(chunks: Iterable<number>, signal?: AbortSignal): Promise<boolean>;
}

interface RankedSections {
  first: Omit<SearchResult, 'query' | 'hits'>;
  ranked: CollapsedHit[];
  sections: PageCandidate[];
}

export class Retriever {
  readonly index: LoadedIndex;
  private readonly bm25: Bm25Index;
  private readonly expander: QueryExpander;
  private resolver: CrossReferenceResolver | null = null;
  /** The customer's own documents searched beside the site's (setDevice), or null. */
  private device: DeviceSearchPart | null = null;
  private deviceBm25: Bm25Index | null = null;
  /**
   * The site's chunks followed by the customer's (their `doc` shifted past the site's documents):
   * a hit's number indexes this, so the customer's chunks are numbered after the site's.
   */
  private chunks: Chunk[];
  private documents: IndexedDocument[];

  constructor(index: LoadedIndex) {
    this.index = index;
    this.bm25 = new Bm25Index(index.bm25);
    this.expander = new QueryExpander(LEXICON, index.lexicon ?? null);
    this.chunks = index.chunks;
    this.documents = index.documents;
  }

  /** Searches the customer's own documents beside the site's from now on (null: the site's alone). */
  setDevice(part: DeviceSearchPart | null): void {
    const sameText = part !== null && this.device !== null && part.chunks === this.device.chunks && part.bm25 === this.device.bm25;
    this.device = part;
    // Only vectors came in (device-search-part.ts keeps the rest): the tables built from the text stand.
    if (sameText) return;
    this.deviceBm25 = part ? new Bm25Index(part.bm25) : null;
    this.documents = part ? this.index.documents.concat(part.documents) : this.index.documents;
    this.joinChunks();
  }

  /** The site's chunks followed by the customer's, their documents numbered after the site's. */
  private joinChunks(): void {
    const part = this.device;
    const docOffset = this.index.documents.length;
    this.chunks = part ? this.index.chunks.concat(part.chunks.map((c) => ({ ...c, doc: c.doc + docOffset }))) : this.index.chunks;
    this.resolver = null;
  }

  /** Whether a hit's chunk number is one of the customer's documents'. */
  private isDevice(chunk: number): boolean {
    return chunk >= this.index.bm25.chunks;
  }

  /**
   * Where a chunk lies, read from the BM25 base (the customer's part's for theirs), never from
   * the chunk: ranking then needs no chunk fragment, only the hits it returns do (index-by-need.ts).
   */
  readonly placeOf: PlaceOf = (i) => {
    const site = this.index.bm25;
    if (i < site.chunks) return { doc: site.locator.doc[i], page: site.locator.page[i], section: site.locator.section[i] };
    const own = this.device!.bm25.locator;
    const j = i - site.chunks;
    return { doc: own.doc[j] + this.index.documents.length, page: own.page[j], section: own.section[j] + site.chunks };
  };

  get hasVectors(): boolean {
    return this.index.vectors !== null;
  }

  /**
   * Every term a search for `query` looks up in the site's BM25 index: its own words and their
   * expansions (termStats reads the same words). What a reader that loads term fragments by need
   * (core/format/index-by-need.ts) must have loaded before `search`.
   */
  lookupTerms(query: string): string[] {
    const { terms, minedTerms } = this.expander.expand(query);
    return [...new Set([query, terms, minedTerms].flatMap((text) => (text ? tokenize(text, { forQuery: true }) : [])))];
  }

  /** The router's best domain and its confidence; whether to filter on it is search()'s call. */
  route(query: string): RouteResult | null {
    return this.index.router ? routeQuery(this.index.router, query, { minConfidence: 0 }) : null;
  }

  search(query: string, options: SearchOptions = {}): SearchResult {
    return this.describeSections(query, this.rankSections(query, options), options);
  }

  /**
   * `search` over a build read by need (core/format/index-by-need.ts): reads the term fragments of
   * the query's words, ranks (the BM25 base places every candidate), then reads the chunk
   * fragments of the hits it returns before describing them. A hit's section and the clauses it
   * refers to are of its document, and a document's chunks are in one fragment. The result is
   * `search`'s over the whole build.
   */
  async searchByNeed(query: string, options: SearchOptions, reader: FragmentReader, signal?: AbortSignal): Promise<SearchResult> {
    await reader.ensureTerms(this.lookupTerms(query), signal);
    if (options.collapseTwins ?? this.index.manifest.retrieval.collapseTwins) {
      // Collapsing reads the twins of every candidate, not only of the hits.
      const { bm25, vector } = this.candidates(query, options);
      await this.ensureChunks(
        reader,
        [...bm25, ...vector].map((h) => h.chunk),
        signal,
      );
    }
    const ranked = this.rankSections(query, options);
    await this.ensureChunks(
      reader,
      ranked.sections.map((s) => s.chunks[0]),
      signal,
    );
    return this.describeSections(query, ranked, options);
  }

  private async ensureChunks(reader: FragmentReader, chunks: number[], signal?: AbortSignal): Promise<void> {
    if (
      await reader.ensureChunks(
        chunks.filter((i) => !this.isDevice(i)),
        signal,
      )
    )
      this.chunksLoaded();
  }

  /** The first stage, and its first k sections (one result per section of a page). */
  private rankSections(query: string, options: SearchOptions): RankedSections {
    const { ranked, ...first } = this.firstStage(query, options);
    // One result per section of a page, its best chunk: the answer widens a hit to its section
    // anyway, so a second chunk of the same section would only repeat it.
    const sections = groupBySection(ranked, this.placeOf).slice(0, options.k ?? 10);
    return { first, ranked, sections };
  }

  private describeSections(query: string, { first, ranked, sections }: RankedSections, options: SearchOptions): SearchResult {
    const best = new Map(ranked.map((h) => [h.chunk, h]));
    return {
      query,
      ...first,
      hits: sections.map((section, i) => this.describe(best.get(section.chunks[0])!, i + 1, options.crossReferences !== false)),
    };
  }

  /** Every page of the first stage's pool, in rank order, with what was known when ranking it. */
  pageCandidates(query: string, options: SearchOptions = {}): { pages: PageCandidate[]; route: RouteResult | null; termStats: TermStats } {
    const { ranked, route, termStats } = this.firstStage(query, options);
    return { pages: groupByPage(ranked, this.placeOf), route, termStats };
  }

  /** Route, BM25 and vectors over a fixed pool, fusion, the routed domain's boost, twins collapsed. */
  private firstStage(query: string, options: SearchOptions): Omit<SearchResult, 'query' | 'hits'> & { ranked: CollapsedHit[] } {
    const candidates = this.candidates(query, options);
    const { mode, route, domainFilter, expansions } = candidates;
    return {
      mode,
      route,
      domainFilter,
      expansions,
      termStats: this.termStats(query),
      semantic: this.semantic(candidates, options.queryVector ?? null),
      ranked: this.fuseCandidates(candidates, options),
    };
  }

  /**
   * The vector side's nearest chunk and nearest other page, whether BM25's best agrees, and how
   * near the question lies to the index as a whole (hybrid only).
   */
  semantic(candidates: FirstStageCandidates, queryVector: Float32Array | null): SemanticEvidence | null {
    const { mode, bm25, vector } = candidates;
    if (mode !== 'hybrid' || vector.length === 0 || !this.index.manifest.embedder || !queryVector || !this.index.vectors) return null;
    const pageOf = (i: number) => {
      const { doc, page } = this.placeOf(i);
      return `${doc}:${page}`;
    };
    const first = pageOf(vector[0].chunk);
    const other = vector.find((h) => pageOf(h.chunk) !== first);
    const centroid = corpusCentroid(this.index.vectors);
    return {
      top: vector[0].score,
      second: other?.score ?? 0,
      agree: bm25.length > 0 && pageOf(bm25[0].chunk) === first,
      corpus: centroid ? corpusAffinity(centroid, queryVector) : 0,
      embedder: this.index.manifest.embedder.id,
    };
  }

  /**
   * Routes the query and fetches each side's candidates: search() is this and fuseCandidates();
   * the fusion fitting script calls the two apart to fuse one set of candidates many ways.
   */
  candidates(query: string, options: SearchOptions = {}): FirstStageCandidates {
    const defaults = this.index.manifest.retrieval;
    let mode: SearchMode = options.mode ?? (this.hasVectors && options.queryVector ? 'hybrid' : 'bm25');
    if (mode !== 'bm25' && (!options.queryVector || !this.index.vectors)) mode = 'bm25';

    let route: RouteResult | null = null;
    let domainFilter: string | null = options.domain ?? null;
    if (!domainFilter && options.route !== false) {
      route = this.route(query);
      const min = options.routeMinConfidence ?? defaults.routeMinConfidence;
      if (route?.domain && route.confidence >= min) domainFilter = route.domain;
    }

    const hybrid = mode === 'hybrid';
    const bm25Pool = hybrid ? (options.bm25Pool ?? defaults.bm25Pool) : FIRST_STAGE_POOL;
    const vectorPool = hybrid ? (options.vectorPool ?? defaults.vectorPool) : FIRST_STAGE_POOL;
    const bm25Options = { k: bm25Pool, domain: domainFilter, contextBoost: options.contextBoost ?? defaults.contextBoost };
    let bm25: ScoredChunk[] = mode === 'vector' ? [] : this.searchWords(query, bm25Options);
    const weights = {
      curated: options.expansionWeight ?? defaults.expansionWeight,
      mined: options.minedExpansionWeight ?? defaults.minedExpansionWeight ?? 0,
    };
    const expansion = this.expander.expand(query);
    const passes = [
      { terms: expansion.terms, weight: weights.curated },
      { terms: expansion.minedTerms, weight: weights.mined },
    ].filter((p) => p.terms && p.weight > 0);
    if (mode !== 'vector' && passes.length) {
      // The equivalents score in their own pass, added at a fraction of their weight: they may
      // find a passage, but they never outweigh the customer's own words.
      const scores = new Map(bm25.map((h) => [h.chunk, h.score]));
      for (const pass of passes) {
        for (const h of this.searchWords(pass.terms, bm25Options)) scores.set(h.chunk, (scores.get(h.chunk) ?? 0) + pass.weight * h.score);
      }
      bm25 = [...scores]
        .map(([chunk, score]) => ({ chunk, score }))
        .sort((a, b) => b.score - a.score || a.chunk - b.chunk)
        .slice(0, bm25Pool);
    }
    let vector: ScoredChunk[] = [];
    if (mode !== 'bm25' && options.queryVector && this.index.vectors) {
      const { documents } = this.index;
      const docs = this.index.bm25.locator.doc;
      const filter = domainFilter ? (i: number) => documents[docs[i]].domain === domainFilter : undefined;
      vector = searchVectors(this.index.vectors, options.queryVector, { k: vectorPool, filter });
      const deviceVectors = this.device?.vectors;
      if (deviceVectors && deviceVectors.dim === options.queryVector.length) {
        // The customer's chunks are never filtered by the site's domains; a row not embedded yet scores 0.
        const offset = this.index.bm25.chunks;
        const own = searchVectors(deviceVectors, options.queryVector, { k: vectorPool }).filter((h) => h.score > 0);
        vector = vector
          .concat(own.map((h) => ({ chunk: h.chunk + offset, score: h.score })))
          .sort((a, b) => b.score - a.score || a.chunk - b.chunk)
          .slice(0, vectorPool);
      }
    }
    return { query, mode, route, domainFilter, expansions: expansion.expansions.filter((e) => weights[e.source] > 0), bm25, vector };
  }

  /**
   * BM25 over the site's index and, when the customer added documents, over theirs, scored as part
   * of the site's collection (Bm25SearchOptions.background) and never filtered by a site domain.
   */
  private searchWords(text: string, options: Bm25SearchOptions): ScoredChunk[] {
    const site = this.bm25.search(text, options);
    if (!this.deviceBm25) return site;
    const offset = this.index.bm25.chunks;
    const own = this.deviceBm25.search(text, { ...options, domain: null, background: this.index.bm25 });
    return site
      .concat(own.map((h) => ({ chunk: h.chunk + offset, score: h.score })))
      .sort((a, b) => b.score - a.score || a.chunk - b.chunk)
      .slice(0, options.k);
  }

  /** Fusion (hybrid only: one side alone keeps its own order), the routed domain's soft boost, the customer's documents' preference, twins collapsed. */
  fuseCandidates(candidates: FirstStageCandidates, options: SearchOptions = {}): CollapsedHit[] {
    const defaults = this.index.manifest.retrieval;
    const { query, mode, bm25, vector, route, domainFilter } = candidates;
    let fused =
      mode === 'hybrid'
        ? fuse(bm25, vector, {
            method: options.fusion ?? defaults.fusion,
            bm25Weight: options.bm25Weight ?? defaults.bm25Weight,
            rrfK: options.rrfK ?? defaults.rrfK,
          })
        : fuseScores(bm25, vector, mode === 'bm25' ? 1 : 0);
    const boost = options.routeBoost ?? defaults.routeBoost ?? 0;
    if (!domainFilter && route?.domain && boost > 0) {
      // A soft preference for the routed domain: a wrong guess demotes the answer instead of
      // removing it, which a hard filter would.
      const { documents } = this;
      const factor = 1 + boost * route.confidence;
      // The customer's own documents count as the routed domain's: they are about their own
      // insurance, and a boost the site's booklets got without them would cancel their preference.
      const routed = (chunk: number) => this.isDevice(chunk) || documents[this.placeOf(chunk).doc].domain === route.domain;
      fused = fused.map((h) => (routed(h.chunk) ? { ...h, score: h.score * factor } : h)).sort((a, b) => b.score - a.score || a.chunk - b.chunk);
    }
    if (this.device) {
      const factor = 1 + DEVICE_PREFERENCE;
      fused = fused.map((h) => (this.isDevice(h.chunk) ? { ...h, score: h.score * factor } : h)).sort((a, b) => b.score - a.score || a.chunk - b.chunk);
    }
    const collapse = options.collapseTwins ?? defaults.collapseTwins;
    if (collapse) return collapseTwins(fused, this.chunks, this.documents, query);
    return fused.map((h) => ({ chunk: h.chunk, score: h.score, bm25: h.bm25, vector: h.vector, twins: [] }));
  }

  /** Document frequencies of the query's terms over the whole index (no domain filter). */
  termStats(query: string): TermStats {
    const df: Record<string, number> = {};
    const own = this.deviceBm25;
    for (const term of tokenize(query, { forQuery: true })) df[term] = this.bm25.documentFrequency(term) + (own?.documentFrequency(term) ?? 0);
    return { chunks: this.chunks.length, df };
  }

  /** The clauses of its own document that a chunk refers to, resolved on demand. */
  references(chunkIndex: number): PassageReference[] {
    this.resolver ??= new CrossReferenceResolver(this.chunks);
    return this.resolver.resolve(chunkIndex).map((r) => {
      const c = this.chunks[r.chunk];
      return { clause: r.clause, chunkId: c.id, page: c.page, text: clauseExcerpt(c.text, r.clause) };
    });
  }

  private describe(hit: CollapsedHit, rank: number, withReferences: boolean): RetrievedPassage {
    const { twins, ...fusedHit } = hit;
    const chunk = this.chunk(hit.chunk);
    const doc = this.documents[chunk.doc];
    const device = this.isDevice(hit.chunk) && this.device ? this.device.documentIds[chunk.doc - this.index.documents.length] : null;
    return {
      ...fusedHit,
      origin: device ? 'device' : 'site',
      ...(device ? { deviceDocument: device } : {}),
      alsoIn: twins.map((t) => {
        const c = this.chunks[t.chunk];
        const d = this.documents[c.doc];
        return { chunkId: c.id, file: d.file, page: c.page, title: d.title, url: d.url };
      }),
      editions: this.editionPages(doc, chunk.page),
      rank,
      chunkId: chunk.id,
      file: doc.file,
      page: chunk.page,
      title: doc.title,
      url: doc.url,
      domain: doc.domain,
      sectionPath: chunk.sectionPath,
      clause: chunk.clause,
      text: chunk.text,
      twin: chunk.twin ?? null,
      pageTwin: chunk.pageTwin ?? null,
      ...(withReferences ? { references: this.references(hit.chunk) } : {}),
    };
  }

  /** The pages of `doc`'s other-language editions that hold what its `page` holds. */
  private editionPages(doc: IndexedDocument, page: number): EditionPage[] {
    return (doc.editions ?? []).flatMap((ref) => {
      const other = this.documents[ref.doc];
      return ref.pages.filter(([p]) => p === page).map(([, q]) => ({ file: other.file, page: q, title: other.title, url: other.url, lang: ref.lang }));
    });
  }

  /**
   * The chunks of the same section on the same page, in reading order: wider context for a hit.
   * A section's id is its first chunk, and a document's chunks follow each other: the scan starts
   * there and stops at the document's end.
   */
  expandToParent(chunkIndex: number): Chunk[] {
    const { doc, section } = this.placeOf(chunkIndex);
    const start = typeof section === 'number' ? section : chunkIndex;
    const out: Chunk[] = [];
    for (let j = start; j < this.chunks.length; j++) {
      const place = this.placeOf(j);
      if (place.doc !== doc) break;
      if (place.section === section) out.push(this.chunk(j));
    }
    return out;
  }

  /** Chunk `i`, which must be loaded (a reader by need loads the hits' fragments before describing them). */
  private chunk(i: number): Chunk {
    const chunk = this.chunks[i];
    if (!chunk) throw createError('INDEX_FRAGMENT_MISSING', `the chunk fragment of chunk ${i}`);
    return chunk;
  }

  /** Chunk fragments came in (index-by-need.ts): what was read from the chunks loaded before is read again. */
  chunksLoaded(): void {
    // The join with the customer's chunks is a copy of the site's array: made again with the new ones.
    this.joinChunks();
  }

  document(chunkIndex: number): IndexedDocument {
    return this.documents[this.placeOf(chunkIndex).doc];
  }
}

/** Distinct (file, page) pairs in rank order: what page-level metrics score. */
export function rankedPages(hits: readonly { file: string; page: number }[]): { file: string; page: number }[] {
  const seen = new Set<string>();
  const pages: { file: string; page: number }[] = [];
  for (const h of hits) {
    const key = `${h.file}\u0000${h.page}`;
    if (seen.has(key)) continue;
    seen.add(key);
    pages.push({ file: h.file, page: h.page });
  }
  return pages;
}
