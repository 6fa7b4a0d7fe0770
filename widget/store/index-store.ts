/**
 * Index loading with IndexedDB: the manifest is always asked for fresh; a build already stored
 * loads with no download; a new build is downloaded, verified file by file, stored whole in one
 * transaction, and only then are older builds deleted. A new build that fails verification (or
 * cannot be downloaded, or a manifest that cannot be fetched) leaves the newest stored build in
 * use, and says why. Without usable storage the index lives in memory for the session; a new
 * build that does not fit beside the stored one never costs the stored one (`storeBuild`).
 */
import { createError, HarelError, isHarelError, type ErrorCode } from '../core/errors.ts';
import { decodeJson } from '../core/format/bytes.ts';
import { parseManifest, type IndexFileEntry, type IndexFileKey, type IndexManifest } from '../core/format/manifest.ts';
import { decodeIndexFiles, decodeVectors, STRUCTURE_CHECKS, verifyAndInflate, type DecodeOptions, type LoadedIndex } from '../core/format/read-index.ts';
import type { VectorTable } from '../core/format/vector-file.ts';
import type { WorkOptions } from '../core/schema.ts';
import { memoryBuildStorage, openBuildStorage, type BuildStorage } from './build-storage.ts';
import type { StoredBuild } from './db.ts';
import { downloadBytes } from './download.ts';

export interface LoadStoredIndexOptions extends WorkOptions {
  /** URL of the index's manifest.json. In the search worker it arrives absolute: a worker started from a blob: URL has no address a relative one resolves against. */
  manifestUrl: string;
  fetch?: typeof fetch;
  /** Called with the manifest of the build about to be read, as soon as it is known (before its files). */
  onManifest?: (manifest: IndexManifest) => void;
  /** Where builds are kept; default IndexedDB. */
  openStorage?: () => Promise<BuildStorage>;
}

export interface IndexProblem {
  code: ErrorCode;
  message: string;
}

export interface StoredIndexResult {
  index: LoadedIndex;
  /** Read from storage with no index file downloaded. */
  fromCache: boolean;
  /** Set when the index could not be stored and lives in memory for this session. */
  storageWarning: string | null;
  /** Why the build in use is not the manifest's current one (rejected, or not reachable), else null. */
  indexError: IndexProblem | null;
  /**
   * A build read from storage answers before its vectors are read: BM25 needs none of them, and
   * they are half of its bytes. This verifies (sha256) and decodes them when asked, after the
   * index is ready and beside the query model's load; `index.vectors` stays null until then.
   * Null when the index is complete (a new download is checked whole before it is stored).
   */
  readVectors: (() => Promise<VectorTable>) | null;
}

type RawFiles = Partial<Record<IndexFileKey, Uint8Array>>;

const problem = (error: unknown): IndexProblem => (isHarelError(error) ? { code: error.code, message: error.message } : { code: 'INDEX_CORRUPT', message: String(error) });

function isQuotaError(error: unknown): boolean {
  const name = (error as { name?: string } | null)?.name;
  const inner = (error as { inner?: { name?: string } } | null)?.inner?.name;
  return name === 'QuotaExceededError' || inner === 'QuotaExceededError';
}

const reasonOf = (error: unknown) => (error instanceof Error ? error.message || error.name : String(error));

export async function loadStoredIndex(options: LoadStoredIndexOptions): Promise<StoredIndexResult> {
  const { signal, onProgress } = options;
  const indexKey = new URL(options.manifestUrl, globalThis.location?.href).href;
  // Storage opens while the manifest is fetched: a warm start needs both before anything else.
  const opened = (options.openStorage ?? openBuildStorage)().then(
    (storage) => ({ storage, warning: null }),
    (error: unknown) => ({ storage: memoryBuildStorage(), warning: createError('STORAGE_UNAVAILABLE', reasonOf(error)).message }),
  );
  const fetchingManifest = downloadBytes(indexKey, 'manifest.json', {
    signal,
    fetch: options.fetch,
    cache: 'no-cache',
    notFound: () => createError('INDEX_NOT_FOUND', indexKey),
  });
  fetchingManifest.catch(() => undefined);
  const { storage, warning } = await opened;
  let storageWarning: string | null = warning;
  // Read once, newest first: the guess below takes the first, a fallback walks them all. A failing
  // read of storage must not stop loading: it only loses the offline fallback.
  const storedBuilds = storage.list(indexKey).catch((): StoredBuild[] => []);

  /** Checks and decodes a stored build (its vectors left for later); `work` may be a speculation's. */
  const decodeStored = async (build: StoredBuild, work: WorkOptions): Promise<Omit<StoredIndexResult, 'indexError'>> => {
    const manifest = parseManifest(decodeJson(build.manifest));
    const { vectors: vectorsEntry, ...now } = manifest.files;
    // Its files passed the walk when they were stored, and the sha256 below proves them unchanged.
    const index = await inflateBuild(manifest, now, build.files, work, { bm25Walked: build.checks === STRUCTURE_CHECKS });
    const stored = build.files.vectors;
    const readVectors =
      vectorsEntry && index.manifest.embedder
        ? async () => {
            if (!stored) throw createError('INDEX_INTEGRITY', vectorsEntry.path, 'file missing');
            return decodeVectors(manifest, await verifyAndInflate(vectorsEntry, stored), index.chunks.length);
          }
        : null;
    return { index, fromCache: true, storageWarning, readVectors };
  };

  // The build the manifest names is nearly always the newest one stored: it is read, checked and
  // decoded while the manifest is on its way (a few milliseconds on localhost, 50–300 ms on a
  // phone), and used if the manifest names it. If it names another, the guess is abandoned at
  // its next step and its progress never shown.
  const guessing = new AbortController();
  // Not AbortSignal.any: Safari before 17.4 lacks it, and the widget runs there.
  if (signal?.aborted) guessing.abort();
  signal?.addEventListener('abort', () => guessing.abort(), { once: true });
  const guess = storedBuilds.then(([build]) => {
    if (!build) return null;
    const decoded = decodeStored(build, { signal: guessing.signal, onProgress: (p) => guessing.signal.aborted || onProgress?.(p) });
    decoded.catch(() => undefined);
    return { build, decoded };
  });

  const fromStored = async (build: StoredBuild, indexError: IndexProblem | null): Promise<StoredIndexResult> => {
    const guessed = await guess;
    // An abandoned guess (the manifest named another build) is decoded again if this one is wanted after all: a fallback.
    const reuse = guessed?.build.buildId === build.buildId && !guessing.signal.aborted;
    const decoded = await (reuse ? guessed.decoded : decodeStored(build, options));
    options.onManifest?.(decoded.index.manifest);
    return { ...decoded, storageWarning, indexError };
  };
  const fallBack = async (error: unknown, except?: string): Promise<StoredIndexResult> => {
    if (signal?.aborted || isHarelError(error, 'ABORTED')) throw createError('ABORTED');
    const why = problem(error);
    for (const stored of (await storedBuilds).filter((b) => b.buildId !== except)) {
      try {
        return await fromStored(stored, { ...why, message: `${why.message} The index stored earlier (build ${stored.buildId}) stays in use.` });
      } catch (unusable) {
        if (signal?.aborted) throw createError('ABORTED');
        // A copy this version cannot read (an older index format, or storage gone bad) is no
        // fallback: delete it so it does not take space for nothing, and try the next one.
        await storage.delete(indexKey, stored.buildId).catch(() => undefined);
        if (isHarelError(unusable, 'INDEX_FORMAT_UNSUPPORTED')) {
          why.message = `${why.message} The copy stored on an earlier visit is in an older index format and was removed; connect once to download the current one.`;
        }
      }
    }
    // Same failure, its message now also saying what became of the stored copies.
    if (why.message !== problem(error).message) throw new HarelError(why.code, why.message, { cause: error });
    throw error;
  };

  let manifestBytes: Uint8Array;
  let manifest: IndexManifest;
  try {
    manifestBytes = await fetchingManifest;
    manifest = parseManifest(decodeJson(manifestBytes));
    options.onManifest?.(manifest);
  } catch (error) {
    return fallBack(error instanceof SyntaxError ? createError('INDEX_CORRUPT', 'manifest.json', error.message) : error);
  }

  const guessed = await guess;
  if (guessed?.build.buildId !== manifest.buildId) guessing.abort();
  const same = guessed?.build.buildId === manifest.buildId ? guessed.build : await storage.get(indexKey, manifest.buildId).catch(() => undefined);
  if (same) {
    try {
      return await fromStored(same, null);
    } catch (_error) {
      if (signal?.aborted) throw createError('ABORTED');
      // The stored copy went bad (storage corruption): forget it and download the build again.
      await storage.delete(indexKey, manifest.buildId).catch(() => undefined);
    }
  }

  let files: RawFiles;
  let index: LoadedIndex;
  try {
    files = await downloadBuild(indexKey, manifest, options);
    index = await inflateBuild(manifest, manifest.files, files, options);
  } catch (error) {
    return fallBack(error, manifest.buildId);
  }

  onProgress?.({ step: 'store', done: 0, total: 1 });
  const build = { indexKey, buildId: manifest.buildId, storedAt: Date.now(), manifest: manifestBytes, files, checks: STRUCTURE_CHECKS };
  const notStored = await storeBuild(storage, build);
  storageWarning ??= notStored;
  // Older builds go only now that the new one is stored: never before.
  if (!notStored) await storage.deleteOthers(indexKey, manifest.buildId).catch(() => undefined);
  onProgress?.({ step: 'store', done: 1, total: 1 });
  return { index, fromCache: false, storageWarning, indexError: null, readVectors: null };
}

/**
 * Stores a new, verified build; returns null, or the warning saying why it lives in memory only.
 *
 * The rule when the browser's quota is full: the build that answers when the network does not —
 * the newest stored build this version can read — is never deleted to make room for a build that
 * may not fit. Only what could never answer is freed first (older builds behind that one, and
 * builds in an index format this version cannot read), then the new build is tried once more.
 * If it still does not fit, it answers from memory for this visit (the warning says so and names
 * the stored build), the stored build stays for visits without a connection, and the next visit
 * online downloads the new build again and tries again; the stored build is deleted only after a
 * new one is stored (the caller). So a build that fits only where the old one is now is not kept
 * until the browser gives room for both: a download per visit, never a visit with nothing stored.
 */
async function storeBuild(storage: BuildStorage, build: Omit<StoredBuild, 'key'>): Promise<string | null> {
  try {
    await storage.put(build);
    return null;
  } catch (error) {
    if (!isQuotaError(error)) return createError('STORAGE_UNAVAILABLE', reasonOf(error)).message;
    let last: unknown = error;
    const { kept, freed } = await freeAllBut(storage, build.indexKey, build.buildId);
    if (freed > 0) {
      try {
        await storage.put(build);
        return null;
      } catch (again) {
        last = again;
      }
    }
    const warning = createError(isQuotaError(last) ? 'INDEX_STORAGE_QUOTA' : 'STORAGE_UNAVAILABLE', reasonOf(last)).message;
    return kept ? `${warning} The copy stored earlier (build ${kept.buildId}) stays on this device and answers when there is no connection.` : warning;
  }
}

/**
 * Deletes every stored build of the index except the one that answers offline: the newest this
 * version can read, its files all there (their hashes are checked when it loads). Returns it and
 * how many builds were deleted; a storage that cannot be read deletes nothing.
 */
async function freeAllBut(storage: BuildStorage, indexKey: string, incoming: string): Promise<{ kept: StoredBuild | null; freed: number }> {
  let builds: StoredBuild[];
  try {
    builds = await storage.list(indexKey);
  } catch {
    return { kept: null, freed: 0 };
  }
  const kept = builds.find((b) => b.buildId !== incoming && canAnswer(b)) ?? null;
  let freed = 0;
  for (const b of builds) {
    if (b === kept || b.buildId === incoming) continue;
    await storage.delete(indexKey, b.buildId).then(
      () => freed++,
      () => undefined,
    );
  }
  return { kept, freed };
}

/** Whether a stored build could be loaded by this version: a manifest it reads, every file of the size listed. */
function canAnswer(build: StoredBuild): boolean {
  try {
    const manifest = parseManifest(decodeJson(build.manifest));
    return (Object.entries(manifest.files) as [IndexFileKey, IndexFileEntry][]).every(([role, entry]) => build.files[role]?.byteLength === entry.bytes);
  } catch {
    return false;
  }
}

async function downloadBuild(indexKey: string, manifest: IndexManifest, options: LoadStoredIndexOptions): Promise<RawFiles> {
  const entries = Object.entries(manifest.files) as [IndexFileKey, IndexFileEntry][];
  const total = entries.reduce((sum, [, e]) => sum + e.bytes, 0);
  let before = 0;
  const files: RawFiles = {};
  for (const [role, entry] of entries) {
    const report = (received: number) => options.onProgress?.({ step: 'download', done: before + Math.min(received, entry.bytes), total, detail: entry.path });
    report(0);
    files[role] = await downloadBytes(new URL(entry.path, indexKey).href, entry.path, {
      signal: options.signal,
      fetch: options.fetch,
      expectedBytes: entry.bytes,
      onBytes: report,
    });
    before += entry.bytes;
  }
  return files;
}

/** Verifies each file of `wanted` (the manifest's files, or some of them) against the manifest, then decodes the build. */
async function inflateBuild(manifest: IndexManifest, wanted: IndexManifest['files'], files: RawFiles, options: WorkOptions, decode: DecodeOptions = {}): Promise<LoadedIndex> {
  const entries = Object.entries(wanted) as [IndexFileKey, IndexFileEntry][];
  if (options.signal?.aborted) throw createError('ABORTED');
  let done = 0;
  options.onProgress?.({ step: 'verify', done, total: entries.length });
  // All at once: their hashes are computed off this thread while it inflates the others.
  const settled = await Promise.allSettled(
    entries.map(async ([role, entry]) => {
      const stored = files[role];
      if (!stored) throw createError('INDEX_INTEGRITY', entry.path, 'file missing');
      const raw = await verifyAndInflate(entry, stored);
      options.onProgress?.({ step: 'verify', done: ++done, total: entries.length, detail: entry.path });
      return [role, raw] as const;
    }),
  );
  if (options.signal?.aborted) throw createError('ABORTED');
  const inflated: RawFiles = {};
  // The first failure in the manifest's order, whichever finished first: the same build always fails the same way.
  for (const result of settled) {
    if (result.status === 'rejected') throw result.reason;
    inflated[result.value[0]] = result.value[1];
  }
  options.onProgress?.({ step: 'load', done: 0, total: 1 });
  const index = decodeIndexFiles(manifest, inflated, decode);
  options.onProgress?.({ step: 'load', done: 1, total: 1 });
  return index;
}
