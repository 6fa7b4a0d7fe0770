/**
 * The embedding cache: vectors keyed by (model, hash of the embedded text), so a rebuild embeds
 * only what changed. One folder per model: keys.json (the keys in order) and vectors.f32 (their
 * vectors, back to back). Written to temporary files and renamed, so a killed build leaves the
 * previous cache intact.
 */
import { mkdir, readFile, rename, writeFile } from 'node:fs/promises';
import { join } from 'node:path';

export class EmbeddingCache {
  private readonly vectors = new Map<string, Float32Array>();
  private dirty = false;

  private constructor(
    private readonly dir: string,
    readonly dimensions: number,
  ) {}

  static async open(root: string, model: string, dimensions: number): Promise<EmbeddingCache> {
    const dir = join(root, model.replace(/[^a-zA-Z0-9._-]+/g, '__'));
    const cache = new EmbeddingCache(dir, dimensions);
    try {
      const keys = JSON.parse(await readFile(join(dir, 'keys.json'), 'utf8')) as { dimensions: number; keys: string[] };
      const bytes = await readFile(join(dir, 'vectors.f32'));
      if (keys.dimensions === dimensions && bytes.byteLength === keys.keys.length * dimensions * 4) {
        const all = new Float32Array(bytes.buffer.slice(bytes.byteOffset, bytes.byteOffset + bytes.byteLength));
        keys.keys.forEach((k, i) => cache.vectors.set(k, all.subarray(i * dimensions, (i + 1) * dimensions)));
      }
    } catch {
      // No cache yet, or an unreadable one: start empty.
    }
    return cache;
  }

  get size(): number {
    return this.vectors.size;
  }

  get(key: string): Float32Array | undefined {
    return this.vectors.get(key);
  }

  set(key: string, vector: Float32Array): void {
    if (vector.length !== this.dimensions) throw new Error(`vector has ${vector.length} dimensions, the cache ${this.dimensions}`);
    this.vectors.set(key, vector);
    this.dirty = true;
  }

  async save(): Promise<void> {
    if (!this.dirty) return;
    await mkdir(this.dir, { recursive: true });
    const keys = [...this.vectors.keys()];
    const all = new Float32Array(keys.length * this.dimensions);
    keys.forEach((k, i) => all.set(this.vectors.get(k)!, i * this.dimensions));
    const suffix = `.tmp-${process.pid}`;
    await writeFile(join(this.dir, `vectors.f32${suffix}`), new Uint8Array(all.buffer));
    await writeFile(join(this.dir, `keys.json${suffix}`), JSON.stringify({ dimensions: this.dimensions, keys }));
    await rename(join(this.dir, `vectors.f32${suffix}`), join(this.dir, 'vectors.f32'));
    await rename(join(this.dir, `keys.json${suffix}`), join(this.dir, 'keys.json'));
    this.dirty = false;
  }
}
