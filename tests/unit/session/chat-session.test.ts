/**
 * The session's queue of questions asked before the index is ready, with a search service whose
 * load the test finishes (or fails) by hand and a conversation store in memory: the order they are
 * answered in, what a failed load or a stop leaves, and what is saved.
 */
import { describe, expect, it } from 'vitest';
import type { ChatTurn } from '../../../widget/answer/types.ts';
import { createError, type HarelError } from '../../../widget/core/errors.ts';
import type { Progress } from '../../../widget/core/schema.ts';
import type { IndexInfo, SearchResponse, SearchService } from '../../../widget/search/search-service.ts';
import { ChatSession, type AskOptions } from '../../../widget/session/chat-session.ts';
import { memoryConversationStore, type ConversationStore } from '../../../widget/store/conversation-store.ts';

const KEY = 'https://site.test/index/manifest.json';
const OPTIONS: AskOptions = { lang: 'en', domain: null };

const INFO: IndexInfo = {
  buildId: 'b1',
  documentCount: 1,
  chunkCount: 1,
  domains: ['car'],
  embedder: null,
  searchMode: 'bm25',
  embedderError: null,
  fromCache: false,
  storageWarning: null,
};

/** A search service whose load waits for the test, and whose searches find nothing (the loop then says so). */
function heldSearch() {
  let finish!: (info: IndexInfo) => void;
  let fail!: (error: HarelError) => void;
  const loaded = new Promise<IndexInfo>((resolve, reject) => {
    finish = resolve;
    fail = reject;
  });
  let report: ((p: Progress) => void) | undefined;
  const searched: string[] = [];
  let searchHold: Promise<void> = Promise.resolve();
  let onSearch: () => void = () => undefined;
  const service: SearchService = {
    load: async (options) => {
      report = options.onProgress;
      return loaded;
    },
    search: async (request) => {
      searched.push(request.query);
      onSearch();
      await searchHold;
      const response: SearchResponse = {
        result: { query: request.query, mode: 'bm25', route: null, domainFilter: null, expansions: [], termStats: { chunks: 1, df: {} } },
        passages: [],
        timings: { embed: 0, search: 0 },
      };
      return response;
    },
    route: async () => null,
    dispose: () => undefined,
  };
  return {
    service,
    searched,
    finish,
    fail,
    progress: (p: Progress) => report?.(p),
    /** Holds every search until `release` is called, and calls `onStart` when the first one starts. */
    holdSearches(onStart: () => void) {
      let release!: () => void;
      searchHold = new Promise((resolve) => (release = resolve));
      onSearch = () => {
        onSearch = () => undefined;
        onStart();
      };
      return () => release();
    },
  };
}

async function sessionWith(stored: ChatTurn[] = []) {
  const store: ConversationStore = memoryConversationStore();
  if (stored.length) await store.save(KEY, stored);
  const search = heldSearch();
  const session = new ChatSession({ search: search.service, conversations: Promise.resolve(store), conversationKey: KEY, llmLoader: null, onChange: () => undefined });
  const loading = session.loadIndex({ manifestUrl: KEY, modelBase: null });
  return { session, store, search, loading };
}

const roles = (turns: readonly ChatTurn[]) => turns.map((t) => `${t.role}:${t.role === 'user' ? t.text : 'answer'}`);
const earlier: ChatTurn[] = [
  { role: 'user', text: 'asked last visit', at: 1 },
  { role: 'assistant', text: 'answered last visit', at: 2 },
];

describe('ChatSession: questions asked while the index loads', () => {
  it('shows them at once, answers them in order once search works, after the conversation stored earlier', async () => {
    const { session, store, search, loading } = await sessionWith(earlier);
    search.progress({ step: 'download', done: 1_000, total: 5_000 });
    expect(session.indexProgress).toEqual({ step: 'download', done: 1_000, total: 5_000 });
    expect(session.queuing).toBe(true);
    const first = session.submit('How soon must I report a home claim?', OPTIONS);
    const second = session.submit('And a car claim?', OPTIONS);
    expect(session.pending.map((q) => [q.text, q.state])).toEqual([
      ['How soon must I report a home claim?', 'waiting'],
      ['And a car claim?', 'waiting'],
    ]);
    // Not turns yet: the stored conversation has not been read back.
    expect(session.turns).toEqual([]);
    const askedAt = session.pending.map((q) => q.at);

    search.finish(INFO);
    await loading;
    const [a1, a2] = await Promise.all([first, second]);
    expect(a1.text).toBeTruthy();
    expect(a2.text).toBeTruthy();
    expect(search.searched[0]).toContain('report a home claim');
    expect(roles(session.turns)).toEqual(['user:asked last visit', 'assistant:answer', 'user:How soon must I report a home claim?', 'assistant:answer', 'user:And a car claim?', 'assistant:answer']);
    expect(session.pending).toEqual([]);
    expect(session.queuing).toBe(false);
    // The turn keeps the time it was asked, not the time it was answered.
    expect([session.turns[2].at, session.turns[4].at]).toEqual(askedAt);
    await expect.poll(() => store.load(KEY).then(roles)).toEqual(roles(session.turns));
  });

  it('queues a question asked while a queued one is being answered, instead of stopping it', async () => {
    const { session, search, loading } = await sessionWith();
    const first = session.submit('first question about the policy', OPTIONS);
    let late: Promise<unknown> | null = null;
    const release = search.holdSearches(() => {
      expect(session.queuing).toBe(true);
      late = session.submit('second question about the policy', OPTIONS);
      expect(session.pending.map((q) => q.text)).toEqual(['second question about the policy']);
    });
    search.finish(INFO);
    await loading;
    await expect.poll(() => late !== null).toBe(true);
    release();
    await first;
    await late;
    expect(roles(session.turns)).toEqual(['user:first question about the policy', 'assistant:answer', 'user:second question about the policy', 'assistant:answer']);
    expect(session.turns.some((t) => t.stopped)).toBe(false);
  });

  it('when the load fails, keeps each question with the load error and saves nothing', async () => {
    const { session, store, search, loading } = await sessionWith(earlier);
    const first = session.submit('one', OPTIONS);
    const second = session.submit('two', OPTIONS);
    const error = createError('INDEX_DOWNLOAD_FAILED', 'chunks.json.gz', 'HTTP 500');
    search.fail(error);
    await expect(loading).rejects.toBe(error);
    await expect(first).rejects.toBe(error);
    await expect(second).rejects.toBe(error);
    expect(session.pending.map((q) => [q.text, q.state, q.error?.code])).toEqual([
      ['one', 'failed', 'INDEX_DOWNLOAD_FAILED'],
      ['two', 'failed', 'INDEX_DOWNLOAD_FAILED'],
    ]);
    expect(session.pending[0].error?.message).toContain('Check the connection');
    expect(session.turns).toEqual([]);
    expect(await store.load(KEY)).toEqual(earlier);
    // A question after the failure is refused at once, with the same error.
    await expect(session.submit('three', OPTIONS)).rejects.toBe(error);
    expect(session.pending).toHaveLength(2);
  });

  it('stops the waiting questions: they stay in view, are never answered nor saved, and later questions are', async () => {
    const { session, store, search, loading } = await sessionWith(earlier);
    const stopped = session.submit('never mind', OPTIONS);
    session.stop();
    await expect(stopped).rejects.toMatchObject({ code: 'ABORTED' });
    expect(session.pending.map((q) => [q.text, q.state])).toEqual([['never mind', 'cancelled']]);
    expect(session.queuing).toBe(true);
    const asked = session.submit('a real question about the policy', OPTIONS);
    search.finish(INFO);
    await loading;
    await asked;
    expect(search.searched.some((q) => q.includes('never mind'))).toBe(false);
    expect(roles(session.turns)).toEqual(['user:asked last visit', 'assistant:answer', 'user:a real question about the policy', 'assistant:answer']);
    await expect.poll(() => store.load(KEY).then(roles)).toEqual(roles(session.turns));
    // Clearing the conversation forgets the stopped question too.
    await session.clear();
    expect(session.pending).toEqual([]);
    expect(await store.load(KEY)).toEqual([]);
  });

  it('cancels what waits when the session ends', async () => {
    const { session } = await sessionWith();
    const waiting = session.submit('one', OPTIONS);
    session.dispose();
    await expect(waiting).rejects.toMatchObject({ code: 'ABORTED' });
  });

  it('answers at once when the index is ready and nothing waits', async () => {
    const { session, search, loading } = await sessionWith();
    search.finish(INFO);
    await loading;
    expect(session.queuing).toBe(false);
    const answer = session.submit('a question about the policy', OPTIONS);
    expect(session.pending).toEqual([]);
    expect(roles(session.turns)).toEqual(['user:a question about the policy']);
    await answer;
    await expect(session.submit('   ', OPTIONS)).rejects.toMatchObject({ code: 'EMPTY_QUESTION' });
  });

  it('resolves an answer once its turn is stored, so a reload right after keeps it; a stalled store delays it at most a second', async () => {
    const saved: string[][] = [];
    let release!: () => void;
    const slow: ConversationStore = {
      ...memoryConversationStore(),
      save: async (_key, turns) => {
        await new Promise<void>((resolve) => (release = resolve));
        saved.push(roles(turns));
      },
    };
    const search = heldSearch();
    const session = new ChatSession({ search: search.service, conversations: Promise.resolve(slow), conversationKey: KEY, llmLoader: null, onChange: () => undefined });
    const loading = session.loadIndex({ manifestUrl: KEY, modelBase: null });
    search.finish(INFO);
    await loading;
    let settled = false;
    const answer = session.submit('a question about the policy', OPTIONS).then(() => (settled = true));
    await expect.poll(() => roles(session.turns)).toEqual(['user:a question about the policy', 'assistant:answer']);
    // Shown, but not yet stored: ask() waits for the write.
    expect(session.answering).toBeNull();
    await new Promise((resolve) => setTimeout(resolve, 50));
    expect(settled).toBe(false);
    release();
    await answer;
    expect(saved).toEqual([['user:a question about the policy', 'assistant:answer']]);

    // A store that never finishes: the answer still resolves (after the wait), unsaved.
    const next = await session.submit('another question about the policy', OPTIONS);
    expect(next.text).toBeTruthy();
    expect(saved).toHaveLength(1);
  });
});
