/**
 * The widget's one IndexedDB database. Index builds, conversations and the customer's own
 * documents share it so a site has a single entry to clear. Stores are added (builds and
 * conversations in version 1, the device documents' three in version 2); version 3 rewrote the
 * stored conversations in place, their answers cut down to what a conversation keeps (stored-turns.ts).
 */
import { openDB, type DBSchema, type IDBPDatabase, type IDBPObjectStore, type StoreNames } from 'idb';
import type { ChatTurn } from '../answer/types.ts';
import type { IndexFileKey } from '../core/format/manifest.ts';
import type { ParsedDeviceDocument } from '../core/device/device-document.ts';
import { storedTurns } from './stored-turns.ts';

export const DB_NAME = 'harel-chat';
const DB_VERSION = 3;

/** A verified build as downloaded (compressed bytes), keyed by index URL and build id. */
export interface StoredBuild {
  key: string;
  indexKey: string;
  buildId: string;
  storedAt: number;
  /** The manifest's own bytes: a fallback build must be decoded with its own manifest. */
  manifest: Uint8Array;
  files: Partial<Record<IndexFileKey, Uint8Array>>;
  /** The version of the structural checks (read-index.ts, STRUCTURE_CHECKS) the files passed when stored; absent in builds stored before it was kept. */
  checks?: number;
}

export interface StoredConversation {
  indexKey: string;
  turns: ChatTurn[];
  updatedAt: number;
}

/** A customer's document as parsed on the device (its text and chunks), without its file. */
export interface StoredDeviceDocument {
  id: string;
  addedAt: number;
  document: ParsedDeviceDocument;
}

/** The file a customer added, as given (kept so that it is theirs to find again on this device). */
export interface StoredDeviceFile {
  id: string;
  bytes: Uint8Array;
}

/** A device document's vectors so far: `done` rows of `dim` floats, in chunk order. */
export interface StoredDeviceVectors {
  id: string;
  /** The embedder the rows came from: another site's model reads none of them. */
  embedder: string;
  dim: number;
  done: number;
  rows: Float32Array;
}

export interface HarelDb extends DBSchema {
  builds: { key: string; value: StoredBuild; indexes: { byIndex: string } };
  conversations: { key: string; value: StoredConversation };
  'device-documents': { key: string; value: StoredDeviceDocument };
  'device-files': { key: string; value: StoredDeviceFile };
  'device-vectors': { key: string; value: StoredDeviceVectors };
}

export function buildKey(indexKey: string, buildId: string): string {
  return `${indexKey}\u0000${buildId}`;
}

export async function openHarelDb(): Promise<IDBPDatabase<HarelDb>> {
  if (typeof indexedDB === 'undefined') throw new Error('IndexedDB is not available in this browser context');
  return openDB<HarelDb>(DB_NAME, DB_VERSION, {
    upgrade(db, oldVersion, _newVersion, transaction) {
      if (oldVersion < 1) {
        db.createObjectStore('builds', { keyPath: 'key' }).createIndex('byIndex', 'indexKey');
        db.createObjectStore('conversations', { keyPath: 'indexKey' });
      }
      if (oldVersion < 2) {
        db.createObjectStore('device-documents', { keyPath: 'id' });
        db.createObjectStore('device-files', { keyPath: 'id' });
        db.createObjectStore('device-vectors', { keyPath: 'id' });
      }
      // Conversations stored with each answer's ranked passages and evidence: the same turns without them.
      // One that fails stays as it was: loading cuts it down all the same.
      if (oldVersion >= 1 && oldVersion < 3) cutDownConversations(transaction.objectStore('conversations')).catch(() => undefined);
    },
  });
}

/** Rewrites each stored conversation as stored-turns.ts keeps it, inside the upgrade's transaction. */
async function cutDownConversations(store: IDBPObjectStore<HarelDb, StoreNames<HarelDb>[], 'conversations', 'versionchange'>): Promise<void> {
  for (let cursor = await store.openCursor(); cursor; cursor = await cursor.continue()) {
    if (Array.isArray(cursor.value.turns)) await cursor.update({ ...cursor.value, turns: storedTurns(cursor.value.turns) });
  }
}
