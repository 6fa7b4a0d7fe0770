/**
 * What a visitor would download when the index is read by need (`eval --by-need`): the
 * always-read part, then the new term and chunk fragments each question needs, in the order asked.
 */
import type { IndexByNeed } from '../../widget/core/format/index-by-need.ts';

export interface ByNeedSummary {
  /** Stored (gzip) bytes of the index, every file. */
  indexBytes: number;
  /** Read before any question: the manifest and its files other than the fragments. */
  alwaysRead: { files: number; bytes: number };
  /** Fragments the first question read. */
  firstQuestion: { files: number; bytes: number };
  /** New fragment bytes per question, p50 / p95 / max (each question after what the earlier ones read). */
  perQuestion: { p50: number; p95: number; max: number };
  /** Fragments read after all the questions, of how many. */
  fragments: { read: number; of: number };
  /** Everything read after all the questions. */
  total: { files: number; bytes: number };
}

const quantile = (sorted: readonly number[], q: number) => (sorted.length ? sorted[Math.min(sorted.length - 1, Math.ceil(q * sorted.length) - 1)] : 0);

export class ByNeedTally {
  private readonly source: IndexByNeed;
  private readonly start: { files: number; bytes: number };
  private last: { files: number; bytes: number };
  private readonly deltas: { files: number; bytes: number }[] = [];

  constructor(source: IndexByNeed) {
    this.source = source;
    this.start = source.fetched;
    this.last = this.start;
  }

  /** Call after each question's fragments are read. */
  question(): void {
    const now = this.source.fetched;
    this.deltas.push({ files: now.files - this.last.files, bytes: now.bytes - this.last.bytes });
    this.last = now;
  }

  summary(): ByNeedSummary {
    const { manifest } = this.source;
    const bytes = this.deltas.map((d) => d.bytes).sort((a, b) => a - b);
    const total = this.source.fetched;
    return {
      indexBytes: Object.values(manifest.files).reduce((n, f) => n + (f?.bytes ?? 0), 0),
      alwaysRead: this.start,
      firstQuestion: this.deltas[0] ?? { files: 0, bytes: 0 },
      perQuestion: { p50: quantile(bytes, 0.5), p95: quantile(bytes, 0.95), max: bytes.at(-1) ?? 0 },
      fragments: { read: total.files - this.start.files, of: manifest.fragments.terms + manifest.fragments.chunks },
      total,
    };
  }
}

const kb = (bytes: number) => `${(bytes / 1024).toFixed(0)} KB`;

export function formatByNeed(s: ByNeedSummary): string {
  return [
    `read by need (index ${kb(s.indexBytes)} stored):`,
    `  before the first question: ${kb(s.alwaysRead.bytes)} in ${s.alwaysRead.files} files (the manifest and its files less the ${s.fragments.of} fragments)`,
    `  the first question: ${kb(s.firstQuestion.bytes)} in ${s.firstQuestion.files} fragments`,
    `  new fragments a question: p50 ${kb(s.perQuestion.p50)}, p95 ${kb(s.perQuestion.p95)}, max ${kb(s.perQuestion.max)}`,
    `  after every question: ${s.fragments.read} of ${s.fragments.of} fragments, ${kb(s.total.bytes)} read in all`,
  ].join('\n');
}
