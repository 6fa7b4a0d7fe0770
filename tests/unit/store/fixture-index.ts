/** Two small index builds written by the real builder, and a fetch that serves one of them. */
import { mkdtemp, readdir, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { writeIndex } from '../../../builder/write/write-index.ts';
import { compileBm25 } from '../../../widget/core/format/compile-bm25.ts';
import type { Chunk, IndexedDocument } from '../../../widget/core/schema.ts';
import { packVectors } from '../../../widget/core/format/int8.ts';
import type { EmbedderInfo } from '../../../widget/core/format/manifest.ts';

const documents: IndexedDocument[] = [
  { file: 'car/policy.pdf', url: 'https://example.test/car.pdf', domain: 'car', lang: 'he', title: 'פוליסת רכב', kind: 'pdf', pageCount: 2 },
  { file: 'travel/faq.txt', url: null, domain: 'travel', lang: 'en', title: 'Travel FAQ', kind: 'txt', pageCount: 1 },
];

function chunks(edition: string): Chunk[] {
  return [
    { id: `a1${edition}`, doc: 0, page: 1, sectionPath: ['כיסויים'], clause: '2.1', parentId: 's1', text: `הפוליסה מכסה נזק לרכב בתאונה ${edition}.`, tokens: 8 },
    { id: `a2${edition}`, doc: 0, page: 2, sectionPath: ['השתתפות עצמית'], clause: '4', parentId: 's2', text: 'ההשתתפות העצמית היא 1,200 ש"ח לכל מקרה.', tokens: 10 },
    { id: `b1${edition}`, doc: 1, page: 1, sectionPath: ['Baggage'], clause: null, parentId: 's3', text: 'Lost baggage is covered up to 3,000 dollars.', tokens: 9 },
  ];
}

export type Files = Map<string, Uint8Array>;

/** A 4-dimension stand-in for a model's vectors: the store never looks inside them. */
const FOUR_DIMENSIONS: EmbedderInfo = {
  id: 'fixture/four-dimensions',
  dimensions: 4,
  quantization: 'int8-per-vector-scale',
  passagePrefix: 'passage: ',
  queryPrefix: 'query: ',
  fixture: true,
};

/**
 * Writes a build whose content (and so buildId) depends on `edition`; returns its files by name.
 * `vectors`: with a vector per chunk and an embedder in its manifest.
 */
export async function writeBuild(edition: string, options: { vectors?: boolean } = {}): Promise<{ files: Files; buildId: string }> {
  const dir = await mkdtemp(join(tmpdir(), 'harel-store-'));
  try {
    const c = chunks(edition);
    const manifest = await writeIndex(dir, {
      documents,
      chunks: c,
      bm25: compileBm25(c, documents),
      vectors: options.vectors ? { count: c.length, ...packVectors(c.map((_, i) => Float32Array.of(1, i, -i, 0.5))) } : null,
      embedder: options.vectors ? FOUR_DIMENSIONS : null,
      router: null,
    });
    const files: Files = new Map();
    for (const name of await readdir(dir)) files.set(name, new Uint8Array(await readFile(join(dir, name))));
    return { files, buildId: manifest.buildId };
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}

export const BASE = 'https://site.test/index/';

/** A fetch over `files` at BASE that records what was asked for; `serve` may swap the files. */
export interface FakeServer {
  files: Files;
  /** Content-Type headers by file name (none by default). */
  types: Map<string, string>;
  requested: string[];
  offline: boolean;
  fetch: typeof fetch;
}

export function fakeServer(files: Files): FakeServer {
  const server: FakeServer = {
    files,
    types: new Map(),
    requested: [] as string[],
    offline: false,
    fetch: (async (input: RequestInfo | URL) => {
      const url = String(input);
      server.requested.push(url.slice(BASE.length));
      if (server.offline) throw new TypeError('Failed to fetch');
      const name = url.slice(BASE.length);
      const bytes: Uint8Array | undefined = server.files.get(name);
      const type = server.types.get(name);
      return bytes ? new Response(bytes.slice(), type ? { headers: { 'content-type': type } } : {}) : new Response('not found', { status: 404 });
    }) as typeof fetch,
  };
  return server;
}

export function tamper(files: Files, name: string, change: (bytes: Uint8Array) => Uint8Array): Files {
  const copy = new Map(files);
  copy.set(name, change(files.get(name)!.slice()));
  return copy;
}
