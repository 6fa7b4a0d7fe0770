/**
 * Lists an input folder's files in a fixed order, so the same inputs always give the same index
 * (and the same "first" of two duplicates).
 */
import type { Dirent } from 'node:fs';
import { readdir, stat } from 'node:fs/promises';
import { join } from 'node:path';

/** Code-unit order, not locale order: locale collation differs between machines. */
function byName(a: Dirent, b: Dirent): number {
  return a.name < b.name ? -1 : a.name > b.name ? 1 : 0;
}

/**
 * Root-relative, '/'-separated paths of every file under `root`, depth first in name order.
 * Dotfiles and dot-folders are skipped; symlinked files are followed, symlinked folders are not
 * (a link back up the tree would loop).
 */
export async function listFiles(root: string, prefix = ''): Promise<string[]> {
  const entries = (await readdir(join(root, prefix), { withFileTypes: true })).sort(byName);
  const out: string[] = [];
  for (const entry of entries) {
    if (entry.name.startsWith('.')) continue;
    const relative = prefix ? `${prefix}/${entry.name}` : entry.name;
    if (entry.isDirectory()) out.push(...(await listFiles(root, relative)));
    else if (entry.isFile()) out.push(relative);
    else if (entry.isSymbolicLink() && (await stat(join(root, relative)).catch(() => null))?.isFile()) out.push(relative);
  }
  return out;
}
