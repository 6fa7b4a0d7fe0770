/**
 * The constant files the fit scripts write (builder/eval/fit/constants-source.ts): the committed
 * files are exactly what the writers produce for their values, and a written module imports back
 * to the values it was given, so a refit changes the constants and nothing else.
 */
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import { commandLine, fusionDefaultsSource, gradeThresholdsSource, inputHash, provenance, writtenHeader } from '../../../builder/eval/fit/constants-source.ts';
import { FITTED_FUSION, type FusionDefaults } from '../../../widget/core/retrieval/fusion-defaults.ts';
import { GRADE_MIN_RELEVANCE } from '../../../widget/loop/grade.ts';

const ROOT = new URL('../../../', import.meta.url);
const committed = (path: string) => readFile(new URL(path, ROOT), 'utf8');

const dirs: string[] = [];
afterAll(async () => {
  for (const dir of dirs) await rm(dir, { recursive: true, force: true });
});

/** Writes `source` as a module in a fresh folder and imports it. */
async function importSource<T>(source: string): Promise<T> {
  const dir = await mkdtemp(join(tmpdir(), 'constants-source-'));
  dirs.push(dir);
  const file = join(dir, 'written.ts');
  await writeFile(file, source);
  return (await import(pathToFileURL(file).href)) as T;
}

describe('fusion-defaults.ts', () => {
  it('is what fusionDefaultsSource writes for FITTED_FUSION', async () => {
    const text = await committed('widget/core/retrieval/fusion-defaults.ts');
    expect(fusionDefaultsSource(FITTED_FUSION, writtenHeader(text))).toBe(text);
  });

  it('imports back to the values written', async () => {
    const fusion: FusionDefaults = { fusion: 'rrf', bm25Weight: 0.35, rrfK: 30, bm25Pool: 75, vectorPool: 300 };
    const header = await provenance('npx tsx builder/eval/fit-fusion.ts --write-defaults', [{ label: 'a', text: 'b' }], new Date('2026-12-01T00:00:00Z'));
    const source = fusionDefaultsSource(fusion, header);
    expect((await importSource<{ FITTED_FUSION: FusionDefaults }>(source)).FITTED_FUSION).toEqual(fusion);
    expect(writtenHeader(source)).toEqual(header);
    expect((await importSource<{ FITTED_FUSION: FusionDefaults }>(fusionDefaultsSource(FITTED_FUSION, header))).FITTED_FUSION).toEqual(FITTED_FUSION);
  });

  it('refuses what is no fusion', () => {
    expect(() => fusionDefaultsSource({ ...FITTED_FUSION, bm25Weight: Number.NaN }, [])).toThrow(/finite/);
    expect(() => fusionDefaultsSource({ ...FITTED_FUSION, fusion: 'sum' as FusionDefaults['fusion'] }, [])).toThrow(/method/);
  });
});

describe('grade-thresholds.ts', () => {
  it('is what gradeThresholdsSource writes for GRADE_MIN_RELEVANCE, still 0.35', async () => {
    const text = await committed('widget/loop/grade-thresholds.ts');
    expect(GRADE_MIN_RELEVANCE).toBe(0.35);
    expect(gradeThresholdsSource(GRADE_MIN_RELEVANCE, writtenHeader(text))).toBe(text);
  });

  it('imports back to the value written', async () => {
    const source = gradeThresholdsSource(0.375, ['Written by `npx tsx builder/eval/calibrate-grade.ts --write 0.375`.', '', '0.375 | 11.0 %']);
    expect((await importSource<{ GRADE_MIN_RELEVANCE: number }>(source)).GRADE_MIN_RELEVANCE).toBe(0.375);
    expect(() => gradeThresholdsSource(1.5, [])).toThrow(/\(0, 1\)/);
  });
});

describe('provenance', () => {
  it('hashes every input by label and content, in order', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'constants-source-'));
    dirs.push(dir);
    const file = join(dir, 'questions.json');
    await writeFile(file, '[1]');
    const base = await inputHash([{ label: 'q', file }]);
    expect(base).toMatch(/^[0-9a-f]{16}$/);
    expect(await inputHash([{ label: 'q', text: '[1]' }])).toBe(base);
    expect(await inputHash([{ label: 'r', file }])).not.toBe(base);
    await writeFile(file, '[2]');
    expect(await inputHash([{ label: 'q', file }])).not.toBe(base);
    expect(
      await inputHash([
        { label: 'a', text: 'x' },
        { label: 'b', text: 'y' },
      ]),
    ).not.toBe(
      await inputHash([
        { label: 'b', text: 'y' },
        { label: 'a', text: 'x' },
      ]),
    );
  });

  it('writes the command as typed, quoting what a shell would split', () => {
    expect(commandLine('builder/eval/calibrate-grade.ts', ['--index', '.tmp/harel', '--write', '0.35'])).toBe('npx tsx builder/eval/calibrate-grade.ts --index .tmp/harel --write 0.35');
    expect(commandLine('x.ts', ["it's here"])).toBe(`npx tsx x.ts 'it'\\''s here'`);
  });
});
