/**
 * `harel-builder eval … --reader <gguf>`: the reader as the loop runs it, measured. Each question is
 * asked through the demo page in Chromium (the widget's own loop, search and GGUF runtime; the
 * page cross-origin isolated as the demo serves it, so llama.cpp runs on every core), with
 * `reader-model` set, a fresh conversation each; what the answer's `reader` says is scored:
 *
 * - f1 / exact: answerable questions, the span against the ground truth (SQuAD's token F1 and exact
 *   match over `answerTokens`, the same words training/reader/evaluate.py counts: numbers and
 *   words, quote marks and punctuation gone, lower case, a leading ו and then one of ה/ב/ל/מ/ש/כ
 *   stripped where two letters remain); no span scores 0;
 * - noAnswer.recall: unanswerable questions the reader read and called "not in the passage";
 *   noAnswer.falseRate: answerable ones it read and called so;
 * - ms: per reader call (an answer's reading time over its calls), p50 and p95;
 * - the loop's refusals as they stand and as they would with reader-refuses (the reader's
 *   "not here" refuses an answer below "high"), and how often "high" cites a gold page.
 */
import { basename, delimiter, dirname, resolve } from 'node:path';
import type { Answer } from '../../widget/answer/types.ts';
import { CHROMIUM_ARGS, findChromium } from '../browser/chromium.ts';
import { withNodeEnv } from '../node-env.ts';
import { citesGold } from './browser/answer-metrics.ts';
import { overlapF1 } from './browser/answer-overlap.ts';
import { askInFreshConversation } from './browser/ask-fresh.ts';
import type { EvalQuestion } from './questions.ts';

export interface ReaderEvalRecord {
  id: string;
  answerable: boolean;
  verdict: 'span' | 'no-answer' | 'skipped' | 'error';
  span: string | null;
  /** Why the reader did not read, or the error. */
  reason: string | null;
  calls: number;
  ms: number;
  /** The reader's p(no-answer) at its reply's first token (answer.reader.noAnswerProbability): an answerability input. */
  noAnswerProbability: number | null;
  /** The loop's fitted probabilities before reading (answer.evidence): what a refit with the reader's word starts from. */
  answerableProbability: number | null;
  correctProbability: number | null;
  /** Answerable questions: the span's F1 / exact match against the best ground truth (0 without a span). */
  f1: number | null;
  exact: number | null;
  refused: boolean;
  confidence: Answer['confidence'];
  citesGold: boolean;
}

export interface ReaderEvalSummary {
  questions: number;
  /** Questions the reader read (at least one call). */
  read: number;
  spans: number;
  f1: number;
  exact: number;
  noAnswer: { recall: number | null; falseRate: number | null; unanswerableRead: number; answerableRead: number };
  msP50: number | null;
  msP95: number | null;
  loop: {
    unanswerable: number;
    refusedUnanswerable: number;
    refusedUnanswerableWithReader: number;
    answerable: number;
    falseRefusals: number;
    falseRefusalsWithReader: number;
    high: number;
    highCitesGold: number;
  };
}

function percentile(values: readonly number[], p: number): number | null {
  if (!values.length) return null;
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.floor(p * sorted.length))]!;
}

const WORD = /[0-9]+(?:[.,/][0-9]+)*%?|[A-Za-z\u0590-\u05FF"'׳״]+/g;

/** The words an answer is scored on (hebrew_text.answer_tokens in training/reader). */
export function answerTokens(text: string): string[] {
  const folded = text.normalize('NFC').replaceAll('״', '"').replaceAll('׳', "'");
  return (folded.match(WORD) ?? [])
    .map((w) => w.replace(/^["']+|["']+$/g, '').toLowerCase())
    .filter(Boolean)
    .map((w) => {
      if (!/[\u05D0-\u05EA]/.test(w[0]!)) return w;
      let word = w;
      if (word.startsWith('ו') && word.length - 1 >= 2) word = word.slice(1);
      if ('הבלמשכ'.includes(word[0]!) && word.length - 1 >= 2) word = word.slice(1);
      return word;
    });
}

/** Best F1 and exact match of a span against the ground truths. */
export function spanScores(span: string | null, answers: readonly string[]): { f1: number; exact: number } {
  if (!span || !answers.length) return { f1: 0, exact: 0 };
  const p = answerTokens(span);
  const truths = answers.map(answerTokens);
  return {
    f1: Math.max(...truths.map((t) => overlapF1(p, t))),
    exact: truths.some((t) => t.join(' ') === p.join(' ')) ? 1 : 0,
  };
}

export function summarizeReader(records: readonly ReaderEvalRecord[]): ReaderEvalSummary {
  const read = records.filter((r) => r.calls > 0);
  const answerable = records.filter((r) => r.answerable);
  const unanswerable = records.filter((r) => !r.answerable);
  const answerableRead = read.filter((r) => r.answerable);
  const unanswerableRead = read.filter((r) => !r.answerable);
  const mean = (xs: number[]) => (xs.length ? xs.reduce((a, b) => a + b, 0) / xs.length : 0);
  const refusedWithReader = (r: ReaderEvalRecord) => r.refused || (r.verdict === 'no-answer' && r.confidence !== 'high');
  const high = records.filter((r) => !r.refused && r.confidence === 'high');
  return {
    questions: records.length,
    read: read.length,
    spans: records.filter((r) => r.verdict === 'span').length,
    f1: mean(answerable.map((r) => r.f1 ?? 0)),
    exact: mean(answerable.map((r) => r.exact ?? 0)),
    noAnswer: {
      recall: unanswerableRead.length ? unanswerableRead.filter((r) => r.verdict === 'no-answer').length / unanswerableRead.length : null,
      falseRate: answerableRead.length ? answerableRead.filter((r) => r.verdict === 'no-answer').length / answerableRead.length : null,
      unanswerableRead: unanswerableRead.length,
      answerableRead: answerableRead.length,
    },
    msP50: percentile(
      read.map((r) => r.ms / r.calls),
      0.5,
    ),
    msP95: percentile(
      read.map((r) => r.ms / r.calls),
      0.95,
    ),
    loop: {
      unanswerable: unanswerable.length,
      refusedUnanswerable: unanswerable.filter((r) => r.refused).length,
      refusedUnanswerableWithReader: unanswerable.filter(refusedWithReader).length,
      answerable: answerable.length,
      falseRefusals: answerable.filter((r) => r.refused).length,
      falseRefusalsWithReader: answerable.filter(refusedWithReader).length,
      high: high.length,
      highCitesGold: high.filter((r) => r.citesGold).length,
    },
  };
}

export function formatReaderSummary(s: ReaderEvalSummary): string {
  const pct = (x: number | null) => (x === null ? 'n/a' : `${(100 * x).toFixed(1)} %`);
  return [
    `reader: ${s.questions} questions, ${s.read} read, ${s.spans} spans`,
    `  answerable: F1 ${s.f1.toFixed(3)}, exact ${s.exact.toFixed(3)}`,
    `  no-answer: recall ${pct(s.noAnswer.recall)} (of ${s.noAnswer.unanswerableRead} unanswerable read), false rate ${pct(s.noAnswer.falseRate)} (of ${s.noAnswer.answerableRead} answerable read)`,
    `  per call: p50 ${s.msP50 === null ? 'n/a' : Math.round(s.msP50)} ms, p95 ${s.msP95 === null ? 'n/a' : Math.round(s.msP95)} ms`,
    `  loop: unanswerable refused ${s.loop.refusedUnanswerable}/${s.loop.unanswerable} (with reader-refuses ${s.loop.refusedUnanswerableWithReader}), answerable refused ${s.loop.falseRefusals}/${s.loop.answerable} (with reader-refuses ${s.loop.falseRefusalsWithReader}), "high" citing a gold page ${s.loop.highCitesGold}/${s.loop.high}`,
  ].join('\n');
}

export interface ReaderEvalOptions {
  indexDir: string;
  /** The reader's GGUF file. */
  gguf: string;
  questions: readonly EvalQuestion[];
  aliases: ReadonlyMap<string, string>;
  maxCalls: number;
  port?: number;
  onRecord?: (record: ReaderEvalRecord, done: number) => void;
  signal?: AbortSignal;
}

/** Asks each question in Chromium with the reader on; one record per question. */
export async function runReaderEval(options: ReaderEvalOptions): Promise<ReaderEvalRecord[]> {
  const [{ chromium }, { createServer }] = await Promise.all([import('@playwright/test'), import('vite')]);
  const gguf = resolve(options.gguf);
  return withNodeEnv('development', async () => {
    process.env.HAREL_INDEX_DIR = resolve(options.indexDir);
    // The reader's folder first, then the project's models (E5 for hybrid search).
    process.env.HAREL_MODEL_DIR = [dirname(gguf), resolve('models')].join(delimiter);
    process.env.HAREL_NO_HMR = '1';
    const port = options.port ?? 4293;
    const server = await createServer({ configFile: resolve('vite.config.ts'), logLevel: 'error', server: { port, strictPort: true } });
    await server.listen();
    const browser = await chromium.launch({ executablePath: findChromium(), args: CHROMIUM_ARGS });
    const records: ReaderEvalRecord[] = [];
    try {
      const page = await browser.newPage();
      page.setDefaultTimeout(0);
      page.on('console', (m) => {
        if (m.type() === 'error') process.stderr.write(`[page] ${m.text().slice(0, 300)}\n`);
      });
      const query = new URLSearchParams({ mode: 'extractive', 'model-base': '/models/', 'reader-model': basename(gguf), 'reader-calls': String(options.maxCalls) });
      await page.goto(`http://localhost:${port}/?${query}`);
      await page.evaluate(() => document.querySelector('harel-chat')!.searchReady);
      await page.locator('harel-chat [part~="reader-info"]').waitFor({ state: 'attached' });
      const state = await page.waitForFunction(
        () => {
          const status = document.querySelector('harel-chat')?.shadowRoot?.querySelector('[part~="reader-info"]')?.getAttribute('data-state');
          return status === 'ready' || status === 'error' ? status : null;
        },
        undefined,
        { timeout: 600_000 },
      );
      if ((await state.jsonValue()) !== 'ready') {
        const text = await page.locator('harel-chat [part~="reader-info"]').textContent();
        throw new Error(`the reader did not load in Chromium: ${text}`);
      }
      for (const q of options.questions) {
        if (options.signal?.aborted) break;
        const result = await askInFreshConversation(page, q.question);
        const answer = result.answer;
        const reader = answer?.reader;
        const scores = q.answerable ? spanScores(reader?.verdict === 'span' ? reader.span : null, q.answers) : null;
        const record: ReaderEvalRecord = {
          id: q.id,
          answerable: q.answerable,
          verdict: reader?.verdict ?? 'error',
          span: reader?.span ?? null,
          reason: reader?.reason ?? result.error,
          calls: reader?.calls ?? 0,
          ms: reader?.ms ?? 0,
          noAnswerProbability: reader?.noAnswerProbability ?? null,
          answerableProbability: answer?.evidence?.answerable ?? null,
          correctProbability: answer?.evidence?.correct ?? null,
          f1: scores?.f1 ?? null,
          exact: scores?.exact ?? null,
          refused: answer?.refused ?? true,
          confidence: answer?.confidence ?? 'low',
          citesGold: answer ? citesGold(answer, q.facts, options.aliases) : false,
        };
        records.push(record);
        options.onRecord?.(record, records.length);
      }
    } finally {
      await browser.close();
      await server.close();
    }
    return records;
  });
}
