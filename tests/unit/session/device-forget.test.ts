/**
 * Removing a customer's document also removes the answers that quote it, and their questions,
 * from the screen and from the stored conversation (issue 36: "delete every trace"); answers from
 * the site's documents stay.
 */
import { describe, expect, it } from 'vitest';
import type { Answer, ChatTurn, Citation } from '../../../widget/answer/types.ts';
import type { IndexInfo, SearchService } from '../../../widget/search/search-service.ts';
import { ChatSession } from '../../../widget/session/chat-session.ts';
import { memoryConversationStore } from '../../../widget/store/conversation-store.ts';

const KEY = 'https://site.test/index/manifest.json';
const INFO: IndexInfo = {
  buildId: 'b1',
  documentCount: 1,
  chunkCount: 1,
  domains: [],
  embedder: null,
  searchMode: 'bm25',
  embedderError: null,
  fromCache: false,
  storageWarning: null,
  deviceDocuments: [],
};

const cite = (origin: 'site' | 'device', deviceDocument?: string): Citation =>
  ({
    n: 1,
    origin,
    ...(deviceDocument ? { deviceDocument } : {}),
    chunkId: 'c',
    file: 'f.pdf',
    page: 2,
    url: null,
    title: 'f',
    sectionPath: [],
    clause: null,
    quote: `quote of ${deviceDocument ?? 'the site'}`,
    alsoIn: [],
  }) as Citation;
const answered = (text: string, citations: Citation[], at: number): ChatTurn[] => [
  { role: 'user', text: `q${at}`, at },
  { role: 'assistant', text, answer: { text, citations } as unknown as Answer, at: at + 1 },
];

const conversation: ChatTurn[] = [
  ...answered('site answer', [cite('site')], 1),
  ...answered('own answer 1,250', [cite('device', 'doc-a'), cite('site')], 3),
  ...answered('other own answer', [cite('device', 'doc-b')], 5),
];

async function session() {
  const store = memoryConversationStore();
  await store.save(KEY, conversation);
  const search: SearchService = {
    load: async () => INFO,
    search: async () => {
      throw new Error('not asked');
    },
    route: async () => null,
    dispose: () => undefined,
    addDocument: async () => {
      throw new Error('not added');
    },
    removeDocument: async () => undefined,
    removeAllDocuments: async () => undefined,
  };
  const chat = new ChatSession({ search, conversations: Promise.resolve(store), conversationKey: KEY, llmLoader: null, onChange: () => undefined });
  await chat.loadIndex({ manifestUrl: KEY, modelBase: null });
  return { chat, store };
}

describe('removing a customer document forgets the answers that quote it', () => {
  it('one document: its answers and their questions go, on screen and in storage; the others stay', async () => {
    const { chat, store } = await session();
    expect(chat.turns).toHaveLength(6);
    await chat.removeDocument('doc-a');
    expect(chat.turns.map((t) => t.text)).toEqual(['q1', 'site answer', 'q5', 'other own answer']);
    expect((await store.load(KEY)).map((t) => t.text)).toEqual(['q1', 'site answer', 'q5', 'other own answer']);
    expect(JSON.stringify(await store.load(KEY))).not.toContain('doc-a');
  });

  it('remove all: every answer quoting a customer document goes', async () => {
    const { chat, store } = await session();
    await chat.removeAllDocuments();
    expect((await store.load(KEY)).map((t) => t.text)).toEqual(['q1', 'site answer']);
  });
});
