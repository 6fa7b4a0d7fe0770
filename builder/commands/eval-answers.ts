/**
 * `harel-builder eval <index> --questions <file> --answers`: whether the answers state the fact
 * (eval/answers-eval.ts), the extractive loop as the widget runs it, hybrid when the index has
 * vectors (questions embedded once and kept in `--vectors-cache`). Printed per file: all its
 * answerable questions and the seeded halves (tune, frozen); `--json` writes every record.
 * `--sample N --sample-out <file.md>` writes N answers of the frozen half whose ground truth holds
 * a number, question, ground truth and answer side by side, to be judged by hand.
 */
import { mkdir, writeFile } from 'node:fs/promises';
import { dirname } from 'node:path';
import { ExtractiveEngine } from '../../widget/engines/extractive.ts';
import { LocalSearchService } from '../../widget/search/local-search-service.ts';
import type { ProgressReporter } from '../cli/progress.ts';
import { type AnswerRecord, formatAnswersSummary, runAnswersEval, SPLIT_SEED, splitHalves, summarizeByHalf } from '../eval/answers-eval.ts';
import { cachedQueryEmbedder } from '../eval/fit/query-vectors.ts';
import type { EvalQuestion } from '../eval/questions.ts';
import { aliasMap, twinLookup } from '../eval/run-eval.ts';
import type { LoadedIndex } from '../../widget/core/format/read-index.ts';

export interface EvalAnswersOptions {
  index: LoadedIndex;
  files: { file: string; questions: EvalQuestion[] }[];
  hybrid: boolean;
  modelDir: string;
  vectorsCache: string;
  progress: ProgressReporter;
  sample?: { count: number; out: string };
}

/** Answers to judge by hand: `count` of the frozen half's numeric questions, in the split's order. */
function sampleMarkdown(records: readonly AnswerRecord[], questions: ReadonlyMap<string, EvalQuestion>, count: number): string {
  const picked = records.filter((r) => r.half === 'frozen' && r.expected.length > 0).slice(0, count);
  const parts = picked.map((r) => {
    const q = questions.get(r.id)!;
    return [
      `## ${r.id} — ${r.confidence}${r.refused ? ', refused' : ''}`,
      `**Question:** ${q.question}`,
      `**Ground truth:** ${q.answers.join(' / ')}`,
      `**Expected numbers:** ${r.expected.join(', ')}`,
      '**Answer:**',
      '',
      r.text,
      '',
      '**Verdict:** right / partial / wrong',
    ].join('\n');
  });
  return `# Answers to judge (frozen half, split seed ${SPLIT_SEED})\n\n${parts.join('\n\n')}\n`;
}

export async function evalAnswers(options: EvalAnswersOptions): Promise<Record<string, { summary: ReturnType<typeof summarizeByHalf>; records: AnswerRecord[] }>> {
  const { index, progress } = options;
  const embedder = options.hybrid ? await cachedQueryEmbedder(index, options.modelDir, options.vectorsCache) : null;
  const search = LocalSearchService.fromIndex(index, { embedQuery: embedder?.embedQuery ?? null });
  const engine = new ExtractiveEngine();
  const aliases = aliasMap(index.documents);
  const twins = twinLookup(index.documents, index.chunks);
  const out: Record<string, { summary: ReturnType<typeof summarizeByHalf>; records: AnswerRecord[] }> = {};
  const sampled: AnswerRecord[] = [];
  const byId = new Map<string, EvalQuestion>();
  try {
    for (const { file, questions } of options.files) {
      const halves = splitHalves(questions.map((q) => q.id));
      for (const q of questions) byId.set(q.id, q);
      const records = await runAnswersEval(questions, { search, engine, aliases, twins, halves, onProgress: progress.onProgress });
      progress.finish();
      const summary = summarizeByHalf(records);
      const lines = [formatAnswersSummary('all', summary.all)];
      if (summary.tune) lines.push(formatAnswersSummary(`tune half (seed ${SPLIT_SEED})`, summary.tune));
      if (summary.frozen) lines.push(formatAnswersSummary('frozen half', summary.frozen));
      process.stdout.write(`\n== ${file} (${options.hybrid ? 'hybrid' : 'BM25'}, extractive)\n${lines.join('\n')}\n`);
      out[file] = { summary, records };
      // In the split's (seeded) order, so the sample is the same questions before and after a change.
      const rank = new Map([...halves.keys()].map((id, i) => [id, i]));
      sampled.push(...[...records].sort((a, b) => (rank.get(a.id) ?? 0) - (rank.get(b.id) ?? 0)));
    }
  } finally {
    await embedder?.save();
    await embedder?.dispose();
  }
  if (options.sample) {
    await mkdir(dirname(options.sample.out), { recursive: true });
    await writeFile(options.sample.out, sampleMarkdown(sampled, byId, options.sample.count));
    process.stderr.write(`wrote ${options.sample.out}\n`);
  }
  return out;
}
