/**
 * The customer's own documents in IndexedDB (issue 36): the parsed text and chunks, the file as
 * given, and the vectors embedded so far, each in its own store and keyed by the document's id (the
 * sha256 of its bytes). A document is written whole in one transaction (text and file) or not at
 * all, and removed from all three stores in one transaction: nothing is left half-kept. Vectors are
 * written as they are embedded, so a tab closed while embedding resumes where it stopped.
 */
import type { IDBPDatabase } from 'idb';
import { createError, isHarelError } from '../core/errors.ts';
import type { ParsedDeviceDocument } from '../core/device/device-document.ts';
import { openHarelDb, type HarelDb, type StoredDeviceDocument, type StoredDeviceVectors } from './db.ts';

const STORES = ['device-documents', 'device-files', 'device-vectors'] as const;

export interface DeviceStore {
  /** Every stored document, oldest first. */
  list(): Promise<StoredDeviceDocument[]>;
  /** Keeps a document and its file; DOCUMENT_DUPLICATE when its bytes are already kept, DOCUMENT_STORAGE_QUOTA when they do not fit. */
  add(document: ParsedDeviceDocument, file: Uint8Array, addedAt: number): Promise<StoredDeviceDocument>;
  /** The vectors embedded so far for `id`, or null. */
  vectors(id: string): Promise<StoredDeviceVectors | null>;
  /** Replaces `id`'s vectors; ignored once the document is removed (a late write never revives it). */
  putVectors(vectors: StoredDeviceVectors): Promise<void>;
  /** The text of one page (1-based); DOCUMENT_NOT_FOUND when the document or page is not kept. */
  page(id: string, page: number): Promise<string>;
  remove(id: string): Promise<void>;
  removeAll(): Promise<void>;
}

const isQuota = (error: unknown) => (error as { name?: string } | null)?.name === 'QuotaExceededError';

class IdbDeviceStore implements DeviceStore {
  constructor(private readonly db: IDBPDatabase<HarelDb>) {}

  async list(): Promise<StoredDeviceDocument[]> {
    const all = await this.db.getAll('device-documents');
    return all.sort((a, b) => a.addedAt - b.addedAt || a.id.localeCompare(b.id));
  }

  async add(document: ParsedDeviceDocument, file: Uint8Array, addedAt: number): Promise<StoredDeviceDocument> {
    const stored: StoredDeviceDocument = { id: document.id, addedAt, document };
    const tx = this.db.transaction(['device-documents', 'device-files'], 'readwrite');
    try {
      const existing = await tx.objectStore('device-documents').get(document.id);
      if (existing) throw createError('DOCUMENT_DUPLICATE', document.name, existing.document.name);
      await Promise.all([tx.objectStore('device-documents').put(stored), tx.objectStore('device-files').put({ id: document.id, bytes: file }), tx.done]);
      return stored;
    } catch (error) {
      // Whatever failed, the transaction keeps nothing: abort it if it is still open.
      try {
        tx.abort();
      } catch {}
      await tx.done.catch(() => undefined);
      if (isHarelError(error)) throw error;
      if (isQuota(error)) throw createError('DOCUMENT_STORAGE_QUOTA', document.name, 'the browser refused to store it');
      throw error;
    }
  }

  async vectors(id: string): Promise<StoredDeviceVectors | null> {
    return (await this.db.get('device-vectors', id)) ?? null;
  }

  async putVectors(vectors: StoredDeviceVectors): Promise<void> {
    const tx = this.db.transaction(['device-documents', 'device-vectors'], 'readwrite');
    if (await tx.objectStore('device-documents').getKey(vectors.id)) await tx.objectStore('device-vectors').put(vectors);
    await tx.done;
  }

  async page(id: string, page: number): Promise<string> {
    const stored = await this.db.get('device-documents', id);
    const text = stored?.document.pageTexts[page - 1];
    if (text === undefined) throw createError('DOCUMENT_NOT_FOUND', `${id} p. ${page}`);
    return text;
  }

  async remove(id: string): Promise<void> {
    const tx = this.db.transaction([...STORES], 'readwrite');
    await Promise.all([...STORES.map((name) => tx.objectStore(name).delete(id)), tx.done]);
  }

  async removeAll(): Promise<void> {
    const tx = this.db.transaction([...STORES], 'readwrite');
    await Promise.all([...STORES.map((name) => tx.objectStore(name).clear()), tx.done]);
  }
}

/** Keeps documents for this page's life only: where IndexedDB cannot open (some private windows). */
export function memoryDeviceStore(): DeviceStore {
  const documents = new Map<string, StoredDeviceDocument>();
  const vectors = new Map<string, StoredDeviceVectors>();
  return {
    async list() {
      return [...documents.values()].sort((a, b) => a.addedAt - b.addedAt || a.id.localeCompare(b.id));
    },
    async add(document, _file, addedAt) {
      const existing = documents.get(document.id);
      if (existing) throw createError('DOCUMENT_DUPLICATE', document.name, existing.document.name);
      const stored = { id: document.id, addedAt, document };
      documents.set(document.id, stored);
      return stored;
    },
    async vectors(id) {
      return vectors.get(id) ?? null;
    },
    async putVectors(v) {
      if (documents.has(v.id)) vectors.set(v.id, v);
    },
    async page(id, page) {
      const text = documents.get(id)?.document.pageTexts[page - 1];
      if (text === undefined) throw createError('DOCUMENT_NOT_FOUND', `${id} p. ${page}`);
      return text;
    },
    async remove(id) {
      documents.delete(id);
      vectors.delete(id);
    },
    async removeAll() {
      documents.clear();
      vectors.clear();
    },
  };
}

/** The IndexedDB store, or the in-memory one (`persistent: false`) when IndexedDB cannot open. */
export async function openDeviceStore(): Promise<{ store: DeviceStore; persistent: boolean }> {
  try {
    return { store: new IdbDeviceStore(await openHarelDb()), persistent: true };
  } catch {
    return { store: memoryDeviceStore(), persistent: false };
  }
}
