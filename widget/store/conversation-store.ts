/**
 * The conversation, kept per index URL so two sites' (or two indexes') conversations never mix.
 * Writes replace the whole list: a conversation is short, and a single put cannot leave half a turn.
 */
import type { IDBPDatabase } from 'idb';
import type { ChatTurn } from '../answer/types.ts';
import { openHarelDb, type HarelDb } from './db.ts';
import { storedTurns } from './stored-turns.ts';

export interface ConversationStore {
  load(key: string): Promise<ChatTurn[]>;
  /** Replaces the stored turns (after an answer streamed in, a retry, an edit). */
  save(key: string, turns: readonly ChatTurn[]): Promise<void>;
  append(key: string, turn: ChatTurn): Promise<ChatTurn[]>;
  clear(key: string): Promise<void>;
}

/**
 * The turns as stored (stored-turns.ts: the answers without their evaluation payload), as plain
 * data: answers hold nothing else, and a JSON copy drops anything that is not, e.g. a getter's host.
 */
const plain = (turns: readonly ChatTurn[]): ChatTurn[] => JSON.parse(JSON.stringify(storedTurns(turns))) as ChatTurn[];

class IdbConversationStore implements ConversationStore {
  constructor(private readonly db: IDBPDatabase<HarelDb>) {}

  async load(key: string): Promise<ChatTurn[]> {
    // Cut down whoever wrote it: the upgrade to version 3 rewrote the records stored before, but a
    // record put as it was (a test's, a hand-edited one) reads back the same as one saved now.
    return storedTurns((await this.db.get('conversations', key))?.turns ?? []);
  }

  async save(key: string, turns: readonly ChatTurn[]): Promise<void> {
    await this.db.put('conversations', { indexKey: key, turns: plain(turns), updatedAt: Date.now() });
  }

  async append(key: string, turn: ChatTurn): Promise<ChatTurn[]> {
    // Read and write in one transaction so two tabs appending at once do not drop a turn.
    const tx = this.db.transaction('conversations', 'readwrite');
    const turns = [...storedTurns((await tx.store.get(key))?.turns ?? []), ...plain([turn])];
    await Promise.all([tx.store.put({ indexKey: key, turns, updatedAt: Date.now() }), tx.done]);
    return turns;
  }

  async clear(key: string): Promise<void> {
    await this.db.delete('conversations', key);
  }
}

/** Keeps the conversation for this page's life only: the fallback when IndexedDB cannot be used. */
export function memoryConversationStore(): ConversationStore {
  const all = new Map<string, ChatTurn[]>();
  return {
    async load(key) {
      return plain(all.get(key) ?? []);
    },
    async save(key, turns) {
      all.set(key, plain(turns));
    },
    async append(key, turn) {
      const turns = [...(all.get(key) ?? []), ...plain([turn])];
      all.set(key, turns);
      return plain(turns);
    },
    async clear(key) {
      all.delete(key);
    },
  };
}

/** The IndexedDB store, or the in-memory one (with `persistent: false`) when IndexedDB cannot open. */
export async function openConversationStore(): Promise<{ store: ConversationStore; persistent: boolean }> {
  try {
    return { store: new IdbConversationStore(await openHarelDb()), persistent: true };
  } catch {
    return { store: memoryConversationStore(), persistent: false };
  }
}
