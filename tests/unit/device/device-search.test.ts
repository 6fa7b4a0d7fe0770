/**
 * The customer's own documents in search (issue 36): scored on the site's BM25 scale, preferred
 * where they answer, never dropped by the site's domain filter, cited as 'device'; kept, embedded
 * in the background, resumed and removed by the search service's collection.
 */
import { describe, expect, it } from 'vitest';
import type { ParsedDeviceDocument } from '../../../widget/core/device/device-document.ts';
import { buildDeviceSearchPart, deviceIndexDocument } from '../../../widget/core/device/device-search-part.ts';
import { isHarelError } from '../../../widget/core/errors.ts';
import { compileBm25File } from '../../../widget/core/format/compile-bm25.ts';
import { DEFAULT_RETRIEVAL } from '../../../widget/core/format/manifest.ts';
import type { LoadedIndex } from '../../../widget/core/format/read-index.ts';
import { Bm25Index } from '../../../widget/core/retrieval/bm25-index.ts';
import type { Chunk, IndexedDocument } from '../../../widget/core/schema.ts';
import { DeviceCollection, type PassageEmbedder } from '../../../widget/search/device-collection.ts';
import { LocalSearchService } from '../../../widget/search/local-search-service.ts';
import { memoryDeviceStore } from '../../../widget/store/device-store.ts';
import { inMemoryRetriever } from '../retrieval/in-memory-retriever.ts';

const chunk = (doc: number, page: number, text: string, i: number, parent = `p${doc}-${page}-${i}`): Chunk => ({
  id: `c${doc}-${page}-${i}`,
  doc,
  page,
  sectionPath: [],
  clause: null,
  parentId: parent,
  text,
  tokens: text.split(' ').length,
});

const siteDocuments: IndexedDocument[] = [
  { file: 'car/booklet.pdf', url: 'https://example.com/car.pdf', domain: 'car', lang: 'he', title: 'חוברת ביטוח רכב', kind: 'pdf', pageCount: 2 },
  { file: 'home/booklet.pdf', url: 'https://example.com/home.pdf', domain: 'home', lang: 'he', title: 'חוברת ביטוח דירה', kind: 'pdf', pageCount: 1 },
];
const siteChunks: Chunk[] = [
  chunk(0, 1, 'ההשתתפות העצמית בביטוח רכב היא 1,500 ש"ח לכל תביעה לפי התעריף הכללי', 0),
  chunk(0, 2, 'גרירה ושירותי דרך ניתנים 24 שעות ביממה', 1),
  chunk(1, 1, 'ביטוח דירה מכסה נזקי מים ואש', 2),
  chunk(1, 1, 'ההשתתפות העצמית בנזקי מים היא 500 ש"ח', 3),
];

function policy(id: string, name: string, texts: string[][]): ParsedDeviceDocument {
  let i = 0;
  return {
    id,
    name,
    lang: 'he',
    pageCount: texts.length,
    pageTexts: texts.map((page) => page.join('\n')),
    chunks: texts.flatMap((page, p) => page.map((text) => chunk(0, p + 1, text, i++, `${id}-p${p + 1}`))),
  };
}

const myPolicy = policy('a'.repeat(64), 'הפוליסה שלי.pdf', [['פוליסת ביטוח רכב מקיף עבור רכב מספר 12-345-67'], ['ההשתתפות העצמית שלך בביטוח רכב מקיף היא 2,300 ש"ח', 'רכב חלופי לשבעה ימים']]);

function siteIndex(): LoadedIndex {
  return {
    manifest: { retrieval: { ...DEFAULT_RETRIEVAL } } as LoadedIndex['manifest'],
    documents: siteDocuments,
    chunks: siteChunks,
    bm25: compileBm25File(siteChunks, siteDocuments),
    vectors: null,
    router: null,
  };
}

describe('BM25 over a customer document, on the site scale', () => {
  it('scores a device chunk against the site as background as if both were one collection', () => {
    const device = buildDeviceSearchPart([{ document: myPolicy, vectors: null }], null)!;
    const site = compileBm25File(siteChunks, siteDocuments);
    const together = compileBm25File([...siteChunks, ...device.chunks.map((c) => ({ ...c, doc: c.doc + siteDocuments.length }))], [...siteDocuments, ...device.documents]);
    const query = 'מה ההשתתפות העצמית בביטוח רכב';
    const alone = new Bm25Index(device.bm25).search(query, { k: 5, background: site });
    const combined = new Bm25Index(together).search(query, { k: 10 }).filter((h) => h.chunk >= siteChunks.length);
    expect(alone.length).toBeGreaterThan(0);
    for (const hit of alone) {
      const same = combined.find((h) => h.chunk === hit.chunk + siteChunks.length);
      expect(same, `chunk ${hit.chunk}`).toBeDefined();
      expect(hit.score).toBeCloseTo(same!.score, 9);
    }
    // Without the background its few chunks give every word a high IDF: a different, larger score.
    const own = new Bm25Index(device.bm25).search(query, { k: 5 });
    expect(own[0].score).not.toBeCloseTo(alone[0].score, 3);
  });
});

describe('Retriever with the customer documents beside the site', () => {
  it('ranks the customer document first where it answers, cites it as device, and drops it when removed', async () => {
    const retriever = await inMemoryRetriever(siteDocuments, siteChunks);
    retriever.setDevice(buildDeviceSearchPart([{ document: myPolicy, vectors: null }], null));
    const result = retriever.search('מה ההשתתפות העצמית בביטוח רכב?', { k: 5 });
    expect(result.hits[0].origin).toBe('device');
    expect(result.hits[0].deviceDocument).toBe(myPolicy.id);
    expect(result.hits[0].file).toBe('הפוליסה שלי.pdf');
    expect(result.hits[0].url).toBeNull();
    expect(result.hits[0].page).toBe(2);
    expect(result.hits.some((h) => h.origin === 'site' && h.file === 'car/booklet.pdf')).toBe(true);
    // Term statistics count the customer's chunks too.
    expect(result.termStats.chunks).toBe(siteChunks.length + myPolicy.chunks.length);

    retriever.setDevice(null);
    const after = retriever.search('מה ההשתתפות העצמית בביטוח רכב?', { k: 5 });
    expect(after.hits.every((h) => h.origin === 'site')).toBe(true);
    expect(after.termStats.chunks).toBe(siteChunks.length);
  });

  it('keeps the customer document when the search is filtered to a site domain', async () => {
    const retriever = await inMemoryRetriever(siteDocuments, siteChunks);
    retriever.setDevice(buildDeviceSearchPart([{ document: myPolicy, vectors: null }], null));
    const hits = retriever.search('רכב חלופי', { k: 5, domain: 'home' }).hits;
    expect(hits.map((h) => h.origin)).toContain('device');
    expect(hits.filter((h) => h.origin === 'site').every((h) => h.domain === 'home')).toBe(true);
  });

  it("gets the routed domain's boost as the site's documents of that domain do, then its own preference", async () => {
    const retriever = await inMemoryRetriever(siteDocuments, siteChunks);
    retriever.setDevice(buildDeviceSearchPart([{ document: myPolicy, vectors: null }], null));
    const candidates = retriever.candidates('ההשתתפות העצמית בביטוח רכב', { route: false });
    const plain = retriever.fuseCandidates(candidates, { collapseTwins: false, routeBoost: 0 });
    const routed = retriever.fuseCandidates({ ...candidates, route: { domain: 'car', confidence: 1, scores: [] } }, { collapseTwins: false, routeBoost: 1 });
    const score = (hits: typeof plain, chunk: number) => hits.find((h) => h.chunk === chunk)!.score;
    const device = siteChunks.length + 1;
    // The car booklet's chunk and the customer's are both doubled; the home booklet's is not.
    expect(score(routed, 0) / score(plain, 0)).toBeCloseTo(2, 9);
    expect(score(routed, device) / score(plain, device)).toBeCloseTo(2, 9);
    expect(score(routed, 3) / score(plain, 3)).toBeCloseTo(1, 9);
  });

  it('widens a device hit only with its own document and page', async () => {
    const service = LocalSearchService.fromIndex(siteIndex());
    await service.addDocument(myPolicy, new Uint8Array([1, 2, 3]));
    const { passages } = await service.search({ query: 'רכב חלופי לשבעה ימים' });
    const own = passages.find((p) => p.origin === 'device')!;
    expect(own.page).toBe(2);
    expect(own.context).toContain('רכב חלופי');
    expect(own.context).not.toContain('פוליסת ביטוח רכב מקיף עבור');
    expect(await service.devicePage(myPolicy.id, 1)).toContain('12-345-67');
  });

  it('searches the device vectors in hybrid search, merged with the site vectors by cosine', async () => {
    const dim = 4;
    const unit = (v: number[]) => new Float32Array(v.map((x) => x / Math.hypot(...v)));
    const siteVectors = siteChunks.map((_, i) => unit([1, i, 0, 0]));
    const index = siteIndex();
    const packed = await import('../../../widget/core/format/int8.ts').then((m) => m.packVectors(siteVectors));
    index.vectors = { count: siteChunks.length, dim, data: packed.data, scales: packed.scales };
    index.manifest = { ...index.manifest, embedder: { id: 'e', dimensions: dim, queryPrefix: 'query: ', passagePrefix: 'passage: ' } } as LoadedIndex['manifest'];
    const { Retriever } = await import('../../../widget/core/retrieval/retriever.ts');
    const retriever = new Retriever(index);
    const rows = myPolicy.chunks.map((_, i) => (i === 1 ? unit([0, 0, 1, 0]) : null));
    retriever.setDevice(buildDeviceSearchPart([{ document: myPolicy, vectors: rows }], dim));
    const result = retriever.search('שאלה', { k: 5, mode: 'vector', queryVector: unit([0, 0, 1, 0]) });
    expect(result.hits[0].origin).toBe('device');
    expect(result.hits[0].chunkId).toBe(myPolicy.chunks[1].id);
    // The rows not embedded yet are never vector hits.
    expect(result.hits.filter((h) => h.origin === 'device')).toHaveLength(1);
  });
});

describe('DeviceCollection', () => {
  const embedder = (calls: string[], dim = 3): PassageEmbedder => ({
    id: 'model',
    dim,
    prefix: 'passage: ',
    async embed(text) {
      calls.push(text);
      return new Float32Array(dim).fill(1 / Math.sqrt(dim));
    },
  });
  const settled = async (collection: DeviceCollection) => {
    for (let i = 0; i < 200 && collection.infos().some((d) => d.embedding.status === 'waiting' || d.embedding.status === 'running'); i++) await new Promise((r) => setTimeout(r, 5));
  };

  it('answers by BM25 at once, embeds in the background with the title and section, and refuses a second copy', async () => {
    const calls: string[] = [];
    const collection = new DeviceCollection({ store: memoryDeviceStore(), onChange: () => {} });
    const info = await collection.add(myPolicy, new Uint8Array([1]));
    expect(info).toMatchObject({ id: myPolicy.id, name: 'הפוליסה שלי.pdf', pages: 2, chunks: 3, lang: 'he' });
    expect(collection.part?.chunks).toHaveLength(3);
    expect(collection.infos()[0].embedding.status).toBe('waiting');
    collection.setEmbedder(embedder(calls));
    await settled(collection);
    expect(collection.infos()[0].embedding).toMatchObject({ status: 'done', done: 3, total: 3 });
    expect(calls[0]).toBe(`passage: הפוליסה שלי.pdf\n${myPolicy.chunks[0].text}`);
    expect(collection.part?.vectors?.count).toBe(3);
    const again = await collection.add({ ...myPolicy, name: 'copy.pdf' }, new Uint8Array([1])).catch((e: unknown) => e);
    expect(isHarelError(again, 'DOCUMENT_DUPLICATE')).toBe(true);
    expect(collection.infos()).toHaveLength(1);
  });

  it('embeds the next chunk only once the service is quiet (a question never waits behind a chunk begun after it)', async () => {
    let open: () => void = () => {};
    const gate = new Promise<void>((resolve) => (open = resolve));
    const calls: string[] = [];
    const collection = new DeviceCollection({ store: memoryDeviceStore(), onChange: () => {}, idle: () => gate });
    await collection.add(myPolicy, new Uint8Array([1]));
    collection.setEmbedder(embedder(calls));
    await new Promise((r) => setTimeout(r, 30));
    expect(calls).toHaveLength(0);
    open();
    await settled(collection);
    expect(calls).toHaveLength(3);
  });

  it('resumes embedding from the stored rows after a reload, and re-embeds rows of another model', async () => {
    const store = memoryDeviceStore();
    const first = new DeviceCollection({ store, onChange: () => {} });
    await first.add(myPolicy, new Uint8Array([1]));
    await store.putVectors({ id: myPolicy.id, embedder: 'model', dim: 3, done: 2, rows: new Float32Array(6).fill(0.5) });
    first.dispose();

    const calls: string[] = [];
    const second = new DeviceCollection({ store, onChange: () => {} });
    await second.restore();
    expect(second.infos().map((d) => d.id)).toEqual([myPolicy.id]);
    second.setEmbedder(embedder(calls));
    await settled(second);
    expect(calls).toHaveLength(1);
    expect(second.infos()[0].embedding.status).toBe('done');

    const other: string[] = [];
    const third = new DeviceCollection({ store, onChange: () => {} });
    await third.restore();
    third.setEmbedder({ ...embedder(other), id: 'another-model' });
    await settled(third);
    expect(other).toHaveLength(3);
  });

  it('removing a document stops its embedding and leaves nothing in the store', async () => {
    const store = memoryDeviceStore();
    let release: () => void = () => {};
    const slow: PassageEmbedder = {
      id: 'model',
      dim: 3,
      prefix: '',
      embed: () => new Promise((resolve) => (release = () => resolve(new Float32Array(3).fill(0.5)))),
    };
    const collection = new DeviceCollection({ store, onChange: () => {} });
    await collection.add(myPolicy, new Uint8Array([1]));
    collection.setEmbedder(slow);
    await new Promise((r) => setTimeout(r, 20));
    expect(collection.infos()[0].embedding.status).toBe('running');
    await collection.remove(myPolicy.id);
    release();
    await new Promise((r) => setTimeout(r, 20));
    expect(collection.infos()).toEqual([]);
    expect(collection.part).toBeNull();
    expect(await store.list()).toEqual([]);
    expect(await store.vectors(myPolicy.id)).toBeNull();
    await expect(collection.page(myPolicy.id, 1)).rejects.toMatchObject({ code: 'DOCUMENT_NOT_FOUND' });
  });

  it("says 'none' when the site's index has no vectors", async () => {
    const collection = new DeviceCollection({ store: memoryDeviceStore(), onChange: () => {} });
    collection.setEmbedder(null, { status: 'none' });
    await collection.add(myPolicy, new Uint8Array([1]));
    expect(collection.infos()[0].embedding.status).toBe('none');
  });

  it('keeps the chunks and BM25 postings when only vectors change, and compiles them again when the documents do', () => {
    const first = buildDeviceSearchPart([{ document: myPolicy, vectors: null }], 3)!;
    const vectors = myPolicy.chunks.map(() => new Float32Array([1, 0, 0]));
    const embedded = buildDeviceSearchPart([{ document: myPolicy, vectors }], 3, first)!;
    expect(embedded.bm25).toBe(first.bm25);
    expect(embedded.chunks).toBe(first.chunks);
    expect(first.vectors).toBeNull();
    expect(embedded.vectors?.count).toBe(3);
    const other = policy('b'.repeat(64), 'second.pdf', [['סעיף אחר']]);
    const two = buildDeviceSearchPart(
      [
        { document: myPolicy, vectors },
        { document: other, vectors: null },
      ],
      3,
      embedded,
    )!;
    expect(two.bm25).not.toBe(embedded.bm25);
    expect(two.chunks).toHaveLength(4);
  });

  it('the index document of a customer document has no URL and no site domain', () => {
    expect(deviceIndexDocument(myPolicy)).toMatchObject({ file: 'הפוליסה שלי.pdf', url: null, domain: '', title: 'הפוליסה שלי.pdf' });
  });
});
