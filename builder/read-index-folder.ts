/** Reads an index build from a folder on disk through the shared, verifying reader. */
import { readFile } from 'node:fs/promises';
import { join, resolve } from 'node:path';
import { IndexByNeed } from '../widget/core/format/index-by-need.ts';
import { readIndex, type IndexFileSource, type LoadedIndex } from '../widget/core/format/read-index.ts';
import type { WorkOptions } from '../widget/core/schema.ts';
import { recoverOut } from './write/swap.ts';

export function folderSource(dir: string): IndexFileSource {
  const root = resolve(dir);
  return { read: async (path) => new Uint8Array(await readFile(join(root, path))) };
}

export interface ReadFolderOptions extends WorkOptions {
  /** Says what was repaired after an interrupted build (default: a line on stderr). */
  log?: (message: string) => void;
}

/**
 * Reads the build in `dir`. A build stopped by kill -9 or a crash between its two renames leaves
 * `dir` missing and the previous build in a hidden sibling: that is put back first, and other
 * leftovers of stopped builds are deleted (builder/write/swap.ts), so `inspect`, `search` and
 * `eval` read the index that was there before.
 */
export async function readIndexFolder(dir: string, options: ReadFolderOptions = {}): Promise<LoadedIndex> {
  const { log = (message: string) => process.stderr.write(`${message}\n`), ...work } = options;
  await recoverOut(dir, log);
  return readIndex(folderSource(dir), work);
}

/** Opens the build in `dir` with its always-read part only; term fragments are read by need (`eval --by-need`). */
export async function openIndexFolderByNeed(dir: string, options: ReadFolderOptions = {}): Promise<IndexByNeed> {
  const { log = (message: string) => process.stderr.write(`${message}\n`), ...work } = options;
  await recoverOut(dir, log);
  return IndexByNeed.open(folderSource(dir), work);
}
