/**
 * A PDF on which pdf.js runs synchronously for a long time is skipped as PARSE_TIMEOUT at the
 * per-file limit, not when pdf.js is done, and a cancelled build stops as soon (PDFs are parsed in
 * worker threads, builder/parse/pdf-worker-pool.ts; docs/reliability.md, the documents fuzzer's
 * seed 402). The PDF is the documents fuzzer's own mutant of the demo's PDF (tools/demo-pdf.ts),
 * case seed 12878 over the demo's files alone: its first 108 bytes, which end inside the page
 * tree's /Kids array, repeated 2,999 times at its start. pdf.js spends 48 s on it on the builder's thread here (2 cores, loaded);
 * before the worker threads, each test below took that long and failed its bound.
 */
import { mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ingest } from '../../../builder/ingest/index.ts';
import { PdfWorkerPool, pdfWorkerPool } from '../../../builder/parse/pdf-worker-pool.ts';
import { isHarelError } from '../../../widget/core/errors.ts';
import { writeDemoPdf } from '../../../tools/demo-pdf.ts';
import { docMutation, mutateDocument } from '../../fuzz/documents.ts';

/** A case seed of the documents fuzzer over the demo's files alone, whose byte mutations pick among 12 of them: the PDF is the 2nd. */
const SEED = 12878;
const LIMIT_MS = 2000;
/** Generous: the limit, a thread's start on a loaded machine, and slack; far below the parse's own time. */
const BOUND_MS = 10_000;

let dir: string;
let good: Uint8Array;

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'harel-pdf-timeout-'));
  writeDemoPdf(join(dir, 'demo-home-policy.pdf'));
  good = new Uint8Array(await readFile(join(dir, 'demo-home-policy.pdf')));
  const [m] = fc.sample(docMutation(12), { seed: SEED, numRuns: 1 });
  expect(m).toMatchObject({ kind: 'repeat', file: 1, length: 108, times: 2999 });
  // The fuzzer's own mutation, on the demo's PDF alone (file 0 of a list of one).
  const slow = mutateDocument([{ name: 'demo-home-policy.pdf', bytes: good }], { ...m, file: 0 } as typeof m).bytes;
  await rm(join(dir, 'demo-home-policy.pdf'));
  await mkdir(join(dir, 'car'));
  await writeFile(join(dir, 'car/slow.pdf'), slow);
  await writeFile(join(dir, 'car/control.txt'), 'כיסוי ביטוח רכב: השתתפות עצמית של 250 ש"ח על החלפת שמשה.\n');
});

afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
  await pdfWorkerPool.close();
});

describe('a PDF that keeps pdf.js busy', () => {
  it(`is skipped as PARSE_TIMEOUT at a ${LIMIT_MS / 1000} s limit, well before pdf.js would be done, and the build goes on`, async () => {
    const started = performance.now();
    const r = await ingest([dir], { fileTimeoutMs: LIMIT_MS });
    const ms = performance.now() - started;
    expect(r.documents.map((d) => d.file)).toEqual(['car/control.txt']);
    expect(r.skipped).toEqual([expect.objectContaining({ file: 'car/slow.pdf', code: 'PARSE_TIMEOUT' })]);
    expect(ms).toBeGreaterThanOrEqual(LIMIT_MS - 50);
    expect(ms).toBeLessThan(BOUND_MS);

    // The stopped thread was terminated; the next PDF gets a new one and is indexed.
    const next = await mkdtemp(join(tmpdir(), 'harel-pdf-after-timeout-'));
    try {
      await writeFile(join(next, 'policy.pdf'), good);
      const after = await ingest([next], { fileTimeoutMs: 30_000 });
      expect(after.documents.map((d) => d.file)).toEqual(['policy.pdf']);
      expect(after.documents[0].pages.length).toBeGreaterThan(0);
    } finally {
      await rm(next, { recursive: true, force: true });
    }
  });

  it('stops the build at once when it is cancelled mid-parse (Ctrl-C): ABORTED', async () => {
    const controller = new AbortController();
    setTimeout(() => controller.abort(), 1000);
    const started = performance.now();
    const error = await ingest([dir], { signal: controller.signal }).catch((e: unknown) => e);
    expect(isHarelError(error, 'ABORTED'), String(error)).toBe(true);
    expect(performance.now() - started).toBeLessThan(BOUND_MS);
  });

  it('skips the file as PARSE_FAILED when the parser thread crashes, and the build goes on', async () => {
    const broken = new PdfWorkerPool(1, new URL('./no-such-pdf-worker.ts', import.meta.url));
    try {
      const r = await ingest([dir], { parsePdf: broken.parse });
      expect(r.documents.map((d) => d.file)).toEqual(['car/control.txt']);
      expect(r.skipped).toEqual([expect.objectContaining({ file: 'car/slow.pdf', code: 'PARSE_FAILED' })]);
      expect(r.skipped[0].reason).toMatch(/thread/);
    } finally {
      await broken.close();
    }
  });

  it('parses in the thread as in this one: the same pages', async () => {
    const { parsePdf } = await import('../../../builder/parse/pdf.ts');
    expect(await pdfWorkerPool.parse(good, 'policy.pdf')).toEqual(await parsePdf(good, 'policy.pdf'));
  });
});
