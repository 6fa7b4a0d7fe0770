import 'fake-indexeddb/auto';
import { IDBFactory } from 'fake-indexeddb';
import { beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { isHarelError } from '../../../widget/core/errors.ts';
import type { Progress } from '../../../widget/core/schema.ts';
import { openBuildStorage, type BuildStorage } from '../../../widget/store/build-storage.ts';
import type { StoredBuild } from '../../../widget/store/db.ts';
import { loadStoredIndex } from '../../../widget/store/index-store.ts';
import { STRUCTURE_CHECKS } from '../../../widget/core/format/read-index.ts';
import { createHash } from 'node:crypto';
import { gunzipSync, gzipSync } from 'node:zlib';
import { BASE, fakeServer, tamper, writeBuild, type FakeServer, type Files } from './fixture-index.ts';

const MANIFEST = `${BASE}manifest.json`;
let a: { files: Files; buildId: string };
let b: { files: Files; buildId: string };
let withVectors: { files: Files; buildId: string };

beforeAll(async () => {
  [a, b, withVectors] = await Promise.all([writeBuild('A'), writeBuild('B'), writeBuild('V', { vectors: true })]);
});
beforeEach(() => {
  globalThis.indexedDB = new IDBFactory();
});

const load = (server: FakeServer, extra: Partial<Parameters<typeof loadStoredIndex>[0]> = {}) => loadStoredIndex({ manifestUrl: MANIFEST, fetch: server.fetch, ...extra });

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
    server.files = tamper(b.files, 'chunks-0.bin.gz', (bytes) => {
      bytes[bytes.length - 10] ^= 0xff;
      return bytes;
    });
    const result = await load(server);
    expect(result.index.manifest.buildId).toBe(a.buildId);
    expect(result.fromCache).toBe(true);
    expect(result.indexError?.code).toBe('INDEX_INTEGRITY');
    expect(result.indexError?.message).toMatch(/chunks-0\.bin\.gz.*sha256 mismatch.*stays in use/s);
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
    expect(result.index.manifest.formatVersion).toBe(3);
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

  const page = (html: string) => new TextEncoder().encode(html);
  const SPA = '<!DOCTYPE html>\n<html lang="en"><head><title>Shop</title></head><body><div id="app"></div></body></html>';

  it("says the server sent a web page when a fallback rewrite answers the manifest URL with the site's page", async () => {
    // Every path answered with the app's index.html, status 200: the index folder is not published.
    const server = fakeServer(new Map([...a.files.keys()].map((name) => [name, page(SPA)])));
    for (const name of a.files.keys()) server.types.set(name, 'text/html; charset=utf-8');
    const error = await rejection(load(server));
    expect(isHarelError(error, 'INDEX_WEB_PAGE')).toBe(true);
    expect((error as Error).message).toContain(`${MANIFEST}: the server sent a web page (HTML) instead of this index file`);
    expect((error as Error).message).toMatch(/manifest\.json.*fallback rewrite/s);
  });

  it('names the file a login page answered, keeping the stored build in use', async () => {
    const server = fakeServer(a.files);
    await load(server);
    // A new build whose chunks file is behind a login: a page that starts with a comment.
    server.files = new Map(b.files).set('chunks-0.bin.gz', page('\n  <!-- sso --><head><title>Sign in</title></head><form></form>'));
    server.types.set('chunks-0.bin.gz', 'text/html');
    const result = await load(server);
    expect(result.index.manifest.buildId).toBe(a.buildId);
    expect(result.indexError?.code).toBe('INDEX_WEB_PAGE');
    expect(result.indexError?.message).toContain(`${BASE}chunks-0.bin.gz: the server sent a web page`);
    expect(result.indexError?.message).toContain(`The index stored earlier (build ${a.buildId}) stays in use.`);
  });

  it('knows a web page by its first bytes with no Content-Type, and a real file sent as text/html is not one', async () => {
    const bom = fakeServer(new Map([['manifest.json', page('\uFEFF  <html><body>Not here</body></html>')]]));
    expect(isHarelError(await rejection(load(bom)), 'INDEX_WEB_PAGE')).toBe(true);
    // A misconfigured type alone proves nothing: the real build loads.
    const mistyped = fakeServer(a.files);
    for (const name of a.files.keys()) mistyped.types.set(name, 'text/html');
    expect((await load(mistyped)).index.manifest.buildId).toBe(a.buildId);
  });

  it('keeps the index in memory with a warning when IndexedDB cannot be opened', async () => {
    const result = await load(fakeServer(a.files), { openStorage: () => Promise.reject(new DOMException('blocked', 'SecurityError')) });
    expect(result.index.chunks).toHaveLength(3);
    expect(result.storageWarning).toMatch(/IndexedDB.*kept in memory/);
  });

  const size = (b: Omit<StoredBuild, 'key'>) => b.manifest.byteLength + Object.values(b.files).reduce((n, f) => n + (f?.byteLength ?? 0), 0);

  /** IndexedDB with a quota: a put that would take the stored bytes over `capacity` is refused whole. */
  async function quotaStorage(capacity: number) {
    const inner = await openBuildStorage();
    let puts = 0;
    const storage: BuildStorage = {
      list: (k) => inner.list(k),
      get: (k, id) => inner.get(k, id),
      delete: (k, id) => inner.delete(k, id),
      deleteOthers: (k, keep) => inner.deleteOthers(k, keep),
      put: async (build) => {
        puts++;
        const others = (await inner.list(build.indexKey)).filter((b) => b.buildId !== build.buildId);
        if (others.reduce((n, b) => n + size(b), 0) + size(build) > capacity) throw new DOMException('quota', 'QuotaExceededError');
        await inner.put(build);
      },
    };
    return { storage, puts: () => puts, size };
  }

  const buildSize = (files: Files) => [...files.values()].reduce((n, f) => n + f.byteLength, 0);

  it('on QuotaExceededError for an update, keeps the stored build (no retry: nothing else to free), answers from memory and says so', async () => {
    // Room for either build alone, not both: deleting the stored one first would have made room,
    // and is exactly what must not happen (a failed put after it leaves nothing for offline).
    const { storage, puts } = await quotaStorage(Math.max(buildSize(a.files), buildSize(b.files)) * 1.5);
    const server = fakeServer(a.files);
    await load(server, { openStorage: async () => storage });
    server.files = b.files;
    const update = await load(server, { openStorage: async () => storage });
    expect(update.index.manifest.buildId).toBe(b.buildId);
    expect(update.fromCache).toBe(false);
    expect(update.storageWarning).toMatch(/Not enough browser storage.*kept in memory/);
    expect(update.storageWarning).toContain(`The copy stored earlier (build ${a.buildId}) stays on this device`);
    expect(puts()).toBe(2);
    expect(await storedIds()).toEqual([a.buildId]);

    // Offline next: the stored build answers.
    server.offline = true;
    const offline = await load(server, { openStorage: async () => storage });
    expect(offline).toMatchObject({ fromCache: true, indexError: { code: 'INDEX_DOWNLOAD_FAILED' } });
    expect(offline.index.manifest.buildId).toBe(a.buildId);
  });

  it('on QuotaExceededError frees what cannot answer (an older format), keeps the newest readable build, and retries once', async () => {
    const a2 = await writeBuild('A2');
    // A high-entropy edition: a build about twice A's size, that would fit if A2 were deleted.
    const big = await writeBuild(Array.from({ length: 200 }, (_, i) => ((i * 2654435761) >>> 0).toString(36)).join(' '));
    const server = fakeServer(a.files);
    await load(server);
    // Left by an earlier version: a format-1 copy, older than A.
    await storeFormat1Build('format1');
    expect(await storedIds()).toEqual([a.buildId, 'format1']);
    const held = (await (await openBuildStorage()).list(MANIFEST)).reduce((n, stored) => n + size(stored), 0);
    // Room for format1, A and A2 but one byte: A2's put fails, format1 (unreadable) goes, A2 fits beside A.
    const { storage, puts, size: sizeOf } = await quotaStorage(held + buildSize(a2.files) - 1);
    server.files = a2.files;
    const second = await load(server, { openStorage: async () => storage });
    expect(second.storageWarning).toBeNull();
    expect(puts()).toBe(2);
    expect(await storedIds()).toEqual([a2.buildId]);
    // A build that fits only where A2 is now is refused, with A2 kept and no second try.
    const [a2Stored] = await storage.list(MANIFEST);
    expect(buildSize(big.files)).toBeLessThan(held + buildSize(a2.files) - 1);
    expect(buildSize(big.files) + sizeOf(a2Stored)).toBeGreaterThan(held + buildSize(a2.files) - 1);
    server.files = big.files;
    const third = await load(server, { openStorage: async () => storage });
    expect(third.index.manifest.buildId).toBe(big.buildId);
    expect(third.storageWarning).toContain(`build ${a2.buildId}`);
    expect(puts()).toBe(3);
    expect(await storedIds()).toEqual([a2.buildId]);
  });

  it('when freeing older builds makes room, stores the update and only then deletes the build it replaces', async () => {
    // Leftovers of an earlier visit whose clean-up did not run: an older build behind the newest.
    const a2 = await writeBuild('A2');
    const { storage, puts } = await quotaStorage(buildSize(a.files) * 2.5);
    const server = fakeServer(a.files);
    await load(server, { openStorage: async () => storage });
    const [stored] = await storage.list(MANIFEST);
    await (await openBuildStorage()).put({ ...stored, buildId: 'leftover', storedAt: stored.storedAt - 1000 });
    server.files = a2.files;
    const update = await load(server, { openStorage: async () => storage });
    expect(update.storageWarning).toBeNull();
    expect(puts()).toBe(3);
    expect(await storedIds()).toEqual([a2.buildId]);
  });

  it('on QuotaExceededError with nothing stored, keeps the index in memory with a warning and deletes nothing', async () => {
    const { storage, puts } = await quotaStorage(100);
    const result = await load(fakeServer(a.files), { openStorage: async () => storage });
    expect(puts()).toBe(1);
    expect(result.index.manifest.buildId).toBe(a.buildId);
    expect(result.storageWarning).toMatch(/^Not enough browser storage.*allow this site more storage\.$/);
  });

  it('a storage error other than the quota deletes nothing either', async () => {
    const server = fakeServer(a.files);
    await load(server);
    const storage = await openBuildStorage();
    server.files = b.files;
    const broken: BuildStorage = { ...storage, list: (k) => storage.list(k), get: (k, id) => storage.get(k, id), put: () => Promise.reject(new DOMException('disk', 'UnknownError')) };
    const update = await load(server, { openStorage: async () => broken });
    expect(update.storageWarning).toMatch(/IndexedDB.*cannot be used/);
    expect(await storedIds()).toEqual([a.buildId]);
  });

  it('stops on abort without falling back to a stored build', async () => {
    const server = fakeServer(a.files);
    await load(server);
    server.files = b.files;
    const controller = new AbortController();
    const error = await rejection(load(server, { signal: controller.signal, onProgress: (p) => p.step === 'download' && controller.abort() }));
    expect(isHarelError(error, 'ABORTED')).toBe(true);
  });

  it('downloads again when the stored copy of the current build went bad', async () => {
    const server = fakeServer(a.files);
    await load(server);
    const storage = await openBuildStorage();
    const [stored] = await storage.list(MANIFEST);
    stored.files['chunks-0']![5] ^= 0xff;
    await storage.put(stored);
    server.requested.length = 0;
    const result = await load(server);
    expect(result.fromCache).toBe(false);
    expect(server.requested).toContain('chunks-0.bin.gz');
  });
  it('a stored build answers before its vectors are read; they are verified and decoded when asked', async () => {
    const server = fakeServer(withVectors.files);
    const first = await load(server);
    // A download is checked whole before it is stored.
    expect(first.readVectors).toBeNull();
    expect(first.index.vectors?.count).toBe(3);

    server.requested.length = 0;
    const again = await load(server);
    expect(again.fromCache).toBe(true);
    expect(again.index.vectors).toBeNull();
    expect(again.index.chunks).toHaveLength(3);
    const vectors = await again.readVectors!();
    expect(vectors.count).toBe(3);
    expect([...vectors.data]).toEqual([...first.index.vectors!.data]);
    expect([...vectors.scales]).toEqual([...first.index.vectors!.scales]);
    expect(server.requested).toEqual(['manifest.json']);
  });

  it('a stored copy whose vectors went bad still answers by BM25: reading them fails with INDEX_INTEGRITY', async () => {
    const server = fakeServer(withVectors.files);
    await load(server);
    const storage = await openBuildStorage();
    const [stored] = await storage.list(MANIFEST);
    stored.files.vectors![20] ^= 0xff;
    await storage.put(stored);
    const result = await load(server);
    expect(result).toMatchObject({ fromCache: true, indexError: null });
    expect(result.index.chunks).toHaveLength(3);
    const error = await rejection(result.readVectors!());
    expect(isHarelError(error, 'INDEX_INTEGRITY')).toBe(true);
    expect((error as Error).message).toMatch(/vectors\.bin\.gz.*sha256 mismatch/s);
  });

  it('a build stored without a record of its checks has its postings walked again; one stored after them does not', async () => {
    // A build whose term fragment has a malformed postings list (the last byte of postings.body),
    // its manifest matching those bytes: what the walk exists to catch, put straight into storage
    // as if an earlier version with weaker checks had stored it.
    const raw = gunzipSync(a.files.get('terms-0.bin.gz')!);
    const headerLength = raw.readUInt32LE(4);
    const [offset, length] = JSON.parse(raw.subarray(8, 8 + headerLength).toString('utf8')).sections['postings.body'];
    raw[offset + length - 1] ^= 0xff;
    const gz = new Uint8Array(gzipSync(raw));
    const manifest = JSON.parse(new TextDecoder().decode(a.files.get('manifest.json')!));
    manifest.buildId = 'malformed-postings';
    manifest.files['terms-0'] = { ...manifest.files['terms-0'], bytes: gz.byteLength, rawBytes: raw.byteLength, sha256: createHash('sha256').update(gz).digest('hex') };
    const files: StoredBuild['files'] = {};
    for (const [role, entry] of Object.entries<{ path: string }>(manifest.files)) files[role as keyof StoredBuild['files']] = role === 'terms-0' ? gz : a.files.get(entry.path)!;
    const storage = await openBuildStorage();
    const build = { indexKey: MANIFEST, buildId: manifest.buildId, storedAt: 1, manifest: new TextEncoder().encode(JSON.stringify(manifest)), files };
    const server = fakeServer(a.files);
    server.offline = true;

    await storage.put(build);
    // Offline, that copy is the only fallback: the walk rejects it, and it is removed.
    await rejection(load(server));
    expect(await storedIds()).toEqual([]);

    await storage.put({ ...build, checks: STRUCTURE_CHECKS });
    const trusted = await load(server);
    expect(trusted.index.manifest.buildId).toBe('malformed-postings');
  });

  it('records the checks a downloaded build passed', async () => {
    await load(fakeServer(a.files));
    const [stored] = await (await openBuildStorage()).list(MANIFEST);
    expect(stored.checks).toBe(STRUCTURE_CHECKS);
  });

  it('decodes the newest stored build while the manifest is on its way, and uses it when the manifest names it', async () => {
    const server = fakeServer(a.files);
    await load(server);
    let release = () => {};
    const held = new Promise<void>((resolve) => {
      release = resolve;
    });
    const slow: typeof fetch = async (input, init) => {
      if (String(input).endsWith('manifest.json')) await held;
      return server.fetch(input, init);
    };
    const progress: Progress[] = [];
    let decodedNow = () => {};
    const decoded = new Promise<void>((resolve) => {
      decodedNow = resolve;
    });
    const loading = load(server, {
      fetch: slow,
      onProgress: (p) => {
        progress.push(p);
        if (p.step === 'load' && p.done === 1) decodedNow();
      },
    });
    // The build is decoded with the manifest still held back (the old order waited here for
    // ever); only then does the manifest arrive, naming it.
    await decoded;
    release();
    const result = await loading;
    expect(result).toMatchObject({ fromCache: true, indexError: null });
    expect(result.index.manifest.buildId).toBe(a.buildId);
    expect(progress.filter((p) => p.step === 'download')).toEqual([]);
  });
});
