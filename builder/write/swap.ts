/**
 * Putting a new build in place of the old one in `--out`, and repairing what a crash in the
 * middle of that left behind.
 *
 * The guarantee. A build is written in full to a hidden sibling folder `.<name>.tmp-<pid>-<ms>`
 * (every file synced to disk) before `--out` is touched. Then two renames swap the folders:
 * `--out` → `.<name>.tmp-<pid>-<ms>.old`, the new folder → `--out`; the old build is deleted last.
 * rename() cannot replace a non-empty folder, and Node has no atomic exchange of two folders, so
 * between the two renames `--out` does not exist. The renames are synchronous, so no Ctrl-C
 * handler and no other JavaScript runs between them; only a kill -9, a crash of the machine or
 * a power cut can land there. What such a stop leaves behind is repaired by `recoverOut`, which
 * every `build` runs before it starts (and `writeIndex` before it writes, and `readIndexFolder`
 * — so `inspect`, `search`, `eval` — before it reads):
 * - `--out` missing and a `….old` left: the build that was there before is renamed back into
 *   place (the newest one when there are several), so `--out` holds the old index, as after a
 *   cancelled build;
 * - everything else left (a new build that never reached `--out`, half-written or complete, and an
 *   old build already replaced) is deleted.
 * A leftover whose process still runs (a build in progress, maybe in another terminal) is left
 * alone. So once `recoverOut` has run, `--out` is either the previous build or the new one, each
 * complete, and never missing when it existed before. (A static server reading `--out` during the
 * microseconds between the renames may still answer one request with a 404.)
 */
import { closeSync, fsyncSync, openSync, renameSync, rmSync, type Dirent } from 'node:fs';
import { lstat, readdir, rename, rm } from 'node:fs/promises';
import { basename, dirname, join, resolve } from 'node:path';

/** Hidden sibling folders of a build in progress: `.<name>.tmp-<pid>-<ms>` and `….old`. */
export function tempName(target: string, now: Date): string {
  return join(dirname(target), `.${basename(target)}.tmp-${process.pid}-${now.getTime()}`);
}

// Temporary folders this process is writing or deleting: never "leftovers" to recover, and
// removed when the process exits (a second Ctrl-C quits through process.exit).
const owned = new Set<string>();
let exitHook = false;

/** Marks `path` as this process's own until `release`; deleted if the process exits meanwhile. */
export function own(path: string): void {
  owned.add(path);
  if (!exitHook) {
    exitHook = true;
    process.on('exit', () => {
      for (const p of owned) rmSync(p, { recursive: true, force: true });
    });
  }
}

export function release(path: string): void {
  owned.delete(path);
}

function syncDir(dir: string): void {
  // Makes the renames durable across a power cut; some platforms cannot open a folder (Windows).
  try {
    const fd = openSync(dir, 'r');
    try {
      fsyncSync(fd);
    } finally {
      closeSync(fd);
    }
  } catch {
    // best effort
  }
}

/**
 * Swaps the finished build in `temp` into `target`. Synchronous on purpose: nothing can run
 * between the two renames (see the guarantee above). Returns the old build's new name, to delete.
 */
export function swapInto(temp: string, target: string): string | null {
  const old = `${temp}.old`;
  own(old);
  let hadOld = false;
  try {
    renameSync(target, old);
    hadOld = true;
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw error;
  }
  try {
    renameSync(temp, target);
  } catch (error) {
    // Something took `target` meanwhile (another build): put the old build back, keep the error.
    // Not ours to delete on exit any more, whatever happens: it may be the only copy.
    release(old);
    if (hadOld) {
      try {
        renameSync(old, target);
      } catch {
        // `recoverOut` restores it on the next run.
      }
    }
    throw error;
  }
  syncDir(dirname(target));
  if (!hadOld) release(old);
  return hadOld ? old : null;
}

interface Leftover {
  path: string;
  name: string;
  pid: number;
  ms: number;
  old: boolean;
}

function running(pid: number): boolean {
  if (!Number.isSafeInteger(pid) || pid <= 0) return false;
  // Our own pid on a folder this process does not own: left by an earlier process that had the
  // same pid (in a container every run may be pid 1).
  if (pid === process.pid) return false;
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}

async function exists(path: string): Promise<boolean> {
  return lstat(path).then(
    () => true,
    () => false,
  );
}

/** What `recoverOut` did, in sentences (also passed to `log` as it goes). */
export interface Recovery {
  restored: boolean;
  messages: string[];
}

/**
 * Repairs what an interrupted build left beside `outDir` (see the guarantee at the top of this
 * file): restores the previous build when `outDir` is missing, deletes the other leftovers, says
 * what it did through `log`.
 */
export async function recoverOut(outDir: string, log: (message: string) => void = () => {}): Promise<Recovery> {
  const target = resolve(outDir);
  const parent = dirname(target);
  const prefix = `.${basename(target)}.tmp-`;
  const messages: string[] = [];
  const say = (message: string): void => {
    messages.push(message);
    log(message);
  };
  let entries: Dirent[];
  try {
    entries = await readdir(parent, { withFileTypes: true });
  } catch {
    return { restored: false, messages };
  }
  const leftovers: Leftover[] = [];
  for (const entry of entries) {
    if (!entry.name.startsWith(prefix)) continue;
    const match = /^(\d+)-(\d+)(\.old)?$/.exec(entry.name.slice(prefix.length));
    const path = join(parent, entry.name);
    if (!match || owned.has(path)) continue;
    const pid = Number(match[1]);
    if (running(pid)) {
      say(`left ${entry.name} alone: process ${pid}, which is writing it, is still running`);
      continue;
    }
    leftovers.push({ path, name: entry.name, pid, ms: Number(match[2]), old: Boolean(match[3]) });
  }
  let restored = false;
  if (!(await exists(target))) {
    const previous = leftovers.filter((l) => l.old).sort((a, b) => b.ms - a.ms)[0];
    if (previous) {
      await rename(previous.path, target);
      syncDir(parent);
      restored = true;
      leftovers.splice(leftovers.indexOf(previous), 1);
      say(`restored ${outDir} from ${previous.name}: a build (process ${previous.pid}) was stopped while it swapped folders, and that is the index ${outDir} held before it`);
    }
  }
  for (const l of leftovers) {
    await rm(l.path, { recursive: true, force: true });
    say(
      l.old
        ? `removed ${l.name}: an index that a later build had already replaced (process ${l.pid} was stopped before deleting it)`
        : `removed ${l.name}: an unfinished build (process ${l.pid} was stopped before it was put in place)`,
    );
  }
  return { restored, messages };
}
