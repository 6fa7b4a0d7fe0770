/**
 * Question fuzzing in Node (docs/reliability.md): hostile questions through the whole answer loop
 * (runAnswerLoop, the extractive engine, the demo index BM25-only). Each one is answered without
 * an error, in bounded time, and cites only what it shows: every `[n]` in the engine's text names
 * a citation, and every citation is named by a marker there.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { buildIndex } from '../../builder/pipeline/build-index.ts';
import { readIndexFolder } from '../../builder/read-index-folder.ts';
import { answerSegments } from '../../widget/answer/document-text.ts';
import type { Answer, ChatTurn } from '../../widget/answer/types.ts';
import { ExtractiveEngine } from '../../widget/engines/extractive.ts';
import { runAnswerLoop } from '../../widget/loop/machine.ts';
import { LocalSearchService } from '../../widget/search/local-search-service.ts';
import { DEMO_CORPUS } from './corpus.ts';
import { hostileQuestions, MARKUP_QUESTION } from './hostile-questions.ts';

const MARKER = /\[(\s*\d{1,2}(?:\s*[,،]\s*\d{1,2})*\s*)\]/g;

/** What is wrong with `answer` as shown, or null. */
export function citationProblem(answer: Answer): string | null {
  const shown = new Set<number>();
  for (const segment of answerSegments(answer.text)) {
    if (segment.kind !== 'engine') continue;
    for (const m of segment.text.matchAll(MARKER)) for (const n of m[1].split(/[,،]/)) shown.add(Number(n.trim()));
  }
  const cited = new Set(answer.citations.map((c) => c.n));
  for (const n of shown) if (!cited.has(n)) return `marker [${n}] names no citation`;
  for (const n of cited) if (!shown.has(n)) return `citation ${n} is not shown in the answer`;
  return null;
}

export async function demoSearch(): Promise<{ search: LocalSearchService; cleanup: () => Promise<void> }> {
  const dir = await mkdtemp(join(tmpdir(), 'harel-fuzz-questions-'));
  const out = join(dir, 'index');
  await buildIndex({ inputs: [DEMO_CORPUS], outDir: out, embed: false, embedder: 'none', allowRemote: false, dtype: 'q8', maxTokens: 350, overlap: 0.15 });
  const index = await readIndexFolder(out);
  return { search: LocalSearchService.fromIndex(index), cleanup: () => rm(dir, { recursive: true, force: true }) };
}

export interface QuestionFuzzReport {
  seed: number;
  runs: number;
  refused: number;
  answered: number;
  failures: { seed: number; index: number; question: string; problem: string }[];
  p50Ms: number;
  p95Ms: number;
  maxMs: number;
  ms: number;
}

/**
 * An answer that takes longer is reported as hung: a guard against hangs (the page freeze took
 * minutes), not a speed limit; answers take milliseconds, and their p50, p95 and max are reported.
 */
export const QUESTION_HANG_MS = 30_000;

/**
 * `runs` questions from `seed` (hostileQuestions(seed, runs)), each asked twice: alone, and as a
 * follow-up to the question before it (the conversation a page keeps).
 */
export async function fuzzQuestions(options: { seed: number; runs: number; hangMs?: number; search?: LocalSearchService }): Promise<QuestionFuzzReport> {
  const started = performance.now();
  const own = options.search ? null : await demoSearch();
  const search = options.search ?? own!.search;
  const engine = new ExtractiveEngine();
  const hangMs = options.hangMs ?? QUESTION_HANG_MS;
  // The issue's sequence, and the run of letters that froze the page (seed 27's question 558 is the other).
  const questions = [MARKUP_QUESTION, 'x'.repeat(7104), `${'x'.repeat(7104)} \u00ad`, ...hostileQuestions(options.seed, options.runs)];
  const report: QuestionFuzzReport = { seed: options.seed, runs: 0, refused: 0, answered: 0, failures: [], p50Ms: 0, p95Ms: 0, maxMs: 0, ms: 0 };
  const times: number[] = [];
  let history: ChatTurn[] = [];
  try {
    for (let i = 0; i < questions.length; i++) {
      const question = questions[i];
      if (!question.trim()) continue; // The session refuses a blank question (EMPTY_QUESTION) before the loop.
      for (const past of [[], history]) {
        const t = performance.now();
        try {
          const answer = await runAnswerLoop({ question: question.trim(), history: past, lang: 'he' }, { search, engine });
          const ms = performance.now() - t;
          times.push(ms);
          const problem = citationProblem(answer) ?? (ms > hangMs ? `took ${ms.toFixed(0)} ms: hung (the guard is ${hangMs} ms)` : null);
          if (problem) report.failures.push({ seed: options.seed, index: i, question, problem });
          if (answer.refused) report.refused++;
          else report.answered++;
          if (past.length === 0)
            history = [
              { role: 'user', text: question.trim(), at: 0 },
              { role: 'assistant', text: answer.text, answer, at: 1 },
            ];
        } catch (error) {
          report.failures.push({
            seed: options.seed,
            index: i,
            question,
            problem: error instanceof Error ? `${error.name}: ${error.message}\n${error.stack?.split('\n').slice(1, 4).join('\n')}` : String(error),
          });
        }
        report.runs++;
      }
    }
  } finally {
    await own?.cleanup();
  }
  times.sort((a, b) => a - b);
  report.p50Ms = times[Math.floor(times.length / 2)] ?? 0;
  report.p95Ms = times[Math.floor(times.length * 0.95)] ?? 0;
  report.maxMs = times.at(-1) ?? 0;
  report.ms = performance.now() - started;
  return report;
}
