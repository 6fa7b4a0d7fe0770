/**
 * The customer's own documents as the search service holds them (issue 36): kept in the device
 * store, searched at once by BM25 beside the site's index (core/device/device-search-part.ts),
 * and embedded in the background, one chunk at a time, with the site's own passage embedder, so
 * that a question asked meanwhile waits for one chunk's embedding at most. Vectors are stored as
 * they come: a tab closed mid-way resumes from the last stored row. Removing a document stops its
 * embedding and deletes its text, vectors and file.
 */
import { createError, throwIfAborted } from '../core/errors.ts';
import type { DeviceDocumentInfo, DeviceEmbeddingStatus, ParsedDeviceDocument } from '../core/device/device-document.ts';
import type { DeviceSearchPart } from '../core/device/device-search-part.ts';
import { passageText } from '../core/embedding/passage-text.ts';
import type { StoredDeviceDocument } from '../store/db.ts';
import type { DeviceStore } from '../store/device-store.ts';

let searchPart: typeof import('../core/device/device-search-part.ts') | null = null;
/**
 * The search part's builder (with the BM25 compiler), imported when the first document is restored
 * or added: the worker of a visit whose customer keeps none never downloads it.
 */
async function loadSearchPart(): Promise<void> {
  searchPart ??= await import('../core/device/device-search-part.ts');
}

/** Embeds one passage as the site's passages were embedded (prefix included by the caller). */
export interface PassageEmbedder {
  /** The site's embedder id: stored vectors of another model are embedded again. */
  id: string;
  dim: number;
  /** The embedder's passage prefix ('passage: ' for E5). */
  prefix: string;
  embed(text: string, signal?: AbortSignal): Promise<Float32Array | null>;
}

/** Rows embedded between two writes to the store and two rebuilds of the search part. */
const SAVE_EVERY = 16;

interface Entry {
  stored: StoredDeviceDocument;
  rows: (Float32Array | null)[];
  status: DeviceEmbeddingStatus;
  error?: string;
  /** Stops this document's embedding (removal, dispose). */
  controller: AbortController;
  /** Rows read from the store, checked against the embedder once it is known. */
  storedRows?: { embedder: string; dim: number; done: number; rows: Float32Array };
}

export interface DeviceCollectionOptions {
  store: DeviceStore;
  /**
   * Resolves when the service has no question to answer (none in flight, none just answered): the
   * next chunk is embedded only then, since an embedding cannot be interrupted once begun and a
   * question would wait for it. Default: at once.
   */
  idle?: () => Promise<void>;
  /** The search part or a document's state changed (added, removed, embedded further). */
  onChange: (part: DeviceSearchPart | null) => void;
}

export class DeviceCollection {
  private readonly entries = new Map<string, Entry>();
  private embedder: PassageEmbedder | null = null;
  /** Why documents are not embedded: the site has no vectors ('none') or its embedder failed. */
  private unavailable: { status: 'none' | 'failed' | 'waiting'; reason?: string } = { status: 'waiting' };
  private running = false;
  private disposed = false;
  part: DeviceSearchPart | null = null;

  constructor(private readonly options: DeviceCollectionOptions) {}

  /** Reads the documents kept on this device (after a reload); their search part is built at once. */
  async restore(): Promise<void> {
    const kept = await this.options.store.list();
    if (kept.length) await loadSearchPart();
    for (const stored of kept) {
      if (this.entries.has(stored.id)) continue;
      const vectors = await this.options.store.vectors(stored.id);
      const entry = this.entry(stored);
      if (vectors) entry.storedRows = { embedder: vectors.embedder, dim: vectors.dim, done: vectors.done, rows: vectors.rows };
      this.entries.set(stored.id, entry);
    }
    this.adoptStoredRows();
    this.changed();
    this.pump();
  }

  /** Keeps and indexes a parsed document; resolves once BM25 answers from it. */
  async add(document: ParsedDeviceDocument, file: Uint8Array, signal?: AbortSignal): Promise<DeviceDocumentInfo> {
    throwIfAborted(signal);
    const known = this.entries.get(document.id);
    if (known) throw createError('DOCUMENT_DUPLICATE', document.name, known.stored.document.name);
    await loadSearchPart();
    const stored = await this.options.store.add(document, file, Date.now());
    if (signal?.aborted) {
      // Cancelled while it was being written: nothing of it stays.
      await this.options.store.remove(document.id);
      throwIfAborted(signal);
    }
    const entry = this.entry(stored);
    this.entries.set(stored.id, entry);
    this.changed();
    this.pump();
    return this.info(entry);
  }

  async remove(id: string): Promise<void> {
    const entry = this.entries.get(id);
    entry?.controller.abort();
    this.entries.delete(id);
    await this.options.store.remove(id);
    if (entry) this.changed();
  }

  async removeAll(): Promise<void> {
    for (const entry of this.entries.values()) entry.controller.abort();
    const had = this.entries.size > 0;
    this.entries.clear();
    await this.options.store.removeAll();
    if (had) this.changed();
  }

  page(id: string, page: number): Promise<string> {
    if (!this.entries.has(id)) return Promise.reject(createError('DOCUMENT_NOT_FOUND', id));
    return this.options.store.page(id, page);
  }

  infos(): DeviceDocumentInfo[] {
    return [...this.entries.values()].map((e) => this.info(e));
  }

  /**
   * The site's passage embedder is in (documents are embedded from here on), or there will be none:
   * 'none' when the site's index has no vectors, 'failed' (with the reason) when its model failed.
   */
  setEmbedder(embedder: PassageEmbedder | null, unavailable: { status: 'none' | 'failed' | 'waiting'; reason?: string } = { status: 'failed' }): void {
    this.embedder = embedder;
    this.unavailable = embedder ? { status: 'waiting' } : unavailable;
    this.adoptStoredRows();
    // Nothing to report (or rebuild) without documents.
    if (this.entries.size > 0) this.changed();
    this.pump();
  }

  dispose(): void {
    this.disposed = true;
    for (const entry of this.entries.values()) entry.controller.abort();
  }

  private entry(stored: StoredDeviceDocument): Entry {
    return { stored, rows: stored.document.chunks.map(() => null), status: 'waiting', controller: new AbortController() };
  }

  /** Stored rows of the embedder in use become the entry's; another model's are dropped (embedded again). */
  private adoptStoredRows(): void {
    const embedder = this.embedder;
    if (!embedder) return;
    for (const entry of this.entries.values()) {
      const stored = entry.storedRows;
      if (!stored) continue;
      entry.storedRows = undefined;
      if (stored.embedder !== embedder.id || stored.dim !== embedder.dim) continue;
      for (let i = 0; i < Math.min(stored.done, entry.rows.length); i++) entry.rows[i] = stored.rows.slice(i * stored.dim, (i + 1) * stored.dim);
      if (stored.done >= entry.rows.length) entry.status = 'done';
    }
  }

  private info(entry: Entry): DeviceDocumentInfo {
    const { document } = entry.stored;
    const done = entry.rows.filter(Boolean).length;
    const status: DeviceEmbeddingStatus = entry.status === 'done' || entry.status === 'running' || this.embedder ? entry.status : this.unavailable.status;
    // Its own failure, else why no document is embedded (the site's model failed), while that holds.
    const error = entry.error ?? (!this.embedder && status !== 'done' ? this.unavailable.reason : undefined);
    return {
      id: document.id,
      name: document.name,
      pages: document.pageCount,
      chunks: document.chunks.length,
      lang: document.lang,
      addedAt: entry.stored.addedAt,
      embedding: { status, done, total: entry.rows.length, ...(error ? { error } : {}) },
    };
  }

  private changed(): void {
    if (this.disposed) return;
    const entries = [...this.entries.values()].sort((a, b) => a.stored.addedAt - b.stored.addedAt || a.stored.id.localeCompare(b.stored.id));
    // Entries come only through restore() and add(), which load the builder first.
    this.part = entries.length
      ? searchPart!.buildDeviceSearchPart(
          entries.map((e) => ({ document: e.stored.document, vectors: e.rows })),
          this.embedder?.dim ?? null,
          this.part,
        )
      : null;
    this.options.onChange(this.part);
  }

  /** Embeds the waiting documents one after another, in the background. */
  private pump(): void {
    if (this.running || !this.embedder || this.disposed) return;
    const next = [...this.entries.values()].find((e) => e.status === 'waiting');
    if (!next) return;
    this.running = true;
    void this.embedDocument(next, this.embedder).finally(() => {
      this.running = false;
      this.pump();
    });
  }

  private async embedDocument(entry: Entry, embedder: PassageEmbedder): Promise<void> {
    const { document } = entry.stored;
    const signal = entry.controller.signal;
    entry.status = 'running';
    this.changed();
    let sinceSave = 0;
    try {
      for (let i = 0; i < entry.rows.length; i++) {
        if (entry.rows[i]) continue;
        // A turn for the worker's other messages (a question) between two chunks, and none begun while one is answered.
        await new Promise((resolve) => setTimeout(resolve, 0));
        await this.options.idle?.();
        throwIfAborted(signal);
        const vector = await embedder.embed(embedder.prefix + passageText(document.chunks[i], { title: document.title ?? document.name }), signal);
        throwIfAborted(signal);
        if (!vector || vector.length !== embedder.dim) throw new Error(`chunk ${i + 1} could not be embedded`);
        entry.rows[i] = vector;
        if (++sinceSave >= SAVE_EVERY) {
          sinceSave = 0;
          await this.save(entry, embedder);
          this.changed();
        }
      }
      entry.status = 'done';
      await this.save(entry, embedder);
    } catch (error) {
      if (signal.aborted || !this.entries.has(document.id)) return;
      entry.status = 'failed';
      entry.error = error instanceof Error ? error.message : String(error);
    }
    if (this.entries.get(document.id) === entry) this.changed();
  }

  /** Stores the leading embedded rows (the resume point). */
  private async save(entry: Entry, embedder: PassageEmbedder): Promise<void> {
    let done = 0;
    while (done < entry.rows.length && entry.rows[done]) done++;
    const rows = new Float32Array(done * embedder.dim);
    for (let i = 0; i < done; i++) rows.set(entry.rows[i]!, i * embedder.dim);
    // A full disk costs the resume point, not the search: the rows stay in memory.
    await this.options.store.putVectors({ id: entry.stored.id, embedder: embedder.id, dim: embedder.dim, done, rows }).catch(() => undefined);
  }
}
