/**
 * The session with a reader (widget/session/reader-slot.ts): the composed answer is a turn while
 * the reader reads and is replaced by the read one (ask() resolves with it); a stop while it reads
 * keeps the composed answer, saying the reader was stopped; answers before the reader is in say
 * it was still loading; a reader that fails to load says why.
 */
import { cp, mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildIndex } from '../../../builder/pipeline/build-index.ts';
import { readIndexFolder } from '../../../builder/read-index-folder.ts';
import type { StoredAnswer } from '../../../widget/answer/types.ts';
import { createError } from '../../../widget/core/errors.ts';
import type { PassageReader, ReaderCall, ReaderReply } from '../../../widget/engines/reader.ts';
import { LocalSearchService } from '../../../widget/search/local-search-service.ts';
import { ChatSession } from '../../../widget/session/chat-session.ts';
import type { ReaderLoader } from '../../../widget/session/reader-slot.ts';
import { memoryConversationStore } from '../../../widget/store/conversation-store.ts';
import { DEMO_CORPUS } from '../loop/helpers.ts';

const KEY = 'https://site.test/index/manifest.json';
const QUESTION = 'מה ההשתתפות העצמית בנזקי מים בביטוח דירה?';

/** Replies with the window's first amount of money; `hold` keeps each call waiting until released. */
class MoneyReader implements PassageReader {
  readonly modelId = 'money-reader';
  readonly description = 'a stand-in';
  hold: Promise<void> = Promise.resolve();
  onCall: () => void = () => undefined;
  async read(call: ReaderCall): Promise<ReaderReply> {
    // As the real reader does, a stop ends the call at once.
    const stopped = new Promise<void>((resolve) => call.signal?.addEventListener('abort', () => resolve(), { once: true }));
    this.onCall();
    await Promise.race([this.hold, stopped]);
    if (call.signal?.aborted) throw createError('ABORTED');
    const span = /\d[\d,]* ש"ח/.exec(call.passage)?.[0] ?? null;
    return { text: span ?? 'אין בקטע', noAnswer: span === null, noAnswerProbability: null, passageRead: call.passage, promptTokens: 90, ms: 1 };
  }
  async unload(): Promise<void> {}
}

let dir = '';
let index: Awaited<ReturnType<typeof readIndexFolder>>;
beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'harel-reader-session-'));
  await cp(DEMO_CORPUS, join(dir, 'corpus'), { recursive: true });
  await buildIndex({ inputs: [join(dir, 'corpus')], outDir: join(dir, 'index'), embed: false, embedder: 'none', allowRemote: false, dtype: 'q8', maxTokens: 350, overlap: 0.15 });
  index = await readIndexFolder(join(dir, 'index'));
}, 120_000);
afterAll(() => (dir ? rm(dir, { recursive: true, force: true }) : undefined));

async function sessionWith(loader: ReaderLoader) {
  const store = memoryConversationStore();
  const session = new ChatSession({
    search: LocalSearchService.fromIndex(index),
    conversations: Promise.resolve(store),
    conversationKey: KEY,
    llmLoader: null,
    reader: { loader, maxCalls: 2, refuses: false },
    onChange: () => undefined,
  });
  await session.loadIndex({ manifestUrl: KEY, modelBase: null });
  return { session, store };
}

describe('ChatSession with a reader', () => {
  it('shows the composed answer while the reader reads, then the read answer in its place', async () => {
    const reader = new MoneyReader();
    const { session, store } = await sessionWith(async () => reader);
    await session.loadReader();
    expect(session.reader.state).toMatchObject({ status: 'ready', modelId: 'money-reader' });
    let release!: () => void;
    reader.hold = new Promise((resolve) => (release = resolve));
    let draftShown: StoredAnswer | undefined;
    reader.onCall = () => {
      draftShown ??= session.turns.at(-1)?.answer;
      expect(session.answering).toBe('read');
      release();
    };
    const answer = await session.submit(QUESTION, { lang: 'he', domain: null });
    expect(draftShown?.reader).toBeUndefined();
    expect(answer.reader).toMatchObject({ verdict: 'span', model: 'money-reader' });
    expect(answer.text.startsWith(`${answer.reader!.span} [`)).toBe(true);
    expect(session.turns.map((t) => t.role)).toEqual(['user', 'assistant']);
    expect(session.turns[1]!.answer).toBe(answer);
    const saved = await store.load(KEY);
    expect(saved[1]!.answer?.reader?.verdict).toBe('span');
  });

  it('keeps the composed answer when stopped while the reader reads, saying so', async () => {
    const reader = new MoneyReader();
    const { session } = await sessionWith(async () => reader);
    await session.loadReader();
    reader.hold = new Promise(() => undefined);
    reader.onCall = () => session.stop();
    await expect(session.submit(QUESTION, { lang: 'he', domain: null })).rejects.toMatchObject({ code: 'ABORTED' });
    expect(session.turns.map((t) => t.role)).toEqual(['user', 'assistant']);
    const kept = session.turns[1]!;
    expect(kept.stopped).toBeUndefined();
    expect(kept.answer?.reader).toMatchObject({ verdict: 'skipped', reason: 'stopped' });
    expect(kept.answer?.citations.length).toBeGreaterThan(0);
  });

  it('answers without it while it loads, and says why when it cannot load', async () => {
    let finish!: (r: PassageReader) => void;
    const { session } = await sessionWith(() => new Promise((resolve) => (finish = resolve)));
    const loading = session.loadReader();
    const before = await session.submit(QUESTION, { lang: 'he', domain: null });
    expect(before.reader).toMatchObject({ verdict: 'skipped', reason: 'the reader is still loading' });
    finish(new MoneyReader());
    await loading;
    const failing = await sessionWith(async () => {
      throw createError('GGUF_MODEL_MISSING', 'https://site.test/models/gguf/reader.gguf', 'HTTP 404');
    });
    await failing.session.loadReader();
    expect(failing.session.reader.state.status).toBe('error');
    const after = await failing.session.submit(QUESTION, { lang: 'he', domain: null });
    expect(after.reader?.verdict).toBe('skipped');
    expect(after.reader?.reason).toMatch(/^the reader could not load: .*404/);
  });
});
