/**
 * The customer's own documents through the session (issue 36), with a fake document reader and a
 * fake search service that keeps documents in memory: adding resolves with the document's info
 * once the service has it, a failure (the reader's or the service's) keeps the conversation and
 * the other documents, removal and "remove all", cancelling an addition, the service's own list
 * (IndexInfo.deviceDocuments) as the session's, and a service that cannot hold documents.
 */
import { describe, expect, it } from 'vitest';
import type { ChatTurn } from '../../../widget/answer/types.ts';
import type { DeviceDocumentInfo, ParsedDeviceDocument } from '../../../widget/core/device/device-document.ts';
import { createError, type HarelError, isHarelError } from '../../../widget/core/errors.ts';
import type { Progress } from '../../../widget/core/schema.ts';
import type { IndexInfo, LoadIndexOptions, SearchResponse, SearchService } from '../../../widget/search/search-service.ts';
import { ChatSession } from '../../../widget/session/chat-session.ts';
import { type DocumentReader, documentName } from '../../../widget/session/device-documents.ts';
import { memoryConversationStore } from '../../../widget/store/conversation-store.ts';

const KEY = 'https://site.test/index/manifest.json';

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
  deviceDocuments: [],
};

const pdf = (text: string) => new Blob([`%PDF-1.7\n${text}`], { type: 'application/pdf' });

/** A reader that "parses" a PDF made by `pdf()`: one page, its text; a file without the header is not a PDF. */
function fakeReader(hold?: Promise<void>, only?: string): DocumentReader & { calls: string[] } {
  const calls: string[] = [];
  const read: DocumentReader = async (file, name, options) => {
    calls.push(name);
    const text = await file.text();
    if (!text.startsWith('%PDF-')) throw createError('DOCUMENT_NOT_PDF', name);
    options?.onProgress?.({ step: 'parse', done: 0, total: 1 });
    if (hold && (!only || only === name)) await hold;
    if (options?.signal?.aborted) throw createError('ABORTED');
    options?.onProgress?.({ step: 'parse', done: 1, total: 1 });
    const body = text.slice('%PDF-1.7\n'.length);
    const parsed: ParsedDeviceDocument = { id: `sha-${body}`, name, lang: 'en', pageCount: 1, pageTexts: [body], chunks: [] };
    return parsed;
  };
  return Object.assign(read, { calls });
}

/** A search service that keeps documents in memory and reports its list through the load's onInfo. */
function fakeSearch(options: { devices?: boolean; quotaAfter?: number } = {}) {
  const kept = new Map<string, { info: DeviceDocumentInfo; pages: string[]; bytes: Uint8Array }>();
  let onInfo: ((info: IndexInfo) => void) | undefined;
  const report = () => onInfo?.({ ...INFO, deviceDocuments: [...kept.values()].map((k) => k.info) });
  const service: SearchService = {
    load: async (o: LoadIndexOptions) => {
      onInfo = o.onInfo;
      return { ...INFO, deviceDocuments: [...kept.values()].map((k) => k.info) };
    },
    search: async (request) => {
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
  if (options.devices !== false) {
    service.addDocument = async (document, bytes) => {
      const same = kept.get(document.id);
      if (same) throw createError('DOCUMENT_DUPLICATE', document.name, same.info.name);
      if (options.quotaAfter !== undefined && kept.size >= options.quotaAfter) throw createError('DOCUMENT_STORAGE_QUOTA', document.name, 'QuotaExceededError');
      const info: DeviceDocumentInfo = {
        id: document.id,
        name: document.name,
        pages: document.pageCount,
        chunks: document.chunks.length,
        lang: document.lang,
        addedAt: 1,
        embedding: { status: 'waiting', done: 0, total: 3 },
      };
      kept.set(document.id, { info, pages: document.pageTexts, bytes });
      report();
      return info;
    };
    service.removeDocument = async (id) => {
      kept.delete(id);
      report();
    };
    service.removeAllDocuments = async () => {
      kept.clear();
      report();
    };
    service.devicePage = async (id, page) => {
      const doc = kept.get(id);
      if (!doc) throw createError('DOCUMENT_NOT_FOUND', id);
      return doc.pages[page - 1];
    };
  }
  return {
    service,
    kept,
    /** The background embedding moves on, as the service reports it. */
    embed(id: string, done: number) {
      const doc = kept.get(id)!;
      doc.info = { ...doc.info, embedding: { status: done >= doc.info.embedding.total ? 'done' : 'running', done, total: doc.info.embedding.total } };
      report();
    },
  };
}

const conversation: ChatTurn[] = [
  { role: 'user', text: 'What is my deductible?', at: 1 },
  { role: 'assistant', text: 'It is 500.', at: 2 },
];

async function ready(options: { devices?: boolean; quotaAfter?: number; reader?: DocumentReader; load?: boolean } = {}) {
  const store = memoryConversationStore();
  await store.save(KEY, conversation);
  const search = fakeSearch(options);
  const reader = options.reader ?? fakeReader();
  let changes = 0;
  const session = new ChatSession({
    search: search.service,
    conversations: Promise.resolve(store),
    conversationKey: KEY,
    llmLoader: null,
    readDocument: reader,
    onChange: () => changes++,
  });
  if (options.load !== false) await session.loadIndex({ manifestUrl: KEY, modelBase: null });
  return { session, search, store, changes: () => changes };
}

async function rejection(promise: Promise<unknown>): Promise<HarelError> {
  try {
    await promise;
  } catch (error) {
    return error as HarelError;
  }
  throw new Error('expected a rejection');
}

describe('ChatSession.addDocument', () => {
  it('resolves with the document info once the service has it, lists it, and reports the reading progress', async () => {
    const { session, search } = await ready();
    const seen: Progress[] = [];
    const info = await session.addDocument(pdf('my home policy'), 'My policy.pdf', { onProgress: (p) => seen.push(p) });
    expect(info).toMatchObject({ id: 'sha-my home policy', name: 'My policy.pdf', pages: 1, chunks: 0, lang: 'en' });
    expect(session.documents.map((d) => d.id)).toEqual([info.id]);
    expect(search.kept.get(info.id)?.bytes).toEqual(new Uint8Array(await pdf('my home policy').arrayBuffer()));
    expect(seen.map((p) => `${p.step}:${p.done}`)).toEqual(['parse:0', 'parse:1', 'index:0']);
    expect(session.deviceDocuments.additions).toEqual([]);
  });

  it("names a document by the name given, else the file's own", async () => {
    expect(documentName(new File(['x'], 'policy-2024.pdf'), '  ')).toBe('policy-2024.pdf');
    expect(documentName(new File(['x'], 'policy-2024.pdf'), 'Home')).toBe('Home');
    expect(documentName(new Blob(['x']))).toBe('document.pdf');
    const { session } = await ready();
    const info = await session.addDocument(new File(['%PDF-1.7\nbody'], 'from-mail.pdf'));
    expect(info.name).toBe('from-mail.pdf');
  });

  it('shows the addition while it runs: its name, its step and its progress', async () => {
    let release!: () => void;
    const reader = fakeReader(new Promise((resolve) => (release = resolve)));
    const { session } = await ready({ reader });
    const adding = session.addDocument(pdf('held'), 'Held.pdf');
    await expect.poll(() => session.deviceDocuments.additions[0]?.progress?.step).toBe('parse');
    expect(session.deviceDocuments.additions).toMatchObject([{ name: 'Held.pdf', step: 'read' }]);
    release();
    await adding;
    expect(session.deviceDocuments.additions).toEqual([]);
  });

  it('follows the background embedding through the service reports', async () => {
    const { session, search } = await ready();
    const info = await session.addDocument(pdf('embedding'), 'E.pdf');
    search.embed(info.id, 2);
    expect(session.documents[0].embedding).toEqual({ status: 'running', done: 2, total: 3 });
    search.embed(info.id, 3);
    expect(session.documents[0].embedding.status).toBe('done');
  });

  it('a document added while the index loads is added once it answers', async () => {
    const { session, search } = await ready({ load: false });
    const adding = session.addDocument(pdf('early'), 'Early.pdf');
    await new Promise((resolve) => setTimeout(resolve, 0));
    expect(search.kept.size).toBe(0);
    await session.loadIndex({ manifestUrl: KEY, modelBase: null });
    await expect(adding).resolves.toMatchObject({ name: 'Early.pdf' });
  });

  it('lists the documents kept on the device from an earlier visit as the index loads', async () => {
    const first = await ready();
    await first.session.addDocument(pdf('kept'), 'Kept.pdf');
    // A new session (a reload) on the same service: its load reports what is kept.
    const again = new ChatSession({ search: first.search.service, conversations: null, conversationKey: KEY, llmLoader: null, readDocument: fakeReader(), onChange: () => undefined });
    await again.loadIndex({ manifestUrl: KEY, modelBase: null });
    expect(again.documents.map((d) => d.name)).toEqual(['Kept.pdf']);
  });
});

describe('a document that cannot be added changes nothing else', () => {
  it('not a PDF: the reader error, and the conversation and the other documents stay', async () => {
    const { session, search } = await ready();
    const kept = await session.addDocument(pdf('first'), 'First.pdf');
    const error = await rejection(session.addDocument(new Blob(['hello']), 'notes.txt'));
    expect(isHarelError(error, 'DOCUMENT_NOT_PDF')).toBe(true);
    expect(error.message).toContain('notes.txt');
    expect(session.documents.map((d) => d.id)).toEqual([kept.id]);
    expect([...search.kept.keys()]).toEqual([kept.id]);
    expect(session.turns).toEqual(conversation);
    expect(session.deviceDocuments.additions).toEqual([]);
  });

  it('a second copy: DOCUMENT_DUPLICATE naming the first, and one copy kept', async () => {
    const { session } = await ready();
    await session.addDocument(pdf('same bytes'), 'Original.pdf');
    const error = await rejection(session.addDocument(pdf('same bytes'), 'Copy.pdf'));
    expect(isHarelError(error, 'DOCUMENT_DUPLICATE')).toBe(true);
    expect(error.message).toContain('Original.pdf');
    expect(session.documents.map((d) => d.name)).toEqual(['Original.pdf']);
  });

  it('storage full: DOCUMENT_STORAGE_QUOTA, the documents added before kept', async () => {
    const { session } = await ready({ quotaAfter: 1 });
    await session.addDocument(pdf('one'), 'One.pdf');
    const error = await rejection(session.addDocument(pdf('two'), 'Two.pdf'));
    expect(error.code).toBe('DOCUMENT_STORAGE_QUOTA');
    expect(session.documents.map((d) => d.name)).toEqual(['One.pdf']);
    expect(session.turns).toEqual(conversation);
  });

  it('the index failed to load: its error, nothing read into the service', async () => {
    const search = fakeSearch();
    search.service.load = async () => {
      throw createError('INDEX_NOT_READY');
    };
    const session = new ChatSession({ search: search.service, conversations: null, conversationKey: KEY, llmLoader: null, readDocument: fakeReader(), onChange: () => undefined });
    await session.loadIndex({ manifestUrl: KEY, modelBase: null }).catch(() => undefined);
    const error = await rejection(session.addDocument(pdf('x'), 'X.pdf'));
    expect(error.code).toBe('INDEX_NOT_READY');
    expect(search.kept.size).toBe(0);
  });

  it('a service that cannot hold documents: DOCUMENTS_UNSUPPORTED, and the reader is never called', async () => {
    const reader = fakeReader();
    const { session } = await ready({ devices: false, reader });
    expect(session.deviceDocuments.supported).toBe(false);
    expect((await rejection(session.addDocument(pdf('x'), 'X.pdf'))).code).toBe('DOCUMENTS_UNSUPPORTED');
    expect((await rejection(session.removeDocument('x'))).code).toBe('DOCUMENTS_UNSUPPORTED');
    expect((await rejection(session.removeAllDocuments())).code).toBe('DOCUMENTS_UNSUPPORTED');
    expect((await rejection(session.devicePage('x', 1))).code).toBe('DOCUMENTS_UNSUPPORTED');
    expect(reader.calls).toEqual([]);
    expect(session.documents).toEqual([]);
  });
});

describe('cancelling an addition', () => {
  it("the caller's signal: ABORTED, nothing kept", async () => {
    let release!: () => void;
    const { session, search } = await ready({ reader: fakeReader(new Promise((resolve) => (release = resolve))) });
    const controller = new AbortController();
    const adding = session.addDocument(pdf('cancel me'), 'Cancel.pdf', { signal: controller.signal });
    await expect.poll(() => session.deviceDocuments.additions.length).toBe(1);
    controller.abort();
    release();
    expect((await rejection(adding)).code).toBe('ABORTED');
    expect(search.kept.size).toBe(0);
    expect(session.documents).toEqual([]);
    expect(session.deviceDocuments.additions).toEqual([]);
  });

  it('the panel cancels one addition by its key; the other goes on', async () => {
    let release!: () => void;
    const { session } = await ready({ reader: fakeReader(new Promise((resolve) => (release = resolve))) });
    const first = session.addDocument(pdf('a'), 'A.pdf');
    const second = session.addDocument(pdf('b'), 'B.pdf');
    await expect.poll(() => session.deviceDocuments.additions.length).toBe(2);
    session.deviceDocuments.cancel(session.deviceDocuments.additions[0].key);
    release();
    expect((await rejection(first)).code).toBe('ABORTED');
    await expect(second).resolves.toMatchObject({ name: 'B.pdf' });
    expect(session.documents.map((d) => d.name)).toEqual(['B.pdf']);
  });

  it('a signal already aborted: ABORTED before anything is read', async () => {
    const reader = fakeReader();
    const { session } = await ready({ reader });
    const controller = new AbortController();
    controller.abort();
    expect((await rejection(session.addDocument(pdf('x'), 'X.pdf', { signal: controller.signal }))).code).toBe('ABORTED');
    expect(reader.calls).toEqual([]);
  });
});

describe('removing documents', () => {
  it('removes one: gone from the list and the service, its page no longer opens, the others stay', async () => {
    const { session, search } = await ready();
    const a = await session.addDocument(pdf('page of A'), 'A.pdf');
    const b = await session.addDocument(pdf('page of B'), 'B.pdf');
    await expect(session.devicePage(a.id, 1)).resolves.toBe('page of A');
    await session.removeDocument(a.id);
    expect(session.documents.map((d) => d.id)).toEqual([b.id]);
    expect([...search.kept.keys()]).toEqual([b.id]);
    expect((await rejection(session.devicePage(a.id, 1))).code).toBe('DOCUMENT_NOT_FOUND');
    expect(session.turns).toEqual(conversation);
  });

  it('removes all, cancelling an addition under way', async () => {
    let release!: () => void;
    const { session, search } = await ready({ reader: fakeReader(new Promise((resolve) => (release = resolve)), 'Three.pdf') });
    await session.addDocument(pdf('one'), 'One.pdf');
    await session.addDocument(pdf('two'), 'Two.pdf');
    const third = session.addDocument(pdf('three'), 'Three.pdf');
    await expect.poll(() => session.deviceDocuments.additions.length).toBe(1);
    await session.removeAllDocuments();
    release();
    expect((await rejection(third)).code).toBe('ABORTED');
    expect(session.documents).toEqual([]);
    expect(search.kept.size).toBe(0);
    expect(session.turns).toEqual(conversation);
  });

  it('a stale service report does not bring a removed document back', async () => {
    const { session, search } = await ready();
    const a = await session.addDocument(pdf('stale'), 'Stale.pdf');
    const before = session.documents.slice();
    await session.removeDocument(a.id);
    session.deviceDocuments.sync(before);
    expect(session.documents).toEqual([]);
    // Re-added later, the same bytes are listed again.
    await session.addDocument(pdf('stale'), 'Stale.pdf');
    expect(session.documents.map((d) => d.id)).toEqual([a.id]);
    expect(search.kept.size).toBe(1);
  });
});

describe('a failure keeps the error for the caller only', () => {
  it('the service error reaches the caller as a HarelError with its code', async () => {
    const { session, search } = await ready();
    search.service.addDocument = async () => {
      throw new Error('worker crashed');
    };
    const error = await rejection(session.addDocument(pdf('x'), 'X.pdf'));
    expect(error.code).toBe('UNEXPECTED');
    expect(session.documents).toEqual([]);
    expect(session.turns).toEqual(conversation);
  });
});
