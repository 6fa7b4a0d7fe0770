/**
 * A build killed while it swapped folders (crash-safe builds): `build` moves --out aside to
 * `.<name>.tmp-<pid>-<ms>.old`, then renames its new folder `.<name>.tmp-<pid>-<ms>` to --out. A
 * kill -9 between the two renames left no --out at all. The folders such a crash leaves are made
 * here by hand (the pid is one no process can have), and `inspect` and `build` must put the
 * previous index back, clean up, and say what they did.
 */
import { execFile } from 'node:child_process';
import { cp, mkdir, mkdtemp, readdir, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { snapshot } from './folder-snapshot.ts';

const exec = promisify(execFile);
const repo = fileURLToPath(new URL('../../../', import.meta.url));
const bin = join(repo, 'builder/bin/harel-builder.mjs');
const demo = join(repo, 'demo/corpus');
/** Above Linux's largest pid (2^22) and macOS's: no process has it, so its folders are a dead build's. */
const DEAD_PID = 4_194_305;

async function cli(args: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  try {
    const { stdout, stderr } = await exec(process.execPath, [bin, ...args], { cwd: repo, maxBuffer: 32 * 1024 * 1024 });
    return { code: 0, stdout, stderr };
  } catch (error) {
    const e = error as { code: number; stdout: string; stderr: string };
    return { code: e.code, stdout: e.stdout, stderr: e.stderr };
  }
}

let work: string;
let site: string;
let out: string;
/** A finished build of the demo corpus (the "previous" index) and one of part of it (the "new" one). */
let previous: string;
let next: string;
let good: Record<string, string>;
const stamp = (ms: number) => `.index.tmp-${DEAD_PID}-${ms}`;
const hidden = async () => (await readdir(site)).filter((n) => n.startsWith('.index.tmp-')).sort();

beforeAll(async () => {
  work = await mkdtemp(join(tmpdir(), 'harel-recover-'));
  previous = join(work, 'previous');
  next = join(work, 'next');
  expect((await cli(['build', demo, '--out', previous, '--no-embed', '--quiet'])).code).toBe(0);
  await cp(demo, join(work, 'part'), { recursive: true });
  await rm(join(work, 'part', 'travel'), { recursive: true });
  expect((await cli(['build', join(work, 'part'), '--out', next, '--no-embed', '--quiet'])).code).toBe(0);
  good = await snapshot(previous);
}, 120_000);

afterAll(async () => {
  await rm(work, { recursive: true, force: true });
});

beforeEach(async () => {
  site = join(work, `site-${Math.random().toString(36).slice(2)}`);
  out = join(site, 'index');
  await mkdir(site);
});

/** The state after a kill -9 between the renames: --out moved aside, the new build not yet in place. */
async function crashBetweenRenames(ms = 1_700_000_000_000): Promise<void> {
  await cp(previous, join(site, `${stamp(ms)}.old`), { recursive: true });
  await cp(next, join(site, stamp(ms)), { recursive: true });
}

describe('recovery from a build killed between its renames', () => {
  it('inspect puts the previous index back where --out was, and deletes the unfinished swap', async () => {
    await crashBetweenRenames();
    const result = await cli(['inspect', out]);
    expect(result.code, result.stderr).toBe(0);
    expect(result.stderr).toMatch(/restored .*index from \.index\.tmp-4194305-1700000000000\.old/);
    expect(result.stderr).toMatch(/removed \.index\.tmp-4194305-1700000000000: an unfinished build/);
    expect(result.stdout).toMatch(/travel/); // the previous index, not the new one (no travel domain)
    expect(await snapshot(out)).toEqual(good);
    expect(await hidden()).toEqual([]);
  });

  it('the next build restores the previous index before comparing with it, then replaces it', async () => {
    await crashBetweenRenames();
    const result = await cli(['build', demo, '--out', out, '--no-embed', '--quiet']);
    expect(result.code, result.stderr).toBe(0);
    expect(result.stderr).toMatch(/restored .*index from \.index\.tmp-4194305-1700000000000\.old/);
    // Compared against the restored build: the same corpus, so nothing added or removed.
    const chunks = Number(/(\d+) chunks,/.exec(result.stdout)![1]);
    expect(result.stdout).toContain(`0 added, 0 removed, ${chunks} unchanged`);
    expect(await hidden()).toEqual([]);
    expect(Object.keys(await snapshot(out)).sort()).toEqual(Object.keys(good).sort());
  });

  it('of several builds moved aside, puts back the newest', async () => {
    await cp(next, join(site, `${stamp(1_600_000_000_000)}.old`), { recursive: true });
    await crashBetweenRenames(1_700_000_000_000);
    expect((await cli(['inspect', out])).code).toBe(0);
    expect(await snapshot(out)).toEqual(good);
    expect(await hidden()).toEqual([]);
  });

  it('after a crash later in the swap or while writing, keeps --out and deletes what is left beside it', async () => {
    await cp(previous, out, { recursive: true });
    // Killed after the swap, before the old build was deleted:
    await cp(next, join(site, `${stamp(1)}.old`), { recursive: true });
    // Killed while writing (no manifest yet):
    await mkdir(join(site, stamp(2)));
    await writeFile(join(site, stamp(2), 'documents.json.gz'), 'partial');
    const result = await cli(['build', demo, '--out', out, '--no-embed', '--quiet']);
    expect(result.code, result.stderr).toBe(0);
    expect(result.stderr).toMatch(/removed \.index\.tmp-4194305-1\.old: an index that a later build had already replaced/);
    expect(result.stderr).toMatch(/removed \.index\.tmp-4194305-2: an unfinished build/);
    expect(result.stderr).not.toMatch(/restored/);
    expect(await hidden()).toEqual([]);
  });

  it('leaves alone the folders of a build whose process still runs', async () => {
    await cp(previous, out, { recursive: true });
    // This test's own process: alive, and not the builder's.
    const live = `.index.tmp-${process.pid}-1`;
    await mkdir(join(site, live));
    const result = await cli(['inspect', out]);
    expect(result.code, result.stderr).toBe(0);
    expect(result.stderr).toContain(`left ${live} alone: process ${process.pid}, which is writing it, is still running`);
    expect(await hidden()).toEqual([live]);
  });

  it('a normal build leaves nothing beside --out', async () => {
    await cp(previous, out, { recursive: true });
    const result = await cli(['build', demo, '--out', out, '--no-embed', '--quiet']);
    expect(result.code, result.stderr).toBe(0);
    expect(result.stderr).toBe('');
    expect(await hidden()).toEqual([]);
  });
});
