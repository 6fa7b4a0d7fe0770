/**
 * The session's rule for questions asked at once (widget/session/chat-session.ts): one queue,
 * answered one at a time in the order asked, each `submit` settling with its own question's
 * answer; `stop()` stops the one being answered (an empty reply marked stopped) and every waiting
 * one (kept in view, marked stopped); `clear()` stops all that and nothing from before it comes
 * back, in the session or in the store. The search service's searches are held by the test, so
 * "while one is being answered" is a state the test puts the session in, not a race.
 */
import { describe, expect, it } from 'vitest';
import type { Answer, ChatTurn } from '../../../widget/answer/types.ts';
import { createError } from '../../../widget/core/errors.ts';
import type { IndexInfo, SearchResponse, SearchService } from '../../../widget/search/search-service.ts';
import { ChatSession, type AskOptions } from '../../../widget/session/chat-session.ts';
import { conversationRows } from '../../../widget/session/pending-questions.ts';
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

/**
 * A loaded index whose searches find nothing (the loop then says so) and can be held: while held,
 * each search waits for `release` or its abort signal. Records every query searched and the most questions ever
 * searched at once.
 */
function searchService() {
  const searched: string[] = [];
  let gate: Promise<void> | null = null;
  let open: () => void = () => undefined;
  const inFlight = new Set<string>();
  let mostAtOnce = 0;
  let failing: string | null = null;
  const started: (() => void)[] = [];
  const service: SearchService = {
    load: async () => INFO,
    search: async (request, signal) => {
      searched.push(request.query);
      inFlight.add(request.query);
      mostAtOnce = Math.max(mostAtOnce, inFlight.size);
      started.splice(0).forEach((notify) => notify());
      try {
        // A held search ends when its signal fires, as the worker's does.
        if (gate) {
          await Promise.race([
            gate,
            new Promise<never>((_, reject) => {
              if (signal?.aborted) reject(createError('ABORTED'));
              signal?.addEventListener('abort', () => reject(createError('ABORTED')), { once: true });
            }),
          ]);
        }
        if (failing && request.query.includes(failing)) throw createError('UNEXPECTED', 'search broke');
        const response: SearchResponse = {
          result: { query: request.query, mode: 'bm25', route: null, domainFilter: null, expansions: [], termStats: { chunks: 1, df: {} } },
          passages: [],
          timings: { embed: 0, search: 0 },
        };
        return response;
      } finally {
        inFlight.delete(request.query);
      }
    },
    route: async () => null,
    dispose: () => undefined,
  };
  return {
    service,
    searched,
    get mostAtOnce() {
      return mostAtOnce;
    },
    /** Holds every search from now on until `release`. */
    hold() {
      gate = new Promise((resolve) => (open = resolve));
    },
    release() {
      gate = null;
      open();
    },
    /** Resolves when the next search starts. */
    nextSearch(): Promise<void> {
      return new Promise((resolve) => started.push(resolve));
    },
    failOn(text: string) {
      failing = text;
    },
  };
}

async function readySession() {
  const store: ConversationStore = memoryConversationStore();
  const search = searchService();
  const session = new ChatSession({ search: search.service, conversations: Promise.resolve(store), conversationKey: KEY, llmLoader: null, onChange: () => undefined });
  await session.loadIndex({ manifestUrl: KEY, modelBase: null });
  return { session, store, search };
}

const questions = (n: number) => Array.from({ length: n }, (_, i) => `question ${i + 1} about the travel policy`);
const roles = (turns: readonly ChatTurn[]) => turns.map((t) => (t.role === 'user' ? `user:${t.text}` : t.stopped ? `stopped:${t.text}` : 'answer'));
const settle = (promises: Promise<Answer>[]) => Promise.allSettled(promises);

describe('ChatSession: questions asked at once', () => {
  it('answers 20 questions asked together one at a time, in the order asked, each with its own answer', async () => {
    const { session, store, search } = await readySession();
    const asked = questions(20);
    const answers = await Promise.all(asked.map((q) => session.submit(q, OPTIONS)));

    expect(search.mostAtOnce).toBe(1);
    // The first search of each question, in the order asked.
    const firsts = asked.map((q) => search.searched.findIndex((s) => s.includes(q.replace(' about the travel policy', ''))));
    expect(firsts.every((i) => i >= 0)).toBe(true);
    expect(firsts).toEqual([...firsts].sort((a, b) => a - b));
    // Each promise has its own question's answer: the one stored right after that question.
    expect(roles(session.turns)).toEqual(asked.flatMap((q) => [`user:${q}`, 'answer']));
    answers.forEach((answer, i) => {
      expect(session.turns[2 * i + 1].answer).toBe(answer);
      expect(answer.searchedQuery).toContain(`question ${i + 1} `);
    });
    expect(session.pending).toEqual([]);
    expect(session.answering).toBeNull();
    await expect.poll(() => store.load(KEY).then((t) => t.length)).toBe(40);
  });

  it('lets a question asked while another is answered wait, shown as waiting, without stopping the one answered', async () => {
    const { session, search } = await readySession();
    search.hold();
    const started = search.nextSearch();
    const first = session.submit('how soon must I report a claim', OPTIONS);
    await started;
    const second = session.submit('what does the car policy cover', OPTIONS);
    expect(session.answering).not.toBeNull();
    expect(roles(session.turns)).toEqual(['user:how soon must I report a claim']);
    expect(session.pending.map((q) => [q.text, q.state])).toEqual([['what does the car policy cover', 'waiting']]);
    expect(session.queuing).toBe(true);
    search.release();
    await Promise.all([first, second]);
    expect(roles(session.turns)).toEqual(['user:how soon must I report a claim', 'answer', 'user:what does the car policy cover', 'answer']);
  });

  it('stop() stops the question being answered and every waiting one: each marked stopped, each promise ABORTED, none answered later', async () => {
    const { session, store, search } = await readySession();
    const done = await session.submit('answered before the stop', OPTIONS);
    expect(done.text).toBeTruthy();
    search.hold();
    const started = search.nextSearch();
    const asked = questions(5);
    const promises = asked.map((q) => session.submit(q, OPTIONS));
    await started;
    session.stop();
    const results = await settle(promises);
    expect(results.map((r) => (r.status === 'rejected' ? (r.reason as { code: string }).code : 'answered'))).toEqual(Array(5).fill('ABORTED'));

    // The one being answered got an empty reply marked stopped; the waiting ones are marked stopped.
    expect(roles(session.turns)).toEqual(['user:answered before the stop', 'answer', `user:${asked[0]}`, 'stopped:']);
    expect(session.pending.map((q) => [q.text, q.state])).toEqual(asked.slice(1).map((q) => [q, 'cancelled']));
    // Shown in the order asked: the stopped reply right after its question, then the stopped ones.
    const rows = conversationRows(session.turns, session.pending).map((r) => (r.kind === 'turn' ? `turn ${r.index}` : r.question.text));
    expect(rows).toEqual(['turn 0', 'turn 1', 'turn 2', 'turn 3', ...asked.slice(1)]);
    expect(session.queuing).toBe(false);
    expect(session.answering).toBeNull();

    // Nothing stopped is answered later; a question asked after the stop is.
    search.release();
    const after = await session.submit('asked after the stop', OPTIONS);
    expect(after.text).toBeTruthy();
    expect(search.searched.filter((s) => s.includes('question 2'))).toEqual([]);
    expect(roles(session.turns).slice(-2)).toEqual(['user:asked after the stop', 'answer']);
    await expect.poll(() => store.load(KEY).then(roles)).toEqual(roles(session.turns));
  });

  it('clear() while an answer is written and others wait: all ABORTED, and the conversation and the store stay empty', async () => {
    const { session, store, search } = await readySession();
    await session.submit('answered and saved before the clear', OPTIONS);
    await expect.poll(() => store.load(KEY).then((t) => t.length)).toBe(2);
    search.hold();
    const started = search.nextSearch();
    const promises = questions(3).map((q) => session.submit(q, OPTIONS));
    await started;
    const cleared = session.clear();
    expect(session.turns).toEqual([]);
    expect(session.pending).toEqual([]);
    expect(session.answering).toBeNull();
    expect(session.streaming).toBe('');
    search.release();
    const results = await settle(promises);
    await cleared;
    expect(results.every((r) => r.status === 'rejected' && (r.reason as { code: string }).code === 'ABORTED')).toBe(true);
    expect(session.turns).toEqual([]);
    expect(session.pending).toEqual([]);
    expect(await store.load(KEY)).toEqual([]);
    // Still empty once everything in flight has settled, and the next question starts afresh.
    await session.submit('the first question after the clear', OPTIONS);
    expect(roles(session.turns)).toEqual(['user:the first question after the clear', 'answer']);
    await expect.poll(() => store.load(KEY).then(roles)).toEqual(['user:the first question after the clear', 'answer']);
  });

  it('a save still under way when the conversation is cleared does not bring it back', async () => {
    const memory = memoryConversationStore();
    let letSave!: () => void;
    const saveHeld = new Promise<void>((resolve) => (letSave = resolve));
    const store: ConversationStore = { ...memory, save: async (key, turns) => saveHeld.then(() => memory.save(key, turns)) };
    const search = searchService();
    const session = new ChatSession({ search: search.service, conversations: Promise.resolve(store), conversationKey: KEY, llmLoader: null, onChange: () => undefined });
    await session.loadIndex({ manifestUrl: KEY, modelBase: null });
    await session.submit('answered just before the clear', OPTIONS);
    // The answer's save has started and is held; the customer clears meanwhile.
    const cleared = session.clear();
    letSave();
    await cleared;
    expect(await memory.load(KEY)).toEqual([]);
    expect(session.turns).toEqual([]);
  });

  it('a failed answer fails that question only: its error is kept beside it, and the queue goes on', async () => {
    const { session, search } = await readySession();
    search.failOn('breaks the search');
    const results = await settle([session.submit('this one breaks the search', OPTIONS), session.submit('this one is fine', OPTIONS)]);
    expect(results[0].status).toBe('rejected');
    expect(results[1].status).toBe('fulfilled');
    const failed = session.turns.find((t) => t.text === 'this one breaks the search')!;
    expect(session.answerErrors.get(failed)?.code).toBe('UNEXPECTED');
    expect(roles(session.turns)).toEqual(['user:this one breaks the search', 'user:this one is fine', 'answer']);
    await session.clear();
    expect(session.answerErrors.size).toBe(0);
  });
});
