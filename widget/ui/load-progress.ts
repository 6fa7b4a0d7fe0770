/**
 * How the index's loading is put into words: a byte counter while the documents download (the
 * only step whose size a customer can relate to: it is what a slow connection waits for), then
 * each later step by name. Pure functions of a Progress event, so the status line and a queued
 * question's reply say the same thing, and tests need no browser.
 */
import type { Lang, Progress } from '../core/schema.ts';
import { UI_STRINGS } from './strings.ts';

const UNITS = [
  { unit: 'gigabyte', scale: 1e9 },
  { unit: 'megabyte', scale: 1e6 },
  { unit: 'kilobyte', scale: 1e3 },
] as const;

/**
 * A byte count in the interface's language: decimal units as CLDR names them ("1.2 MB", "840 kB",
 * "512 bytes"), one decimal below 100 MB (a download moves by tenths there), whole kilobytes.
 * Wrapped in a first-strong isolate so that in a right-to-left sentence "1.2 MB" keeps its order
 * and a Hebrew unit name keeps its own direction.
 */
export function formatBytes(bytes: number, lang: Lang): string {
  const n = Number.isFinite(bytes) && bytes > 0 ? bytes : 0;
  // The largest unit the count reaches as it will be shown: 999.7 kB is "1 MB", not "1,000 kB".
  const choice = UNITS.find(({ scale }) => n >= scale * 0.9995);
  const format = choice
    ? new Intl.NumberFormat(lang, { style: 'unit', unit: choice.unit, unitDisplay: 'short', maximumFractionDigits: choice.scale >= 1e6 && n / choice.scale < 99.95 ? 1 : 0 })
    : new Intl.NumberFormat(lang, { style: 'unit', unit: 'byte', unitDisplay: 'long', maximumFractionDigits: 0 });
  return `\u2068${format.format(choice ? n / choice.scale : n)}\u2069`;
}

/** What the UI shows for the index's progress: a label, the byte counter if any, and the bar's values. */
export interface LoadProgressView {
  /** The step in words, e.g. "Downloading the documents" or "Preparing search…". */
  label: string;
  /** "1.2 MB of 7.4 MB" while downloading; null for the other steps. */
  amount: string | null;
  /** The bar's value and maximum; null for an indeterminate bar. */
  value: number | null;
  max: number | null;
}

/**
 * Steps as the worker reports them (widget/store/index-store.ts, the embedder): `download` counts
 * bytes; `verify`, `load` and `store` count files or steps, `model` bytes of one embedder file at a
 * time (a counter that restarts per file would mislead, so only its bar shows). An unknown step,
 * or none yet (the manifest is being fetched), reads as the generic "Loading the documents…".
 */
export function describeLoadProgress(progress: Progress | null, lang: Lang): LoadProgressView {
  const s = UI_STRINGS[lang];
  const bar = progress?.total ? { value: Math.min(Math.max(progress.done, 0), progress.total), max: progress.total } : { value: null, max: null };
  switch (progress?.step) {
    case 'download':
      return progress.total
        ? { label: s.progressDownload, amount: s.progressOf(formatBytes(progress.done, lang), formatBytes(progress.total, lang)), ...bar }
        : { label: s.progressDownload, amount: null, ...bar };
    case 'verify':
      return { label: s.progressVerify, amount: null, ...bar };
    case 'load':
      return { label: s.progressLoad, amount: null, ...bar };
    case 'store':
      return { label: s.progressStore, amount: null, ...bar };
    case 'model':
      return { label: s.progressModel, amount: null, ...bar };
    default:
      return { label: s.loadingIndex, amount: null, value: null, max: null };
  }
}
