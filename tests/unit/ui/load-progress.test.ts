import { describe, expect, it } from 'vitest';
import { describeLoadProgress, formatBytes } from '../../../widget/ui/load-progress.ts';

/** The text without its bidi isolates, as a reader sees it in a left-to-right line. */
const bare = (text: string) => text.replace(/[\u2066-\u2069]/g, '');

describe('formatBytes', () => {
  it('names the largest unit the count reaches, with a decimal below 100 MB', () => {
    expect(bare(formatBytes(0, 'en'))).toBe('0 bytes');
    expect(bare(formatBytes(1, 'en'))).toBe('1 byte');
    expect(bare(formatBytes(512, 'en'))).toBe('512 bytes');
    expect(bare(formatBytes(84_200, 'en'))).toBe('84 kB');
    expect(bare(formatBytes(1_234_567, 'en'))).toBe('1.2 MB');
    expect(bare(formatBytes(7_400_000, 'en'))).toBe('7.4 MB');
    expect(bare(formatBytes(11_200_000, 'en'))).toBe('11.2 MB');
    expect(bare(formatBytes(150_400_000, 'en'))).toBe('150 MB');
    expect(bare(formatBytes(2_500_000_000, 'en'))).toBe('2.5 GB');
  });

  it('moves to the next unit where rounding would show a thousand of this one', () => {
    expect(bare(formatBytes(999_700, 'en'))).toBe('1 MB');
    expect(bare(formatBytes(999_400, 'en'))).toBe('999 kB');
    expect(bare(formatBytes(999.6, 'en'))).toBe('1 kB');
  });

  it('formats in the interface language (Intl.NumberFormat), isolated so it keeps its order in a Hebrew line', () => {
    const he = formatBytes(1_234_567, 'he');
    expect(he.startsWith('\u2068') && he.endsWith('\u2069')).toBe(true);
    expect(bare(he)).toBe(new Intl.NumberFormat('he', { style: 'unit', unit: 'megabyte', maximumFractionDigits: 1 }).format(1.234567));
    expect(bare(he)).toMatch(/^1\.2\s/);
    // Hebrew names the byte itself: the isolate takes its direction from the word.
    expect(bare(formatBytes(512, 'he'))).toMatch(/^512\s\p{Script=Hebrew}+$/u);
  });

  it('reads nonsense as nothing rather than printing it', () => {
    expect(bare(formatBytes(-5, 'en'))).toBe('0 bytes');
    expect(bare(formatBytes(Number.NaN, 'en'))).toBe('0 bytes');
  });
});

describe('describeLoadProgress', () => {
  it('counts bytes while downloading', () => {
    const view = describeLoadProgress({ step: 'download', done: 1_200_000, total: 7_400_000, detail: 'chunks.json.gz' }, 'en');
    expect(view.label).toBe('Downloading the documents');
    expect(bare(view.amount!)).toBe('1.2 MB of 7.4 MB');
    expect(view).toMatchObject({ value: 1_200_000, max: 7_400_000 });
  });

  it('says the same in Hebrew', () => {
    const view = describeLoadProgress({ step: 'download', done: 1_200_000, total: 7_400_000 }, 'he');
    expect(view.label).toBe('מוריד את המסמכים');
    expect(bare(view.amount!)).toMatch(/^1\.2\sMB מתוך 7\.4\sMB$/);
  });

  it('names the later steps in words, with no byte counter', () => {
    expect(describeLoadProgress({ step: 'verify', done: 2, total: 5 }, 'en')).toEqual({ label: 'Checking the documents…', amount: null, value: 2, max: 5 });
    expect(describeLoadProgress({ step: 'load', done: 0, total: 1 }, 'en')).toMatchObject({ label: 'Preparing search…', amount: null });
    expect(describeLoadProgress({ step: 'store', done: 0, total: 1 }, 'he')).toMatchObject({ label: 'שומר את המסמכים במכשיר…', amount: null });
    // The embedder's bytes restart with every file: only its bar moves.
    expect(describeLoadProgress({ step: 'model', done: 10, total: 100, detail: 'onnx/model_quantized.onnx' }, 'en')).toMatchObject({ amount: null, value: 10, max: 100 });
  });

  it('is the generic loading line before the first event (a warm start fetches only the manifest) and for steps it does not know', () => {
    expect(describeLoadProgress(null, 'en')).toEqual({ label: 'Loading the documents…', amount: null, value: null, max: null });
    expect(describeLoadProgress({ step: 'shard', done: 1, total: 3 }, 'he').label).toBe('טוען את מאגר המסמכים…');
  });

  it('keeps the bar within its range, and indeterminate without a total', () => {
    expect(describeLoadProgress({ step: 'download', done: 9_000, total: 8_000 }, 'en')).toMatchObject({ value: 8_000, max: 8_000 });
    expect(describeLoadProgress({ step: 'download', done: 9_000, total: null }, 'en')).toEqual({ label: 'Downloading the documents', amount: null, value: null, max: null });
  });
});
