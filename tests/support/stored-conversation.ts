/**
 * The demo page's conversation as the widget keeps it in IndexedDB (store `conversations` of
 * database `harel-chat`, keyed by the index's manifest URL): browser tests write one to see how
 * a stored (possibly hand-edited) conversation renders after a reload, and read one back to check
 * what was saved.
 */
import type { Page } from '@playwright/test';

export interface StoredConversationRecord<T = unknown> {
  indexKey: string;
  updatedAt: number;
  turns: T[];
}

/** Writes or reads the stored conversation, in the page. */
function withDatabase<R>(page: Page, mode: 'put' | 'get', turns: readonly unknown[] | null): Promise<R> {
  return page.evaluate(
    async ({ mode, turns }) => {
      const key = new URL('/index/manifest.json', location.href).href;
      const db = await new Promise<IDBDatabase>((resolve, reject) => {
        const request = indexedDB.open('harel-chat');
        request.onsuccess = () => resolve(request.result);
        request.onerror = () => reject(request.error);
      });
      try {
        const store = db.transaction('conversations', 'readwrite').objectStore('conversations');
        const request: IDBRequest = mode === 'put' ? store.put({ indexKey: key, updatedAt: Date.now(), turns }) : store.get(key);
        return await new Promise<R>((resolve, reject) => {
          request.onsuccess = () => resolve(request.result as R);
          request.onerror = () => reject(request.error);
        });
      } finally {
        db.close();
      }
    },
    { mode, turns },
  );
}

/** Replaces the demo index's stored conversation with `turns`. */
export async function storeConversation(page: Page, turns: readonly unknown[]): Promise<void> {
  await withDatabase(page, 'put', turns);
}

/** The demo index's stored conversation, or undefined. */
export function readStoredConversation<T>(page: Page): Promise<StoredConversationRecord<T> | undefined> {
  return withDatabase(page, 'get', null);
}
