/** Reads an index build from a folder on disk through the shared, verifying reader. */
import { readFile } from 'node:fs/promises';
import { join, resolve } from 'node:path';
import { readIndex, type IndexFileSource, type LoadedIndex } from '../widget/core/format/read-index.ts';
import type { WorkOptions } from '../widget/core/schema.ts';

export function folderSource(dir: string): IndexFileSource {
  const root = resolve(dir);
  return { read: async (path) => new Uint8Array(await readFile(join(root, path))) };
}

export function readIndexFolder(dir: string, options?: WorkOptions): Promise<LoadedIndex> {
  return readIndex(folderSource(dir), options);
}
