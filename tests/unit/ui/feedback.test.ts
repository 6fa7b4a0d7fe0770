/**
 * Feedback on an answer and the way to a person, without a browser: what a thumb or a reason
 * changes, the feedback event's detail (the answer as a reader sees it), the escalation's
 * transcript and reason, the contact channels the panel lists, and the rating saved with the
 * conversation by the session (and an old stored conversation still loading).
 */
import { describe, expect, it } from 'vitest';
import { documentText } from '../../../widget/answer/document-text.ts';
import type { Answer, ChatTurn, Citation } from '../../../widget/answer/types.ts';
import type { IndexInfo, SearchService } from '../../../widget/search/search-service.ts';
import { ChatSession } from '../../../widget/session/chat-session.ts';
import { memoryConversationStore } from '../../../widget/store/conversation-store.ts';
import { storedTurns } from '../../../widget/store/stored-turns.ts';
import { contactEntries, escalationFor, escalationTranscript } from '../../../widget/ui/escalate.ts';
import { feedbackDetail, feedbackOf, nextFeedback } from '../../../widget/ui/feedback.ts';

const citation: Citation = {
  n: 1,
  chunkId: 'c1',
  file: 'car/policy.pdf',
  page: 4,
  url: 'https://insurer.example/car.pdf',
  title: 'Car policy',
  sectionPath: ['Cover'],
  clause: '3.1',
  quote: 'Windscreen: 250 [2] excess.',
  alsoIn: [],
};

function answer(text: string, refused = false, citations: Citation[] = [citation]): Answer {
  return {
    text,
    citations,
    mode: 'extractive',
    confidence: refused ? 'low' : 'high',
    refused,
    refusal: refused ? 'no-passages' : null,
    domain: 'car',
    lang: 'en',
    searchedQuery: 'q',
    searchMode: 'bm25',
    retrieved: [],
    timings: { assess: 0, embed: 0, search: 0, grade: 0, generate: 0, ground: 0, total: 0 },
  };
}

const quotedText = `According to the policy: ${documentText('Windscreen: 250 [2] excess.')} [1]`;
const turns: ChatTurn[] = [
  { role: 'user', text: 'What is the windscreen excess?', at: 1 },
  { role: 'assistant', text: quotedText, answer: answer(quotedText), at: 2, buildId: 'build-a' },
  { role: 'user', text: 'Is my horse covered?', at: 3 },
  { role: 'assistant', text: 'I cannot find a definitive answer.', answer: answer('I cannot find a definitive answer.', true, []), at: 4 },
  { role: 'user', text: 'never mind', at: 5 },
  { role: 'assistant', text: '', at: 6, stopped: true },
];

describe('nextFeedback', () => {
  it('sets a rating, switches it, and withdraws it when the pressed thumb is pressed again', () => {
    const up = nextFeedback(null, { rating: 'up' }, 10);
    expect(up).toEqual({ rating: 'up', reason: null, at: 10 });
    const down = nextFeedback(up, { rating: 'down' }, 11);
    expect(down).toEqual({ rating: 'down', reason: null, at: 11 });
    expect(nextFeedback(down, { rating: 'down' }, 12)).toBeNull();
  });

  it('takes a reason only after a rating down, toggles it, and drops it when the rating changes', () => {
    const down = nextFeedback(null, { rating: 'down' }, 1);
    const missing = nextFeedback(down, { reason: 'missing' }, 2);
    expect(missing).toEqual({ rating: 'down', reason: 'missing', at: 2 });
    expect(nextFeedback(missing, { reason: 'wrong' }, 3)).toEqual({ rating: 'down', reason: 'wrong', at: 3 });
    expect(nextFeedback(missing, { reason: 'missing' }, 3)).toEqual({ rating: 'down', reason: null, at: 3 });
    expect(nextFeedback(missing, { rating: 'up' }, 4)).toEqual({ rating: 'up', reason: null, at: 4 });
    const up = { rating: 'up' as const, reason: null, at: 5 };
    expect(nextFeedback(up, { reason: 'unclear' }, 6)).toBe(up);
    expect(nextFeedback(null, { reason: 'unclear' }, 6)).toBeNull();
  });
});

describe('feedbackOf', () => {
  it('reads a valid rating and nothing else (old or hand-edited stored turns)', () => {
    expect(feedbackOf({ ...turns[1], feedback: { rating: 'down', reason: 'wrong', at: 7 } })).toEqual({ rating: 'down', reason: 'wrong', at: 7 });
    expect(feedbackOf(turns[1])).toBeNull();
    expect(feedbackOf({ ...turns[1], feedback: { rating: 'meh', reason: null, at: 1 } } as unknown as ChatTurn)).toBeNull();
    expect(feedbackOf({ ...turns[1], feedback: { rating: 'down', reason: '<b>', at: 'x' } } as unknown as ChatTurn)).toEqual({ rating: 'down', reason: null, at: 0 });
    expect(feedbackOf({ ...turns[1], feedback: { rating: 'up', reason: 'wrong', at: 1 } })).toEqual({ rating: 'up', reason: null, at: 1 });
  });
});

describe('feedbackDetail', () => {
  it('gives the question, the answer as a reader sees it, its citations, the rating and the build that answered', () => {
    const rated = turns.map((t, i) => (i === 1 ? { ...t, feedback: { rating: 'down' as const, reason: 'missing' as const, at: 9 } } : t));
    const detail = feedbackDetail(rated, 1, 'build-now');
    expect(detail).toEqual({
      question: 'What is the windscreen excess?',
      answer: 'According to the policy: Windscreen: 250 [2] excess. [1]',
      citations: [citation],
      rating: 'down',
      reason: 'missing',
      buildId: 'build-a',
    });
    expect(detail!.answer).not.toMatch(/[\u2060\u2066-\u2069]/);
  });

  it('uses the current build for a turn stored before turns recorded theirs, and gives nothing without a rating', () => {
    const rated = turns.map((t, i) => (i === 3 ? { ...t, feedback: { rating: 'up' as const, reason: null, at: 9 } } : t));
    expect(feedbackDetail(rated, 3, 'build-now')).toMatchObject({ question: 'Is my horse covered?', rating: 'up', reason: null, buildId: 'build-now', citations: [] });
    expect(feedbackDetail(turns, 1, 'build-now')).toBeNull();
    expect(feedbackDetail(turns, 99, 'build-now')).toBeNull();
  });
});

describe('escalation', () => {
  it('offers a person after a refusal or a rating down, not after a rated-up or unrated answer', () => {
    expect(escalationFor(turns[3])).toBe('refused');
    expect(escalationFor(turns[1])).toBeNull();
    expect(escalationFor({ ...turns[1], feedback: { rating: 'down', reason: null, at: 1 } })).toBe('rated-down');
    expect(escalationFor({ ...turns[1], feedback: { rating: 'up', reason: null, at: 1 } })).toBeNull();
    expect(escalationFor(turns[0])).toBeNull();
    expect(escalationFor(turns[5])).toBeNull();
  });

  it('gives the conversation as read: questions, answers with their citations, no empty stopped reply', () => {
    expect(escalationTranscript(turns)).toEqual([
      { role: 'user', text: 'What is the windscreen excess?' },
      { role: 'assistant', text: 'According to the policy: Windscreen: 250 [2] excess. [1]', citations: [citation] },
      { role: 'user', text: 'Is my horse covered?' },
      { role: 'assistant', text: 'I cannot find a definitive answer.' },
      { role: 'user', text: 'never mind' },
    ]);
    expect(escalationTranscript([])).toEqual([]);
  });

  it('lists the contact channels: the name in the interface language, a dialable phone, a website only through the URL policy', () => {
    const contacts = { name: { he: 'דמו ביטוח', en: 'Demo Insurance' }, phone: '*1234', website: 'https://demo-insurance.example' };
    expect(contactEntries(contacts, 'en')).toEqual({
      name: 'Demo Insurance',
      entries: [
        { kind: 'phone', value: '*1234', href: 'tel:*1234' },
        { kind: 'website', value: 'https://demo-insurance.example', href: 'https://demo-insurance.example/' },
      ],
    });
    expect(contactEntries(contacts, 'he').name).toBe('דמו ביטוח');
    expect(contactEntries({ name: { en: 'Only English' } }, 'he')).toEqual({ name: 'Only English', entries: [] });
    expect(contactEntries({ phone: '03-555 1234', website: 'javascript:alert(1)' }, 'en').entries).toEqual([
      { kind: 'phone', value: '03-555 1234', href: 'tel:035551234' },
      { kind: 'website', value: 'javascript:alert(1)', href: null },
    ]);
    expect(contactEntries(undefined, 'he')).toEqual({ name: null, entries: [] });
    // Email and the phone's hours, when the site gives them.
    expect(contactEntries({ phone: '*1234', hours: { he: 'א׳–ה׳ 8:00–18:00', en: 'Sun–Thu 8:00–18:00' }, email: 'help@demo.example' }, 'en').entries).toEqual([
      { kind: 'phone', value: '*1234', href: 'tel:*1234', hours: 'Sun–Thu 8:00–18:00' },
      { kind: 'email', value: 'help@demo.example', href: 'mailto:help@demo.example' },
    ]);
    expect(contactEntries({ email: 'a@b.example?bcc=evil@x.example' }, 'en').entries).toEqual([{ kind: 'email', value: 'a@b.example?bcc=evil@x.example', href: null }]);
  });
});

describe('ChatSession.setFeedback', () => {
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
  const search: SearchService = {
    load: async () => INFO,
    search: async () => {
      throw new Error('not searched');
    },
    route: async () => null,
    dispose: () => undefined,
  };

  it('keeps the rating with the turn, saves it with the conversation, withdraws it, and loads a conversation stored without ratings', async () => {
    const KEY = 'https://site.test/index/manifest.json';
    const store = memoryConversationStore();
    // Stored before ratings existed: no feedback, no buildId.
    const stored: ChatTurn[] = turns.slice(0, 4).map(({ buildId: _b, ...t }) => t);
    await store.save(KEY, stored);
    const session = new ChatSession({ search, conversations: Promise.resolve(store), conversationKey: KEY, llmLoader: null, onChange: () => undefined });
    await session.loadIndex({ manifestUrl: KEY, modelBase: null });
    // Read back as stored: each answer without its evaluation payload.
    expect(session.turns).toEqual(storedTurns(stored));

    const before = session.turns[1];
    expect(session.setFeedback(1, { rating: 'down', reason: 'wrong', at: 5 })).toBe(true);
    expect(session.turns[1]).not.toBe(before);
    expect(session.turns[1].feedback).toEqual({ rating: 'down', reason: 'wrong', at: 5 });
    await expect.poll(async () => (await store.load(KEY))[1].feedback).toEqual({ rating: 'down', reason: 'wrong', at: 5 });

    expect(session.setFeedback(1, null)).toBe(true);
    expect('feedback' in session.turns[1]).toBe(false);
    await expect.poll(async () => 'feedback' in (await store.load(KEY))[1]).toBe(false);

    // Only answered turns take a rating.
    expect(session.setFeedback(0, { rating: 'up', reason: null, at: 1 })).toBe(false);
    expect(session.setFeedback(42, { rating: 'up', reason: null, at: 1 })).toBe(false);
    await session.clear();
    expect(session.setFeedback(1, { rating: 'up', reason: null, at: 1 })).toBe(false);
  });
});
