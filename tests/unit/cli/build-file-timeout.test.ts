/**
 * `harel-builder build --file-timeout <seconds>`: the per-file parse limit the PARSE_TIMEOUT message
 * tells users to raise. The flag is in build's --help, reaches buildIndex (and through it the ingest
 * step) in ms, and a value that is not a positive number is refused as BAD_ARGUMENT with its usage.
 */
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { writeDemoPdf } from '../../../tools/demo-pdf.ts';
import { createError } from '../../../builder/errors.ts';

const buildIndex = vi.hoisted(() => vi.fn());
vi.mock('../../../builder/pipeline/build-index.ts', () => ({ buildIndex }));

const { main } = await import('../../../builder/cli.ts');
const { fileTimeoutOption } = await import('../../../builder/commands/build.ts');

function captured(): { out: () => string; err: () => string } {
  let out = '';
  let err = '';
  vi.spyOn(process.stdout, 'write').mockImplementation((chunk: string | Uint8Array) => {
    out += String(chunk);
    return true;
  });
  vi.spyOn(process.stderr, 'write').mockImplementation((chunk: string | Uint8Array) => {
    err += String(chunk);
    return true;
  });
  return { out: () => out, err: () => err };
}

let work: string;
beforeAll(async () => {
  work = await mkdtemp(join(tmpdir(), 'harel-file-timeout-'));
});
afterAll(async () => {
  await rm(work, { recursive: true, force: true });
});
afterEach(() => {
  vi.restoreAllMocks();
  buildIndex.mockReset();
});

const summary = {
  manifest: { buildId: 'b', counts: { documents: 1, pages: 1, chunks: 1 }, embedder: null },
  bytes: 10,
  ms: 1,
  skipped: [],
  warnings: [],
  duplicates: [],
  readingOrder: { lines: 0, reordered: 0 },
  diff: { added: 1, removed: 0, kept: 0 },
  embedded: 0,
  embedCacheHits: 0,
};

describe('harel-builder build --file-timeout', () => {
  it('is listed in build --help', async () => {
    const io = captured();
    expect(await main(['build', '--help'])).toBe(0);
    expect(io.out()).toMatch(/--file-timeout <seconds>\s+per-file parse limit \(default 30\)/);
  });

  it('the PARSE_TIMEOUT message names the flag build takes', async () => {
    const message = createError('PARSE_TIMEOUT', 'car/big.pdf', 30).message;
    expect(message).toContain('--file-timeout <seconds>');
    const io = captured();
    await main(['build', '--help']);
    expect(io.out()).toContain('--file-timeout <seconds>');
  });

  it.each([
    ['2.5', 2500],
    ['120', 120_000],
    ['0.001', 1],
  ])('--file-timeout %s reaches the pipeline as %d ms', async (value, ms) => {
    buildIndex.mockResolvedValue(summary);
    const io = captured();
    expect(await main(['build', work, '--out', join(work, 'out'), '--no-embed', '--quiet', '--file-timeout', value])).toBe(0);
    expect(io.err()).toBe('');
    expect(buildIndex).toHaveBeenCalledTimes(1);
    expect(buildIndex.mock.calls[0][0]).toMatchObject({ inputs: [work], fileTimeoutMs: ms });
  });

  it('leaves the limit to the ingest step (30 s) when not given', async () => {
    buildIndex.mockResolvedValue(summary);
    captured();
    expect(await main(['build', work, '--out', join(work, 'out'), '--no-embed', '--quiet'])).toBe(0);
    expect(buildIndex.mock.calls[0][0].fileTimeoutMs).toBeUndefined();
  });

  it.each(['0', '-5', 'abc', '', 'Infinity', 'NaN', '1e10', '0.0001'])('refuses --file-timeout "%s" as BAD_ARGUMENT with the usage, before any work', async (value) => {
    const io = captured();
    // --file-timeout=<v>: parseArgs reads "--file-timeout -5" as a missing value (also refused, exit 2).
    expect(await main(['build', work, '--out', join(work, 'out'), '--no-embed', `--file-timeout=${value}`])).toBe(2);
    expect(io.err()).toMatch(/error \[BAD_ARGUMENT\]: --file-timeout must be a positive number of seconds/);
    expect(io.err()).toContain('Usage: harel-builder build <input…> --out <dir> --file-timeout <seconds>');
    expect(buildIndex).not.toHaveBeenCalled();
  });

  it('refuses the flag without a value', async () => {
    const io = captured();
    expect(await main(['build', work, '--out', join(work, 'out'), '--file-timeout'])).toBe(2);
    expect(io.err()).toMatch(/file-timeout/);
    expect(buildIndex).not.toHaveBeenCalled();
  });

  it('the pipeline hands the limit to the ingest step: 1 ms skips a real PDF as PARSE_TIMEOUT', async () => {
    const folder = join(work, 'corpus', 'car');
    await mkdir(folder, { recursive: true });
    await writeDemoPdf(join(folder, 'policy.pdf'));
    await writeFile(join(folder, 'note.md'), '# Note\n\nA claim is reported within 30 days.\n');
    const { ingestInputs } = await import('../../../builder/pipeline/ingest-inputs.ts');
    const result = await ingestInputs([join(work, 'corpus')], { fileTimeoutMs: fileTimeoutOption('0.001') });
    expect(result.skipped).toEqual([expect.objectContaining({ file: 'car/policy.pdf', code: 'PARSE_TIMEOUT' })]);
    expect(result.skipped[0].reason).toContain('--file-timeout <seconds>');
    const roomy = await ingestInputs([join(work, 'corpus')], { fileTimeoutMs: fileTimeoutOption('60') });
    expect(roomy.skipped).toEqual([]);
    expect(roomy.documents.map((d) => d.file).sort()).toEqual(['car/note.md', 'car/policy.pdf']);
  }, 60_000);

  it('reads seconds into ms', () => {
    expect(fileTimeoutOption(undefined)).toBeUndefined();
    expect(fileTimeoutOption('30')).toBe(30_000);
    expect(fileTimeoutOption(' 1.5 ')).toBe(1500);
  });
});
