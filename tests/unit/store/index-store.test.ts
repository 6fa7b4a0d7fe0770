import 'fake-indexeddb/auto';
import { IDBFactory } from 'fake-indexeddb';
import { beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { isHarelError } from '../../../widget/core/errors.ts';
import type { Progress } from '../../../widget/core/schema.ts';
import { memoryBuildStorage, openBuildStorage, type BuildStorage } from '../../../widget/store/build-storage.ts';
import { loadStoredIndex } from '../../../widget/store/index-store.ts';
import { BASE, fakeServer, tamper, writeBuild, type FakeServer, type Files } from './fixture-index.ts';

const MANIFEST = `${BASE}manifest.json`;
let a: { files: Files; buildId: string };
let b: { files: Files; buildId: string };

beforeAll(async () => {
  [a, b] = await Promise.all([writeBuild('A'), writeBuild('B')]);
});
beforeEach(() => {
  globalThis.indexedDB = new IDBFactory();
});

const load = (server: FakeServer, extra: Partial<Parameters<typeof loadStoredIndex>[0]> = {}) =>
  loadStoredIndex({ manifestUrl: MANIFEST, fetch: server.fetch, ...extra });

const storedIds = async () => (await (await openBuildStorage()).list(MANIFEST)).map((s) => s.buildId);

async function rejection(promise: Promise<unknown>) {
  try {
    await promise;
  } catch (error) {
    return error;
  }
  throw new Error('expected a rejection');
}

describe('loadStoredIndex', () => {
  it('downloads and stores a build, then loads it from IndexedDB with only the manifest fetched', async () => {
    const server = fakeServer(a.files);
    const progress: Progress[] = [];
    const first = await load(server, { onProgress: (p) => progress.push(p) });
    expect(first).toMatchObject({ fromCache: false, storageWarning: null, indexError: null });
    expect(first.index.manifest.buildId).toBe(a.buildId);
    expect(first.index.chunks).toHaveLength(3);
    expect(await storedIds()).toEqual([a.buildId]);
    const downloads = progress.filter((p) => p.step === 'download');
    expect(downloads.map((p) => p.done)).toEqual([...downloads.map((p) => p.done)].sort((x, y) => x - y));
    expect(downloads.at(-1)!.done).toBe(downloads.at(-1)!.total);
    expect(progress.at(-1)!.step).toBe('store');

    server.requested.length = 0;
    const again = await load(server);
    expect(again.fromCache).toBe(true);
    expect(again.index.manifest.buildId).toBe(a.buildId);
    expect(server.requested).toEqual(['manifest.json']);
  });

  it('replaces the stored build with a new one, deleting the old only after storing the new', async () => {
    const server = fakeServer(a.files);
    await load(server);
    server.files = b.files;
    const next = await load(server);
    expect(next.fromCache).toBe(false);
    expect(next.index.manifest.buildId).toBe(b.buildId);
    expect(await storedIds()).toEqual([b.buildId]);
  });

  it('rejects a tampered new build with INDEX_INTEGRITY and keeps the stored build in use', async () => {
    const server = fakeServer(a.files);
    await load(server);
    server.files = tamper(b.files, 'chunks.bin.gz', (bytes) => {
      bytes[bytes.length - 10] ^= 0xff;
      return bytes;
    });
    const result = await load(server);
    expect(result.index.manifest.buildId).toBe(a.buildId);
    expect(result.fromCache).toBe(true);
    expect(result.indexError?.code).toBe('INDEX_INTEGRITY');
    expect(result.indexError?.message).toMatch(/chunks\.bin\.gz.*sha256 mismatch.*stays in use/s);
    expect(await storedIds()).toEqual([a.buildId]);
  });

  it('rejects a truncated file with INDEX_INTEGRITY when nothing is stored to fall back on', async () => {
    const server = fakeServer(tamper(a.files, 'bm25.bin.gz', (bytes) => bytes.subarray(0, bytes.length - 50)));
    const error = await rejection(load(server));
    expect(isHarelError(error, 'INDEX_INTEGRITY')).toBe(true);
    expect(await storedIds()).toEqual([]);
  });

  it('uses the stored build when the manifest cannot be fetched (offline), and fails clearly without one', async () => {
    const server = fakeServer(a.files);
    server.offline = true;
    expect(isHarelError(await rejection(load(server)), 'INDEX_DOWNLOAD_FAILED')).toBe(true);
    server.offline = false;
    await load(server);
    server.offline = true;
    const offline = await load(server);
    expect(offline.index.manifest.buildId).toBe(a.buildId);
    expect(offline.indexError?.code).toBe('INDEX_DOWNLOAD_FAILED');
  });

  /** A build as an earlier version of the widget stored it: index format 1. */
  async function storeFormat1Build(buildId: string) {
    const manifest = JSON.parse(new TextDecoder().decode(a.files.get('manifest.json')!));
    const old = { ...manifest, formatVersion: 1, buildId, files: { ...manifest.files, bm25: { ...manifest.files.bm25, path: 'bm25.json.gz' } } };
    const files = { documents: a.files.get('documents.json.gz')!, chunks: new TextEncoder().encode('{"count":3}'), bm25: new TextEncoder().encode('{}') };
    await (await openBuildStorage()).put({ indexKey: MANIFEST, buildId, storedAt: Date.now() - 1000, manifest: new TextEncoder().encode(JSON.stringify(old)), files });
  }

  it('replaces a format-1 build stored by an earlier version with the current build', async () => {
    await storeFormat1Build('format1');
    expect(await storedIds()).toEqual(['format1']);
    const server = fakeServer(a.files);
    const result = await load(server);
    expect(result).toMatchObject({ fromCache: false, indexError: null });
    expect(result.index.manifest.formatVersion).toBe(2);
    expect(await storedIds()).toEqual([a.buildId]);
  });

  it('offline with only a format-1 copy: fails with the network error, says the old copy was removed, and removes it', async () => {
    await storeFormat1Build('format1');
    const server = fakeServer(a.files);
    server.offline = true;
    const error = await rejection(load(server));
    expect(isHarelError(error, 'INDEX_DOWNLOAD_FAILED')).toBe(true);
    expect((error as Error).message).toMatch(/older index format and was removed; connect once/);
    expect(await storedIds()).toEqual([]);
  });

  it('reports a missing manifest as INDEX_NOT_FOUND, naming the URL', async () => {
    const error = await rejection(load(fakeServer(new Map())));
    expect(isHarelError(error, 'INDEX_NOT_FOUND')).toBe(true);
    expect((error as Error).message).toContain(MANIFEST);
  });

  it('keeps the index in memory with a warning when IndexedDB cannot be opened', async () => {
    const result = await load(fakeServer(a.files), { openStorage: () => Promise.reject(new DOMException('blocked', 'SecurityError')) });
    expect(result.index.chunks).toHaveLength(3);
    expect(result.storageWarning).toMatch(/IndexedDB.*kept in memory/);
  });

  it('on QuotaExceededError frees older builds, retries once, then keeps the index in memory with a warning', async () => {
    const inner = memoryBuildStorage();
    let puts = 0;
    const full: BuildStorage = {
      ...inner,
      put: async () => {
        puts++;
        throw new DOMException('full', 'QuotaExceededError');
      },
    };
    const result = await load(fakeServer(a.files), { openStorage: async () => full });
    expect(puts).toBe(2);
    expect(result.index.manifest.buildId).toBe(a.buildId);
    expect(result.storageWarning).toMatch(/Not enough browser storage/);
  });

  it('stops on abort without falling back to a stored build', async () => {
    const server = fakeServer(a.files);
    await load(server);
    server.files = b.files;
    const controller = new AbortController();
    const error = await rejection(
      load(server, { signal: controller.signal, onProgress: (p) => p.step === 'download' && controller.abort() }),
    );
    expect(isHarelError(error, 'ABORTED')).toBe(true);
  });

  it('downloads again when the stored copy of the current build went bad', async () => {
    const server = fakeServer(a.files);
    await load(server);
    const storage = await openBuildStorage();
    const [stored] = await storage.list(MANIFEST);
    stored.files.chunks![5] ^= 0xff;
    await storage.put(stored);
    server.requested.length = 0;
    const result = await load(server);
    expect(result.fromCache).toBe(false);
    expect(server.requested).toContain('chunks.bin.gz');
  });
});
