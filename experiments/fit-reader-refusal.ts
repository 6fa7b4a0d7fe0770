/**
 * Whether refusing on the reader's word, fitted, earns its place (issue 34: the reader's verdict and
 * no-answer probability as answerability inputs, refit with cross-validation):
 *
 *   npx tsx experiments/fit-reader-refusal.ts [--run r16-all7-all-bal] [--max-false 0.08]
 *
 * Reads the loop records folds.sh writes with LOOP=1 (training/reader/runs/<run>-f<k>/loop-dev-v2.json,
 * loop-heq.json: each fold read by the adapter that held it out) and prints, per set, the refusals
 * of the loop alone, of reader-refuses' rule and of the cross-fitted model (reader-refusal.ts),
 * every figure held out twice over: the reader never trained on the question, the model and its
 * threshold never saw its fold.
 */
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { fileURLToPath } from 'node:url';
import type { ReaderEvalRecord } from '../builder/eval/reader-eval.ts';
import { crossFitReaderRefusal, readerRefusalRows, type ReaderRefusalRow, type RefusalCounts } from './reader-refusal.ts';

const RUNS = fileURLToPath(new URL('../training/reader/runs/', import.meta.url));
const FILES = [
  ['dev-v2', 'loop-dev-v2.json'],
  ['HeQ', 'loop-heq.json'],
] as const;

function main(): void {
  const { values } = parseArgs({ options: { run: { type: 'string', default: 'r16-all7-all-bal' }, 'max-false': { type: 'string', default: '0.08' } } });
  const rows: ReaderRefusalRow[] = [];
  for (let fold = 0; fold < 5; fold++) {
    for (const [set, file] of FILES) {
      const path = join(RUNS, `${values.run}-f${fold}`, file);
      if (!existsSync(path)) continue;
      const records = (JSON.parse(readFileSync(path, 'utf8')) as { reader: { records: ReaderEvalRecord[] } }).reader.records;
      rows.push(...readerRefusalRows(records, set, fold));
    }
  }
  if (rows.length === 0) {
    process.stderr.write(`no loop records for ${values.run}: run FOLDS="0 1 2 3 4" LOOP=1 npm run train:reader:folds first\n`);
    process.exit(2);
  }
  const report = crossFitReaderRefusal(rows, { maxFalseRefusal: Number(values['max-false']), thresholdSets: new Set(['dev-v2']) });
  if (report.folds.length === 0) {
    process.stderr.write('no fold had both answerable and unanswerable questions read in the other folds: too few folds read yet\n');
    process.exit(2);
  }
  const cell = (c: RefusalCounts) => `${c.unanswerableRefused} of ${c.unanswerable} / ${c.answerableRefused} of ${c.answerable}`;
  process.stdout.write(`held-out folds: ${report.folds.join(', ')}; unanswerable refused / answerable refused\n\n`);
  process.stdout.write('| set | the loop | reader-refuses | fitted with the reader |\n|---|---|---|---|\n');
  for (const [set, r] of Object.entries(report.sets)) process.stdout.write(`| ${set} | ${cell(r.loop)} | ${cell(r.rule)} | ${cell(r.fitted)} |\n`);
}

main();
