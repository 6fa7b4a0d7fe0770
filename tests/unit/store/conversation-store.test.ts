import 'fake-indexeddb/auto';
import { IDBFactory } from 'fake-indexeddb';
import { beforeEach, describe, expect, it } from 'vitest';
import type { ChatTurn } from '../../../widget/answer/types.ts';
import { memoryConversationStore, openConversationStore, type ConversationStore } from '../../../widget/store/conversation-store.ts';

const turn = (role: ChatTurn['role'], text: string): ChatTurn => ({ role, text, at: 1 });

beforeEach(() => {
  globalThis.indexedDB = new IDBFactory();
});

async function exercise(store: ConversationStore) {
  expect(await store.load('a')).toEqual([]);
  await store.append('a', turn('user', 'מה ההשתתפות העצמית?'));
  expect(await store.append('a', turn('assistant', 'ההשתתפות העצמית היא 1,200 ש"ח [1]'))).toHaveLength(2);
  await store.append('b', turn('user', 'other index'));
  expect((await store.load('a')).map((t) => t.role)).toEqual(['user', 'assistant']);
  await store.save('a', [turn('user', 'replaced')]);
  expect(await store.load('a')).toEqual([turn('user', 'replaced')]);
  await store.clear('a');
  expect(await store.load('a')).toEqual([]);
  expect(await store.load('b')).toHaveLength(1);
}

describe('conversation store', () => {
  it('persists turns per index URL in IndexedDB across openings', async () => {
    const { store, persistent } = await openConversationStore();
    expect(persistent).toBe(true);
    await exercise(store);
    await store.append('c', turn('user', 'kept'));
    const reopened = (await openConversationStore()).store;
    expect(await reopened.load('c')).toEqual([turn('user', 'kept')]);
  });

  it('behaves the same in memory, and hands out copies', async () => {
    const store = memoryConversationStore();
    await exercise(store);
    const turns = await store.append('x', turn('user', 'q'));
    turns[0].text = 'changed';
    expect((await store.load('x'))[0].text).toBe('q');
  });

  it('falls back to memory when IndexedDB is missing', async () => {
    const saved = globalThis.indexedDB;
    // @ts-expect-error simulating a browser context without IndexedDB
    delete globalThis.indexedDB;
    try {
      const { persistent } = await openConversationStore();
      expect(persistent).toBe(false);
    } finally {
      globalThis.indexedDB = saved;
    }
  });
});
