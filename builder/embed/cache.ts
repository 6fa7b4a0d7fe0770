/**
 * The embedding cache: vectors keyed by (model, hash of the embedded text), so a rebuild embeds
 * only what changed. One folder per model: vectors.f32 (the vectors, back to back) and
 * index.json (their keys in order, the dimension, the model's fingerprint and a hash of
 * vectors.f32). Both are written to temporary files and renamed, vectors first: index.json is
 * the commit point, and an index whose hash does not match the vectors (a build killed between
 * the two renames, a file changed by hand) makes the cache start empty instead of serving
 * vectors under the wrong keys.
 */
import { createHash } from 'node:crypto';
import { mkdir, readFile, rename, writeFile } from 'node:fs/promises';
import { join } from 'node:path';

interface CacheIndex {
  format: 1;
  model: string;
  dimensions: number;
  fingerprint: string | null;
  sha256: string;
  keys: string[];
}

export interface CacheOpenOptions {
  /**
   * The embedder's fingerprint (Embedder.fingerprint): vectors saved under another one came from
   * different weights or another dtype under the same id, and are dropped.
   */
  fingerprint?: string;
}

const sha256 = (bytes: Uint8Array) => createHash('sha256').update(bytes).digest('hex');

export class EmbeddingCache {
  private readonly vectors = new Map<string, Float32Array>();
  private dirty = false;
  /** Why an existing cache was not used, for the build log; null when it was (or there was none). */
  discarded: string | null = null;

  private constructor(
    readonly dir: string,
    readonly model: string,
    readonly dimensions: number,
    private readonly fingerprint: string | null,
  ) {}

  static folderFor(root: string, model: string): string {
    return join(root, model.replace(/[^a-zA-Z0-9._-]+/g, '__'));
  }

  static async open(root: string, model: string, dimensions: number, options: CacheOpenOptions = {}): Promise<EmbeddingCache> {
    const cache = new EmbeddingCache(EmbeddingCache.folderFor(root, model), model, dimensions, options.fingerprint ?? null);
    let index: CacheIndex;
    let bytes: Buffer;
    try {
      index = JSON.parse(await readFile(join(cache.dir, 'index.json'), 'utf8')) as CacheIndex;
      bytes = await readFile(join(cache.dir, 'vectors.f32'));
    } catch {
      return cache; // no cache yet
    }
    cache.discarded = cache.reasonToDiscard(index, bytes);
    if (cache.discarded) return cache;
    const all = new Float32Array(bytes.buffer.slice(bytes.byteOffset, bytes.byteOffset + bytes.byteLength));
    index.keys.forEach((k, i) => cache.vectors.set(k, all.subarray(i * dimensions, (i + 1) * dimensions)));
    return cache;
  }

  private reasonToDiscard(index: CacheIndex, bytes: Buffer): string | null {
    if (index.format !== 1 || !Array.isArray(index.keys)) return 'unknown cache format';
    if (index.model !== this.model) return `it belongs to ${index.model}`;
    if (index.dimensions !== this.dimensions) return `it holds ${index.dimensions}-dimensional vectors, the model makes ${this.dimensions}`;
    if (this.fingerprint && index.fingerprint !== this.fingerprint) return 'the model changed since it was written';
    if (bytes.byteLength !== index.keys.length * this.dimensions * 4 || sha256(bytes) !== index.sha256) return 'vectors.f32 does not match index.json';
    return null;
  }

  get size(): number {
    return this.vectors.size;
  }

  get(key: string): Float32Array | undefined {
    return this.vectors.get(key);
  }

  /** The cached vector of each key, undefined where there is none (a miss). */
  getMany(keys: readonly string[]): (Float32Array | undefined)[] {
    return keys.map((k) => this.vectors.get(k));
  }

  set(key: string, vector: Float32Array): void {
    if (vector.length !== this.dimensions) throw new Error(`vector has ${vector.length} dimensions, the cache ${this.dimensions}`);
    if (!vector.every(Number.isFinite)) throw new Error(`vector for ${key} holds a NaN or infinite value`);
    this.vectors.set(key, vector.slice());
    this.dirty = true;
  }

  /** Writes the cache if anything was added since it was opened or last saved. */
  async save(): Promise<void> {
    if (!this.dirty) return;
    await mkdir(this.dir, { recursive: true });
    const keys = [...this.vectors.keys()];
    const all = new Float32Array(keys.length * this.dimensions);
    keys.forEach((k, i) => all.set(this.vectors.get(k)!, i * this.dimensions));
    const bytes = new Uint8Array(all.buffer);
    const index: CacheIndex = { format: 1, model: this.model, dimensions: this.dimensions, fingerprint: this.fingerprint, sha256: sha256(bytes), keys };
    const suffix = `.tmp-${process.pid}-${Math.random().toString(36).slice(2)}`;
    await writeFile(join(this.dir, `vectors.f32${suffix}`), bytes);
    await writeFile(join(this.dir, `index.json${suffix}`), JSON.stringify(index));
    await rename(join(this.dir, `vectors.f32${suffix}`), join(this.dir, 'vectors.f32'));
    await rename(join(this.dir, `index.json${suffix}`), join(this.dir, 'index.json'));
    this.dirty = false;
  }
}
