/**
 * A build opened with its always-read part only, its fragments read when a question needs them
 * (issue 56: a large site answers its first question before the whole index is fetched). The
 * always-read part: the manifest, documents, router, lexicon, the BM25 base (the collection's
 * statistics, so scores are the whole index's, and each chunk's document, page and section, so
 * ranking needs no chunk) and, for now, the vectors. A search reads the term fragments of its
 * words, ranks, then reads the chunk fragments of the hits it returns (Retriever.searchByNeed).
 *
 * Each fragment is verified against the manifest (size, sha256) before it is used, fetched once
 * however many searches ask for it at the same time, and counted: `fetched` says what a visitor
 * would have downloaded.
 */
import { throwIfAborted } from '../errors.ts';
import type { WorkOptions } from '../schema.ts';
import { fragmentKey, parseFragmentKey, type FragmentKind, type IndexFileKey, type IndexManifest } from './manifest.ts';
import { checkChunksAgainstDocuments } from './validate.ts';
import { decodeIndexFiles, placeChunkFragment, readManifest, readVerified, type IndexFileSource, type InflatedFiles, type LoadedIndex } from './read-index.ts';

/** What was read from the source: files and their stored (gzip) bytes. */
export interface FetchedBytes {
  files: number;
  bytes: number;
}

export class IndexByNeed {
  readonly index: LoadedIndex;
  readonly manifest: IndexManifest;
  private readonly source: IndexFileSource;
  private readonly pending = new Map<string, Promise<void>>();
  private readonly chunkFragments: boolean[];
  /** Counted by `source` as it reads. */
  private readonly counted: FetchedBytes;

  private constructor(index: LoadedIndex, source: IndexFileSource, fetched: FetchedBytes) {
    this.index = index;
    this.manifest = index.manifest;
    this.source = source;
    this.counted = fetched;
    this.chunkFragments = new Array<boolean>(index.manifest.fragments.chunks).fill(false);
  }

  /** Reads the manifest and the always-read part; no term fragment yet. */
  static async open(inner: IndexFileSource, options: WorkOptions = {}): Promise<IndexByNeed> {
    const fetched: FetchedBytes = { files: 0, bytes: 0 };
    const source: IndexFileSource = {
      async read(path, signal) {
        const bytes = await inner.read(path, signal);
        fetched.files++;
        fetched.bytes += bytes.byteLength;
        return bytes;
      },
    };
    const manifest = await readManifest(source, options.signal);
    const keys = (Object.keys(manifest.files) as IndexFileKey[]).filter((key) => parseFragmentKey(key) === null);
    const raw: InflatedFiles = {};
    for (const key of keys) {
      throwIfAborted(options.signal);
      raw[key] = await readVerified(source, manifest.files[key]!, options.signal);
    }
    const index = decodeIndexFiles(manifest, raw, { byNeed: true });
    return new IndexByNeed(index, source, fetched);
  }

  /** Files and stored bytes read so far, the manifest included. */
  get fetched(): FetchedBytes {
    return { ...this.counted };
  }

  /** Reads the term fragments these terms are in that are not loaded yet; resolves when all are. */
  async ensureTerms(terms: Iterable<string>, signal?: AbortSignal): Promise<void> {
    await Promise.all(this.index.bm25.missingTermFragments(terms).map((fragment) => this.load('terms', fragment, signal)));
  }

  /**
   * Reads the chunk fragments that hold these chunks (numbers of the site's index) and are not
   * loaded yet; resolves to whether any was.
   */
  async ensureChunks(chunks: Iterable<number>, signal?: AbortSignal): Promise<boolean> {
    const { bm25 } = this.index;
    const missing = new Set<number>();
    for (const i of chunks) if (i >= 0 && i < bm25.chunks && !this.index.chunks[i]) missing.add(bm25.chunkFragmentOf(i));
    await Promise.all([...missing].map((fragment) => this.load('chunks', fragment, signal)));
    return missing.size > 0;
  }

  /** Whether every fragment is loaded: the build is then the whole index. */
  get complete(): boolean {
    return this.index.bm25.complete && this.chunkFragments.every(Boolean);
  }

  /** Every fragment not loaded yet, terms then chunks: what a fill for offline use reads. */
  async fill(options: WorkOptions = {}): Promise<void> {
    const todo: [FragmentKind, number][] = [];
    for (let i = 0; i < this.manifest.fragments.terms; i++) if (!this.index.bm25.hasTerms(i)) todo.push(['terms', i]);
    this.chunkFragments.forEach((loaded, i) => loaded || todo.push(['chunks', i]));
    for (const [done, [kind, i]] of todo.entries()) {
      throwIfAborted(options.signal);
      options.onProgress?.({ step: 'load', done, total: todo.length, detail: this.manifest.files[fragmentKey(kind, i)]?.path });
      await this.load(kind, i, options.signal);
    }
    options.onProgress?.({ step: 'load', done: todo.length, total: todo.length });
  }

  private load(kind: FragmentKind, fragment: number, signal?: AbortSignal): Promise<void> {
    if (kind === 'terms' ? this.index.bm25.hasTerms(fragment) : this.chunkFragments[fragment]) return Promise.resolve();
    const key = fragmentKey(kind, fragment);
    let loading = this.pending.get(key);
    if (!loading) {
      const entry = this.manifest.files[key]!;
      loading = readVerified(this.source, entry, signal).then((bytes) => {
        const { index } = this;
        if (kind === 'terms') index.bm25.addTerms(fragment, bytes, entry.path);
        else {
          const chunks = placeChunkFragment(index.chunks, fragment, bytes, index.bm25, entry.path);
          checkChunksAgainstDocuments(chunks, index.documents, entry.path, index.bm25.chunks);
          this.chunkFragments[fragment] = true;
        }
      });
      // A failed read may be tried again by the next search.
      loading.finally(() => this.pending.delete(key)).catch(() => undefined);
      this.pending.set(key, loading);
    }
    return loading;
  }
}
