/**
 * The harel-builder CLI end to end on the project's demo corpus, with the tiny TEST embedder:
 * build with vectors, incremental rebuild, inspect, hybrid search and eval in Node, and the
 * exit codes and messages of bad input.
 */
import { execFile } from 'node:child_process';
import { cp, mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { writeDemoPdf } from '../../../tools/demo-pdf.ts';
import { writeTinyEmbedder } from '../../fixtures/tiny-embedder/write-tiny-embedder.ts';

const run = promisify(execFile);
const repo = fileURLToPath(new URL('../../../', import.meta.url));
const bin = join(repo, 'builder/bin/harel-builder.mjs');

async function cli(args: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  try {
    const { stdout, stderr } = await run(process.execPath, [bin, ...args], { cwd: repo, maxBuffer: 32 * 1024 * 1024 });
    return { code: 0, stdout, stderr };
  } catch (error) {
    const e = error as { code: number; stdout: string; stderr: string };
    return { code: e.code, stdout: e.stdout, stderr: e.stderr };
  }
}

let work: string;
let corpus: string;
let models: string;
let index: string;

beforeAll(async () => {
  work = await mkdtemp(join(tmpdir(), 'harel-cli-'));
  corpus = join(work, 'corpus');
  models = join(work, 'models');
  index = join(work, 'out', 'index');
  await cp(join(repo, 'demo/corpus'), corpus, { recursive: true });
  await writeDemoPdf(join(corpus, 'apartment/files/demo-home-policy.pdf'));
  await writeTinyEmbedder(join(models, 'fixture/tiny-embedder'));
}, 120_000);

afterAll(async () => {
  await rm(work, { recursive: true, force: true });
});

const buildArgs = () => ['build', corpus, '--out', index, '--embedder', 'fixture/tiny-embedder', '--model-dir', models, '--dtype', 'fp32', '--quiet'];

describe('harel-builder', () => {
  it('builds the demo corpus with vectors, then rebuilds incrementally from the embedding cache', async () => {
    const first = await cli(buildArgs());
    expect(first.stderr).toBe('');
    expect(first.code).toBe(0);
    const chunks = Number(/(\d+) chunks,/.exec(first.stdout)![1]);
    expect(chunks).toBeGreaterThan(50);
    expect(first.stdout).toContain(`${chunks} embedded, 0 from the embedding cache`);
    expect(first.stdout).toContain('(test fixture)');

    const second = await cli(buildArgs());
    expect(second.stdout).toContain(`0 added, 0 removed, ${chunks} unchanged; 0 embedded, ${chunks} from the embedding cache`);

    const manifest = JSON.parse(await readFile(join(index, 'manifest.json'), 'utf8'));
    expect(manifest.embedder).toMatchObject({ id: 'fixture/tiny-embedder', dimensions: 32, fixture: true });
    expect(manifest.counts.byDomain.apartment.documents).toBeGreaterThanOrEqual(3);
    expect(Object.keys(manifest.counts.byLang).sort()).toEqual(['en', 'he']);
  }, 120_000);

  it('inspects the index', async () => {
    const { code, stdout } = await cli(['inspect', index, '--samples', '2']);
    expect(code).toBe(0);
    expect(stdout).toMatch(/TEST FIXTURE/);
    expect(stdout).toMatch(/bytes per chunk/);
    expect(stdout).toMatch(/apartment/);
  });

  it('runs a hybrid search in Node with the query embedder and cites the PDF page', async () => {
    const { code, stdout } = await cli(['search', index, 'how many days to report a home claim', '--model-dir', models, '--json']);
    expect(code).toBe(0);
    const result = JSON.parse(stdout);
    expect(result.mode).toBe('hybrid');
    const pdfHit = result.hits.find((h: { file: string }) => h.file === 'apartment/files/demo-home-policy.pdf');
    expect(pdfHit).toBeDefined();
    expect(pdfHit.page).toBe(3);
    expect(result.hits.some((h: { vector: number | null }) => h.vector !== null)).toBe(true);
  });

  it('evaluates the demo questions and writes the JSON report', async () => {
    const out = join(work, 'eval.json');
    const { code, stdout } = await cli(['eval', index, '--questions', join(repo, 'demo/questions.json'), '--model-dir', models, '--json', out, '--quiet']);
    expect(code).toBe(0);
    expect(stdout).toMatch(/by domain/);
    const report = JSON.parse(await readFile(out, 'utf8'));
    expect(report.questions).toBe(36);
    expect(report.unanswerable).toBe(10);
    expect(report.mode).toBe('hybrid');
    for (const level of ['file', 'page'] as const) for (const key of ['hit@1', 'hit@5', 'hit@10', 'mrr']) expect(report[level][key]).toBeTypeOf('number');
    expect(report.page['hit@5']).toBeGreaterThan(0.7);
    expect(report.routing.accuracy).toBeGreaterThan(0.5);
    expect(report.perQuestion[0].ranked[0]).toHaveProperty('chunkId');
  }, 60_000);

  it('reports bad input and exits non-zero when nothing is usable', async () => {
    const bad = join(work, 'bad', 'car');
    await mkdir(bad, { recursive: true });
    await writeFile(join(bad, 'broken.pdf'), 'not a pdf at all');
    await writeFile(join(bad, 'notes.docx'), 'x');
    const { code, stdout, stderr } = await cli(['build', join(work, 'bad'), '--out', join(work, 'bad-out'), '--no-embed', '--quiet']);
    expect(code).toBe(1);
    expect(stderr).toMatch(/NO_DOCUMENTS/);
    // The error itself lists what was skipped and why: with no summary there is no list "above".
    expect(stderr).toMatch(/Every file was skipped:\n\s+- \[\w+\] .*broken\.pdf/);
    expect(stdout + stderr).not.toMatch(/at .*\.ts:\d+/); // a message, not a stack trace
  });

  it('explains wrong arguments with exit code 2', async () => {
    const noOut = await cli(['build', corpus]);
    expect(noOut.code).toBe(2);
    expect(noOut.stderr).toMatch(/--out/);
    const badMode = await cli(['search', index, 'x', '--mode', 'fuzzy']);
    expect(badMode.code).toBe(2);
    expect(badMode.stderr).toMatch(/bm25, vector or hybrid/);
    const missing = await cli(['inspect', join(work, 'nowhere')]);
    expect(missing.code).toBe(1);
    expect(missing.stderr).toMatch(/INDEX_NOT_FOUND/);
  });
});
