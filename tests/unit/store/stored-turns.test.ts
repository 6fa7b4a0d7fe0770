/**
 * Stored turns keep what the customer saw and what later turns read, not the evaluation payload:
 * a save holds no `retrieved` or `evidence`, and a conversation stored before (database version 2,
 * each answer with its ranked passages and evidence) opens after the upgrade, renders as it did,
 * and a follow-up reads the same from it as from the turns answered in this page.
 */
import 'fake-indexeddb/auto';
import { IDBFactory } from 'fake-indexeddb';
import { openDB } from 'idb';
import { beforeEach, describe, expect, it } from 'vitest';
import type { Answer, ChatTurn, Citation, RankedPassage } from '../../../widget/answer/types.ts';
import { analyzeQuestion } from '../../../widget/loop/analyze.ts';
import { repeatsPreviousAnswer } from '../../../widget/loop/repeated-answer.ts';
import { memoryConversationStore, openConversationStore } from '../../../widget/store/conversation-store.ts';
import { DB_NAME, openHarelDb } from '../../../widget/store/db.ts';
import { renderAssistantTurn, type TurnHandlers } from '../../../widget/ui/message-view.ts';
import { templateMarkup } from '../ui/template-markup.ts';

const KEY = 'https://site.test/index/manifest.json';
const QUESTION = 'What is the deductible for water damage in home insurance?';
const KEPT = ['citations', 'confidence', 'domain', 'lang', 'mode', 'reader', 'refusal', 'refused', 'searchedQuery', 'text'];

const citation: Citation = {
  n: 1,
  origin: 'site',
  chunkId: 'c7',
  file: 'apartment/files/home-policy.pdf',
  page: 12,
  url: 'https://insurer.example/home-policy.pdf',
  title: 'Home policy',
  sectionPath: ['Cover', 'Water damage'],
  clause: '4.2',
  quote: 'The deductible for water damage is 1,200 NIS per claim.',
  alsoIn: [{ file: 'apartment/files/home-policy-2024.pdf', page: 11, title: 'Home policy 2024', url: null }],
};

const retrieved: RankedPassage[] = Array.from({ length: 30 }, (_, i) => ({
  rank: i + 1,
  chunkId: `c${i}`,
  file: 'apartment/files/home-policy.pdf',
  page: i + 1,
  score: 30 - i,
  twin: null,
  pageTwin: null,
}));

/** An answer as the loop gives it, evaluation payload and all. */
const live: Answer = {
  text: 'The deductible for water damage is 1,200 NIS per claim. [1]',
  citations: [citation],
  mode: 'extractive',
  confidence: 'high',
  refused: false,
  refusal: null,
  domain: 'apartment',
  lang: 'en',
  searchedQuery: QUESTION,
  searchMode: 'hybrid',
  retrieved,
  timings: { assess: 1, embed: 4, search: 9, grade: 2, generate: 3, ground: 1, total: 20 },
  evidence: { questionType: 'amount', features: { bm25Top: 12.5, semQuote: 0.81 }, offTopic: 0.02, answerable: 0.93, correct: 0.88 },
  reader: { verdict: 'span', span: '1,200 NIS', n: 1, ms: 850, calls: 1, noAnswerProbability: 0.04, model: 'reader-model', reason: null },
};

const conversation: ChatTurn[] = [
  { role: 'user', text: QUESTION, at: 1 },
  { role: 'assistant', text: live.text, answer: live, at: 2, buildId: 'b1', feedback: { rating: 'up', reason: null, at: 3 } },
];

/** The same turns with each answer as it is stored: the fields the conversation keeps. */
const cutDown = (turns: readonly ChatTurn[]) => turns.map((t) => (t.answer ? { ...t, answer: Object.fromEntries(Object.entries(t.answer).filter(([k]) => KEPT.includes(k))) } : t));

const handlers: TurnHandlers = { onCite() {}, onCopy() {}, onRetry() {}, onFeedback() {}, onEscalate() {} };
const rendered = (turns: readonly ChatTurn[]) => templateMarkup(renderAssistantTurn(turns[1], 1, turns[0].text, 'en', handlers));

/** The database as the widget left it at version 2, with `turns` stored as that widget stored them. */
async function storeAtVersion2(turns: readonly ChatTurn[]): Promise<void> {
  const db = await openDB(DB_NAME, 2, {
    upgrade(db) {
      db.createObjectStore('builds', { keyPath: 'key' }).createIndex('byIndex', 'indexKey');
      db.createObjectStore('conversations', { keyPath: 'indexKey' });
      db.createObjectStore('device-documents', { keyPath: 'id' });
      db.createObjectStore('device-files', { keyPath: 'id' });
      db.createObjectStore('device-vectors', { keyPath: 'id' });
    },
  });
  await db.put('conversations', { indexKey: KEY, turns: JSON.parse(JSON.stringify(turns)), updatedAt: 1 });
  await db.put('device-files', { id: 'doc1', bytes: new Uint8Array([1, 2, 3]) });
  db.close();
}

async function rawTurns(): Promise<ChatTurn[]> {
  const db = await openHarelDb();
  try {
    return (await db.get('conversations', KEY))?.turns ?? [];
  } finally {
    db.close();
  }
}

beforeEach(() => {
  globalThis.indexedDB = new IDBFactory();
});

describe('stored turns', () => {
  it('a save and an append hold the answer without its retrieved passages, evidence and timings', async () => {
    const { store } = await openConversationStore();
    await store.save(KEY, conversation);
    const [, saved] = await rawTurns();
    expect(Object.keys(saved.answer!).sort()).toEqual(KEPT);
    expect(saved).toEqual(cutDown(conversation)[1]);
    await store.append(KEY, conversation[1]);
    expect((await rawTurns()).every((t) => !t.answer || !('retrieved' in t.answer || 'evidence' in t.answer))).toBe(true);
    // The answer shown in this page keeps them: the eval hooks and ask() read it, not the store.
    expect(conversation[1].answer).toBe(live);
    expect(live.retrieved).toHaveLength(30);
  });

  it('the in-memory store keeps the same', async () => {
    const store = memoryConversationStore();
    await store.save(KEY, conversation);
    expect(await store.load(KEY)).toEqual(cutDown(conversation));
  });

  it('a conversation stored at version 2 opens cut down, and the upgrade rewrote it on disk', async () => {
    await storeAtVersion2(conversation);
    const { store, persistent } = await openConversationStore();
    expect(persistent).toBe(true);
    const loaded = await store.load(KEY);
    expect(loaded).toEqual(cutDown(conversation));
    expect(await rawTurns()).toEqual(cutDown(conversation));
    // The upgrade touched nothing else.
    const db = await openHarelDb();
    expect((await db.get('device-files', 'doc1'))?.bytes).toEqual(new Uint8Array([1, 2, 3]));
    db.close();
  });

  it('an old record put at the current version reads back cut down as well', async () => {
    const { store } = await openConversationStore();
    const db = await openHarelDb();
    await db.put('conversations', { indexKey: KEY, turns: JSON.parse(JSON.stringify(conversation)), updatedAt: 1 });
    db.close();
    expect(await store.load(KEY)).toEqual(cutDown(conversation));
  });

  it('an old conversation renders as it did, and a follow-up reads the same from it as from the live turns', async () => {
    await storeAtVersion2(conversation);
    const loaded = await (await openConversationStore()).store.load(KEY);
    expect(rendered(loaded)).toBe(rendered(conversation));
    expect(rendered(loaded)).toContain('1,200 NIS');

    // Re-asked about another insurance, and narrowed by the follow-up's words.
    for (const followUp of ['And for car insurance?', 'and for my kids?']) {
      const fromLive = await analyzeQuestion(followUp, conversation);
      expect(fromLive.followUp).toBe(true);
      expect(await analyzeQuestion(followUp, loaded)).toEqual(fromLive);
    }
    // The same clause quoted again for a follow-up that adds words it does not hold: a repeat, from either.
    expect(repeatsPreviousAnswer('and for my kids?', conversation, [citation])).toBe(true);
    expect(repeatsPreviousAnswer('and for my kids?', loaded, [citation])).toBe(true);
  });
});
