/**
 * Ctrl-C during `harel-builder build` (cancellable builds): a real SIGINT sent to a real build in a
 * child process once its progress shows it has reached a given step, over the demo corpus grown
 * with generated policy text (so that every step lasts long enough to be caught in), and over the
 * shared Harel corpus when it is present. The index already in --out must stay byte for byte,
 * the exit code be 130, and no temporary folder be left.
 */
import { execFile, spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { cp, mkdir, mkdtemp, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { writeTinyEmbedder } from '../../fixtures/tiny-embedder/write-tiny-embedder.ts';
import { snapshot } from './folder-snapshot.ts';

const run = promisify(execFile);
const repo = fileURLToPath(new URL('../../../', import.meta.url));
const bin = join(repo, 'builder/bin/harel-builder.mjs');
const harelCorpus = join(repo, '../shared/data/harel/corpus');
const hasHarel = existsSync(harelCorpus);

/** The build's progress steps, in order. */
const STEPS = ['parse', 'chunk', 'twins', 'lexicon', 'route', 'bm25', 'write'];

/** Progress lines (stderr is not a TTY: one line per step start, then one every 5 s). */
const progressSteps = (text: string): string[] => [...text.matchAll(/^([a-z0-9]+)\s+[░█]/gm)].map((m) => m[1]);

interface Interrupted {
  code: number | null;
  stdout: string;
  stderr: string;
  /** Whether the step was reached and SIGINT sent. */
  signalled: boolean;
  /** stderr written after the signal was sent. */
  after: string;
}

/** Runs `harel-builder build …` and sends SIGINT (`times` times) as soon as progress shows `step`. */
function buildAndInterrupt(args: string[], step: string, times = 1): Promise<Interrupted> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [bin, 'build', ...args], { cwd: repo, stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    let at: number | null = null;
    child.stdout.setEncoding('utf8').on('data', (data: string) => (stdout += data));
    child.stderr.setEncoding('utf8').on('data', (data: string) => {
      stderr += data;
      if (at === null && progressSteps(stderr).includes(step)) {
        at = stderr.length;
        for (let i = 0; i < times; i++) child.kill('SIGINT');
      }
    });
    child.on('error', reject);
    child.on('close', (code) => resolve({ code, stdout, stderr, signalled: at !== null, after: at === null ? '' : stderr.slice(at) }));
  });
}

/** Hidden folders of builds of `name` beside it (`.<name>.tmp-…`). */
async function leftovers(parent: string, name: string): Promise<string[]> {
  return (await readdir(parent)).filter((n) => n.startsWith(`.${name}.tmp-`));
}

/**
 * Policy-like text from the demo corpus's own sentences, numbered clause by clause (so no two
 * files or chunks are duplicates), in each of the demo's domains: about 3 MB, for builds whose
 * steps each run for a fraction of a second or more.
 */
async function writeGeneratedPolicies(corpus: string): Promise<void> {
  const sentences: string[] = [];
  for (const entry of await readdir(join(repo, 'demo/corpus'), { recursive: true, withFileTypes: true })) {
    if (!entry.isFile() || !/\.(md|txt)$/.test(entry.name)) continue;
    for (const line of (await readFile(join(entry.parentPath, entry.name), 'utf8')).split('\n')) {
      if (line.trim().length > 30 && !/^[#|]/.test(line.trim())) sentences.push(line.trim());
    }
  }
  let seed = 1;
  const pick = (): string => {
    seed = (seed * 1103515245 + 12345) % 2147483648;
    return sentences[Math.floor((seed / 2147483648) * sentences.length)];
  };
  const domains = ['apartment', 'car', 'health', 'travel'];
  for (let f = 0; f < 16; f++) {
    const clauses: string[] = [];
    for (let c = 1, size = 0; size < 200_000; c++) {
      const clause = [`${c}. ${pick()} (${f}-${c})`, ...[1, 2, 3].map((s) => `${c}.${s} ${pick()} ${(seed % 100_000) + s}`)].join('\n');
      clauses.push(clause);
      size += clause.length;
    }
    const dir = join(corpus, domains[f % domains.length], 'generated');
    await mkdir(dir, { recursive: true });
    await writeFile(join(dir, `policy-${f}.txt`), clauses.join('\n\n'));
  }
}

let work: string;
let corpus: string;
let models: string;
let out: string;
let good: Record<string, string>;

beforeAll(async () => {
  work = await mkdtemp(join(tmpdir(), 'harel-cancel-'));
  corpus = join(work, 'corpus');
  models = join(work, 'models');
  out = join(work, 'site', 'index');
  await cp(join(repo, 'demo/corpus'), corpus, { recursive: true });
  // The index a cancelled build must leave alone: the demo corpus, built the ordinary way.
  const first = await run(process.execPath, [bin, 'build', join(repo, 'demo/corpus'), '--out', out, '--no-embed', '--quiet'], { cwd: repo });
  expect(first.stderr).toBe('');
  good = await snapshot(out);
  expect(Object.keys(good)).toContain('manifest.json');
  await writeGeneratedPolicies(corpus);
  await writeTinyEmbedder(join(models, 'fixture/tiny-embedder'));
}, 120_000);

afterAll(async () => {
  await rm(work, { recursive: true, force: true });
});

/** What every cancelled build must show. */
async function expectCancelled(result: Interrupted, step: string): Promise<void> {
  expect(result.signalled, `the build ended before its progress showed "${step}":\n${result.stderr}`).toBe(true);
  expect(result.code, result.stderr).toBe(130);
  expect(result.after).toContain('cancelling: the index already in --out stays as it was');
  expect(result.stderr).toMatch(/cancelled: nothing was written; .* is as it was before the build/);
  expect(result.stdout).not.toMatch(/written to/);
  expect(result.stderr).not.toMatch(/at .*\.ts:\d+/); // a message, not a stack trace
  expect(await snapshot(out)).toEqual(good);
  expect(await leftovers(join(work, 'site'), 'index')).toEqual([]);
}

describe('Ctrl-C during harel-builder build', () => {
  it.each(STEPS)(
    'stops in the %s step, writes nothing to --out and exits 130',
    async (step) => {
      const result = await buildAndInterrupt([corpus, '--out', out, '--no-embed'], step);
      await expectCancelled(result, step);
      // Seen at once: the step it was sent in (or, when that step was ending, the next one) is the
      // last that runs. Before, every step ran to the end and the build was written.
      const next = STEPS[STEPS.indexOf(step) + 1];
      for (const later of progressSteps(result.after)) expect([step, next]).toContain(later);
    },
    120_000,
  );

  it('stops while embedding (the tiny test embedder), writes nothing to --out and exits 130', async () => {
    const args = [corpus, '--out', out, '--embedder', 'fixture/tiny-embedder', '--model-dir', models, '--dtype', 'fp32'];
    const result = await buildAndInterrupt(args, 'embed');
    await expectCancelled(result, 'embed');
    for (const later of progressSteps(result.after)) expect(['embed', 'lexicon']).toContain(later);
  }, 120_000);

  it('quits at once on a second Ctrl-C during the write, deleting its temporary folder', async () => {
    const result = await buildAndInterrupt([corpus, '--out', out, '--no-embed'], 'write', 2);
    expect(result.signalled, result.stderr).toBe(true);
    expect(result.code, result.stderr).toBe(130);
    expect(await snapshot(out)).toEqual(good);
    expect(await leftovers(join(work, 'site'), 'index')).toEqual([]);
  }, 120_000);

  const harelNote = hasHarel ? '' : ' (skipped: the shared Harel corpus is not at ../shared/data/harel/corpus)';
  it.skipIf(!hasHarel).each(['chunk', 'bm25'])(
    `stops a build of the Harel corpus in the %s step${harelNote}`,
    async (step) => {
      const result = await buildAndInterrupt([harelCorpus, '--out', out, '--no-embed'], step);
      await expectCancelled(result, step);
      const next = STEPS[STEPS.indexOf(step) + 1];
      for (const later of progressSteps(result.after)) expect([step, next]).toContain(later);
    },
    120_000,
  );
});
