/**
 * `npx tsx builder/bench/gguf-loop-bench.ts --index <dir> --questions <file> [--limit n] [--every n]
 * [--from n] [--out file.json] [--port n] [--engines gguf,extractive] [--judge]`: the loop with the real GGUF
 * model (Gemma 3 270M from `models fetch`), measured in Chromium exactly as a customer's browser
 * runs it — the demo page with `mode=llm llm-engine=gguf`, `el.ask()` per question in a fresh
 * conversation — against the extractive engine on the same questions. Per question it records the
 * model's own text and the sources it was given (from the engine's log), time to first token,
 * tokens/s, whether the answer passed the ground check, whether every `[n]` was a given source,
 * and whether a gold page is cited. `--judge` also asks the model the grade step's question
 * (is each retrieved passage relevant?) to measure it as an answerability signal.
 */
import { writeFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { parseArgs } from 'node:util';
import { chromium, type Page } from '@playwright/test';
import { createServer } from 'vite';
import type { Answer } from '../../widget/answer/types.ts';
import type { GenerationStats } from '../../widget/engines/gguf/gguf-engine.ts';
import { CHROMIUM_ARGS, findChromium } from '../browser/chromium.ts';
import { citesGold } from '../eval/browser/answer-metrics.ts';
import { loadQuestions, type EvalQuestion } from '../eval/questions.ts';
import { aliasMap } from '../eval/run-eval.ts';
import { withNodeEnv } from '../node-env.ts';
import { readIndexFolder } from '../read-index-folder.ts';

const { values } = parseArgs({
  args: process.argv.slice(2),
  options: {
    index: { type: 'string' },
    questions: { type: 'string' },
    limit: { type: 'string' },
    every: { type: 'string' },
    from: { type: 'string' },
    out: { type: 'string' },
    port: { type: 'string' },
    engines: { type: 'string' },
    judge: { type: 'boolean' },
  },
});
if (!values.index || !values.questions) {
  process.stderr.write('usage: npx tsx builder/bench/gguf-loop-bench.ts --index <dir> --questions <file> [--limit n] [--every n] [--out f.json] [--engines gguf,extractive] [--judge]\n');
  process.exit(2);
}

export interface BenchRecord {
  engine: 'gguf' | 'extractive';
  id: string;
  question: string;
  answerable: boolean;
  lang: string;
  questionType: string | null;
  refused: boolean;
  refusal: Answer['refusal'];
  confidence: Answer['confidence'];
  text: string;
  citesGold: boolean;
  totalMs: number;
  /** The model's generations for this question (two when the loop retried), with their timings. */
  generations: GenerationStats[];
  /** Every [n] the model wrote was a source it was given, over all its generations. */
  citationsValid: boolean | null;
  /** The model's verdicts on the retrieved passages (--judge): did it call any relevant? */
  judgedAnyRelevant: boolean | null;
  error: string | null;
}

const every = Number(values.every ?? 1);
let questions = (await loadQuestions(values.questions)).filter((_, i) => i % every === 0);
if (values.limit) questions = questions.slice(0, Number(values.limit));
// --from n: resume a stopped run at its n-th question (0-based) of the same selection.
if (values.from) questions = questions.slice(Number(values.from));
const engines = (values.engines ?? 'gguf,extractive').split(',') as ('gguf' | 'extractive')[];
const index = await readIndexFolder(resolve(values.index));
const aliases = aliasMap(index.documents);

function save(list: BenchRecord[]): void {
  if (!values.out) return;
  writeFileSync(values.out, `${JSON.stringify({ meta: { index: values.index, questions: values.questions, every, limit: values.limit ?? null }, records: list }, null, 1)}\n`);
}

const records = await withNodeEnv('development', async () => {
  process.env.HAREL_INDEX_DIR = resolve(values.index!);
  process.env.HAREL_NO_HMR = '1';
  const port = Number(values.port ?? 4291);
  const server = await createServer({ configFile: resolve('vite.config.ts'), logLevel: 'error', server: { port, strictPort: true } });
  await server.listen();
  const browser = await chromium.launch({ executablePath: findChromium(), args: CHROMIUM_ARGS });
  const out: BenchRecord[] = [];
  try {
    for (const engine of engines) {
      const page = await browser.newPage();
      page.setDefaultTimeout(0);
      // gguf-answers=all: the model answers every question here, so the gate can be decided from it.
      const query = engine === 'gguf' ? '?mode=llm&llm-engine=gguf&gguf-answers=all&model-base=/models/' : '?mode=extractive';
      const loadStarted = Date.now();
      page.on('console', (m) => {
        if (m.type() === 'error' || m.type() === 'warning') process.stderr.write(`[page ${m.type()}] ${m.text().slice(0, 300)}\n`);
      });
      await page.goto(`http://localhost:${port}/${query}`);
      await page.evaluate(() => document.querySelector('harel-chat')!.searchReady);
      if (engine === 'gguf') {
        // The model's state every 10 s while it downloads and starts (the widget's own progress).
        const timer = setInterval(() => {
          page
            .evaluate(() => JSON.stringify((document.querySelector('harel-chat') as unknown as { session: { model: unknown } }).session.model))
            .then(
              (state) => process.stderr.write(`model: ${state}\n`),
              () => undefined,
            );
        }, 10_000);
        await page
          .locator('harel-chat [part~="mode-badge"][data-mode="llm"]')
          .waitFor({ state: 'attached', timeout: 900_000 })
          .finally(() => clearInterval(timer));
      }
      process.stderr.write(`${engine}: ready in ${Date.now() - loadStarted} ms\n`);
      for (const q of questions) {
        const record = await ask(page, engine, q);
        out.push(record);
        // Written after every question: a run stopped early keeps what it measured.
        save(out);
        const g = record.generations.at(-1);
        process.stderr.write(
          `${engine} ${out.length} ${q.id} ${record.error ?? (record.refused ? `refused:${record.refusal}` : 'answered')} gold=${record.citesGold} ` +
            `${g ? `ttft=${Math.round(g.firstTokenMs ?? -1)}ms tok/s=${g.tokensPerSecond?.toFixed(1)} prompt=${g.promptTokens}` : ''} total=${Math.round(record.totalMs)}ms\n`,
        );
      }
      await page.close();
    }
  } finally {
    await browser.close();
    await server.close();
  }
  return out;
});

async function ask(page: Page, engine: 'gguf' | 'extractive', q: EvalQuestion): Promise<BenchRecord> {
  const started = Date.now();
  const result = await page.evaluate(
    // biome-ignore lint/correctness/noUnusedFunctionParameters: --judge is passed in but not wired yet (the model's own grade was not measured: docs/how-it-answers.md).
    async ({ question, judge }) => {
      type Log = { log?: GenerationStats[]; model?: { log: GenerationStats[] } };
      const el = document.querySelector('harel-chat')!;
      // The session and its engine are the widget's internals: read here, for measurement only.
      const session = (el as unknown as { session: { engine: Log; options: { search: { search(r: unknown): Promise<{ passages: unknown[] }> } } } }).session;
      // The GGUF engine sits inside the gate (answer-gate.ts); the extractive engine keeps no log.
      const engineLog = session.engine.model?.log ?? session.engine.log;
      const before = engineLog ? engineLog.length : 0;
      await el.clear();
      try {
        const answer = (await el.ask(question)) as Answer;
        const generations = engineLog ? engineLog.slice(before) : [];
        return { answer, generations, error: null };
      } catch (error) {
        return { answer: null, generations: [], error: (error as { code?: string }).code ?? String(error) };
      }
    },
    { question: q.question, judge: values.judge ?? false },
  );
  const answer = result.answer;
  const cited = result.generations.flatMap((g) => [...g.text.matchAll(/\[(\d+)\]/g)].map((m) => ({ n: Number(m[1]), given: g.sources })));
  return {
    engine,
    id: q.id,
    question: q.question,
    answerable: q.answerable,
    lang: answer?.lang ?? (/[\u0590-\u05FF]/.test(q.question) ? 'he' : 'en'),
    questionType: answer?.evidence?.questionType ?? null,
    refused: answer?.refused ?? true,
    refusal: answer?.refusal ?? null,
    confidence: answer?.confidence ?? 'low',
    text: answer?.text ?? '',
    citesGold: answer ? citesGold(answer, q.facts, aliases) : false,
    totalMs: Date.now() - started,
    generations: result.generations,
    citationsValid: engine === 'gguf' && result.generations.length ? cited.every((c) => c.given.includes(c.n)) : null,
    judgedAnyRelevant: null,
    error: result.error,
  };
}

save(records);
process.stderr.write(`${records.length} records${values.out ? ` → ${values.out}` : ''}\n`);
