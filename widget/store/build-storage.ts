/**
 * Where verified index builds are kept between visits. The index store talks to this interface so
 * its fallback rules can be tested without a browser; `openBuildStorage` gives the IndexedDB one.
 */
import type { IDBPDatabase } from 'idb';
import { buildKey, openHarelDb, type HarelDb, type StoredBuild } from './db.ts';

export interface BuildStorage {
  /** Builds stored for an index URL, newest first. */
  list(indexKey: string): Promise<StoredBuild[]>;
  get(indexKey: string, buildId: string): Promise<StoredBuild | undefined>;
  /** Stores a whole build in one transaction: it is there entirely or not at all. */
  put(build: Omit<StoredBuild, 'key'>): Promise<void>;
  /** Deletes every build of the index except `keep`. */
  deleteOthers(indexKey: string, keep: string): Promise<void>;
  delete(indexKey: string, buildId: string): Promise<void>;
}

class IdbBuildStorage implements BuildStorage {
  constructor(private readonly db: IDBPDatabase<HarelDb>) {}

  async list(indexKey: string): Promise<StoredBuild[]> {
    const builds = await this.db.getAllFromIndex('builds', 'byIndex', indexKey);
    return builds.sort((a, b) => b.storedAt - a.storedAt);
  }

  get(indexKey: string, buildId: string): Promise<StoredBuild | undefined> {
    return this.db.get('builds', buildKey(indexKey, buildId));
  }

  async put(build: Omit<StoredBuild, 'key'>): Promise<void> {
    const tx = this.db.transaction('builds', 'readwrite');
    await Promise.all([tx.store.put({ ...build, key: buildKey(build.indexKey, build.buildId) }), tx.done]);
  }

  async deleteOthers(indexKey: string, keep: string): Promise<void> {
    const tx = this.db.transaction('builds', 'readwrite');
    const keys = await tx.store.index('byIndex').getAllKeys(indexKey);
    await Promise.all([...keys.filter((k) => k !== buildKey(indexKey, keep)).map((k) => tx.store.delete(k)), tx.done]);
  }

  async delete(indexKey: string, buildId: string): Promise<void> {
    await this.db.delete('builds', buildKey(indexKey, buildId));
  }
}

export async function openBuildStorage(): Promise<BuildStorage> {
  return new IdbBuildStorage(await openHarelDb());
}

/** A storage that forgets everything: the session-only fallback when IndexedDB cannot be used. */
export function memoryBuildStorage(): BuildStorage {
  const builds = new Map<string, StoredBuild>();
  return {
    async list(indexKey) {
      return [...builds.values()].filter((b) => b.indexKey === indexKey).sort((a, b) => b.storedAt - a.storedAt);
    },
    async get(indexKey, buildId) {
      return builds.get(buildKey(indexKey, buildId));
    },
    async put(build) {
      const key = buildKey(build.indexKey, build.buildId);
      builds.set(key, { ...build, key });
    },
    async deleteOthers(indexKey, keep) {
      for (const [key, b] of builds) if (b.indexKey === indexKey && b.buildId !== keep) builds.delete(key);
    },
    async delete(indexKey, buildId) {
      builds.delete(buildKey(indexKey, buildId));
    },
  };
}
