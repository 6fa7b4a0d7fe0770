/**
 * Refusing on the reader's word, fitted: a second-stage model over the questions the reader read,
 * from the loop's own answerable probability (before reading) and what the reader said, cross-fitted
 * by the reader's folds so every question is scored by a model (and a threshold) fitted on the
 * other folds, whose reader adapter never trained on it either (training/reader/folds.sh LOOP=1
 * writes the records). Beside it, the two rules it must beat: the loop alone, and `reader-refuses`
 * (every window said "not here" and the answer is below "high").
 */
import type { ReaderEvalRecord } from '../builder/eval/reader-eval.ts';
import { fitLogistic, predictLogistic } from '../builder/eval/fit/logistic.ts';
import { refusalThreshold } from '../builder/eval/fit/thresholds.ts';

export interface ReaderRefusalRow {
  id: string;
  /** The question set ("dev-v2", "HeQ"): thresholds are set on the insurer's. */
  set: string;
  /** The reader fold the question was held out in. */
  fold: number;
  answerable: boolean;
  /** Refused by the loop before reading: such a question is refused under every rule. */
  refusedByLoop: boolean;
  /** reader-refuses' rule: every window said "not here" and the answer is below "high". */
  refusedByRule: boolean;
  /**
   * The second stage's inputs: the loop's answerable probability as a logit, "not here" (0/1), the
   * reader's p(no-answer), a span found (0/1). Null where the reader did not read (refused before,
   * no window).
   */
  features: number[] | null;
}

const logit = (p: number) => Math.log(Math.max(1e-6, p) / Math.max(1e-6, 1 - p));

/**
 * One row per record. Records written before the probabilities were recorded (no
 * `answerableProbability` where the reader read) cannot be fitted on: they throw, naming the fix.
 */
export function readerRefusalRows(records: readonly ReaderEvalRecord[], set: string, fold: number): ReaderRefusalRow[] {
  return records.map((r) => {
    const read = r.calls > 0 && !r.refused;
    if (read && (r.answerableProbability === undefined || r.answerableProbability === null)) {
      throw new Error(`${set} fold ${fold}: record ${r.id} has no answerableProbability (written by an older eval): run folds.sh with LOOP=1 again after removing its loop-*.json`);
    }
    return {
      id: r.id,
      set,
      fold,
      answerable: r.answerable,
      refusedByLoop: r.refused,
      refusedByRule: r.refused || (r.verdict === 'no-answer' && r.confidence !== 'high'),
      features: read ? [logit(r.answerableProbability ?? 0.5), r.verdict === 'no-answer' ? 1 : 0, r.noAnswerProbability ?? 0, r.verdict === 'span' ? 1 : 0] : null,
    };
  });
}

export interface RefusalCounts {
  unanswerable: number;
  unanswerableRefused: number;
  answerable: number;
  answerableRefused: number;
}

export interface ReaderRefusalReport {
  /** Per set: the loop alone, reader-refuses' rule, and the cross-fitted model. */
  sets: Record<string, { loop: RefusalCounts; rule: RefusalCounts; fitted: RefusalCounts }>;
  /** Folds that had rows of both kinds to fit on. */
  folds: number[];
}

function count(rows: readonly ReaderRefusalRow[], refused: (r: ReaderRefusalRow) => boolean): RefusalCounts {
  const un = rows.filter((r) => !r.answerable);
  const an = rows.filter((r) => r.answerable);
  return {
    unanswerable: un.length,
    unanswerableRefused: un.filter(refused).length,
    answerable: an.length,
    answerableRefused: an.filter(refused).length,
  };
}

export interface CrossFitOptions {
  /** The false-refusal budget the threshold is set to on the training folds' insurer questions. */
  maxFalseRefusal: number;
  /** The sets whose answerable questions bound the threshold (the insurer's). */
  thresholdSets: ReadonlySet<string>;
  l2?: number;
}

/**
 * For each fold: a logistic model (answerable or not) fitted on the read rows of the other folds,
 * classes weighted to equal mass, and the threshold refusing at most `maxFalseRefusal` of those
 * folds' answerable insurer questions (refusals before reading counted against the budget); the
 * fold's read rows are then refused below it.
 */
export function crossFitReaderRefusal(rows: readonly ReaderRefusalRow[], options: CrossFitOptions): ReaderRefusalReport {
  const refusedFitted = new Set<ReaderRefusalRow>();
  const folds = [...new Set(rows.map((r) => r.fold))].sort((a, b) => a - b);
  const fitted: number[] = [];
  for (const fold of folds) {
    const train = rows.filter((r) => r.fold !== fold && r.features);
    const positives = train.filter((r) => r.answerable).length;
    const negatives = train.length - positives;
    if (positives === 0 || negatives === 0) continue;
    fitted.push(fold);
    const model = fitLogistic(
      train.map((r) => r.features!),
      train.map((r) => (r.answerable ? 1 : 0)),
      train.map((r) => (r.answerable ? train.length / (2 * positives) : train.length / (2 * negatives))),
      { l2: options.l2 ?? 1 },
    );
    const bounding = rows.filter((r) => r.fold !== fold && r.answerable && options.thresholdSets.has(r.set));
    const threshold = refusalThreshold(
      bounding.map((r) => ({ p: r.features ? predictLogistic(model, r.features) : 1, refusedAnyway: r.refusedByLoop })),
      options.maxFalseRefusal,
    );
    for (const r of rows) {
      if (r.fold === fold && r.features && predictLogistic(model, r.features) < threshold) refusedFitted.add(r);
    }
  }
  const sets: ReaderRefusalReport['sets'] = {};
  for (const set of [...new Set(rows.map((r) => r.set))]) {
    const mine = rows.filter((r) => r.set === set && fitted.includes(r.fold));
    sets[set] = {
      loop: count(mine, (r) => r.refusedByLoop),
      rule: count(mine, (r) => r.refusedByRule),
      fitted: count(mine, (r) => r.refusedByLoop || refusedFitted.has(r)),
    };
  }
  return { sets, folds: fitted };
}
