/**
 * The widget's one IndexedDB database. Index builds and conversations share it so a site has a
 * single entry to clear; both stores are created in version 1 and never migrated in place.
 */
import { openDB, type DBSchema, type IDBPDatabase } from 'idb';
import type { ChatTurn } from '../answer/types.ts';
import type { IndexFileRole } from '../core/format/manifest.ts';

export const DB_NAME = 'harel-chat';
const DB_VERSION = 1;

/** A verified build as downloaded (compressed bytes), keyed by index URL and build id. */
export interface StoredBuild {
  key: string;
  indexKey: string;
  buildId: string;
  storedAt: number;
  /** The manifest's own bytes: a fallback build must be decoded with its own manifest. */
  manifest: Uint8Array;
  files: Partial<Record<IndexFileRole, Uint8Array>>;
  /** The version of the structural checks (read-index.ts, STRUCTURE_CHECKS) the files passed when stored; absent in builds stored before it was kept. */
  checks?: number;
}

export interface StoredConversation {
  indexKey: string;
  turns: ChatTurn[];
  updatedAt: number;
}

export interface HarelDb extends DBSchema {
  builds: { key: string; value: StoredBuild; indexes: { byIndex: string } };
  conversations: { key: string; value: StoredConversation };
}

export function buildKey(indexKey: string, buildId: string): string {
  return `${indexKey}\u0000${buildId}`;
}

export async function openHarelDb(): Promise<IDBPDatabase<HarelDb>> {
  if (typeof indexedDB === 'undefined') throw new Error('IndexedDB is not available in this browser context');
  return openDB<HarelDb>(DB_NAME, DB_VERSION, {
    upgrade(db) {
      db.createObjectStore('builds', { keyPath: 'key' }).createIndex('byIndex', 'indexKey');
      db.createObjectStore('conversations', { keyPath: 'indexKey' });
    },
  });
}
