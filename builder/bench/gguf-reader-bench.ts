/**
 * The reader's call time in Chromium (issue 34: p50 ≤ 3 s on 2 cores): GgufReader
 * (widget/engines/gguf/gguf-reader.ts) loaded in a cross-origin isolated page of the dev server,
 * as the demo serves it, with llama.cpp on 1 thread and on 2, over ten ~150-token prompts (the
 * reference prompts of tests/fixtures/reader/prompt-cases.json, and three more windows of its long
 * passage: the same question, so the later ones share the prompt's prefix as the loop's reads do).
 * Each model in models/gguf that is there: the merged reader (Q8_0) and the PyPI base (Q4_K_M).
 *
 *   npm run bench -- --reader-only          (or --reader beside the index figures)
 *   npx tsx builder/bench/gguf-reader-bench.ts [--threads 1,2] [--json f.json]
 *
 * The load average is recorded beside each run: the machine may be shared.
 */
import { existsSync, readFileSync } from 'node:fs';
import { loadavg } from 'node:os';
import { resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { chromium } from '@playwright/test';
import { createServer } from 'vite';
import { CHROMIUM_ARGS, findChromium } from '../browser/chromium.ts';
import { withNodeEnv } from '../node-env.ts';
import type { ReaderTimings } from '../../widget/engines/gguf/gguf-reader.ts';
import { percentile } from './browser-bench.ts';

/** The models measured, where models/ holds them: the merged reader first. */
export const READER_MODELS = ['gguf/gemma-3-270m-harel-reader.gguf', 'gguf/gemma-3-270m-q4_k_m.gguf'];
const FIXTURE = 'tests/fixtures/reader/prompt-cases.json';
const READER_MODULE = resolve('widget/engines/gguf/gguf-reader.ts');

export interface ReaderRun {
  model: string;
  threads: number;
  /** What the page reported: cross-origin isolated, and the threads llama.cpp runs on. */
  isolated: boolean;
  llamaThreads: number;
  loadMs: number;
  calls: { promptTokens: number; ms: number; noAnswer: boolean; noAnswerProbability: number | null; text: string; timings: ReaderTimings | null }[];
  p50: number;
  p95: number;
  loadavgBefore: number[];
  loadavgAfter: number[];
}

interface Call {
  question: string;
  passage: string;
}

/** Ten ~150-token reads: the fixture's long prompts, then later windows of its long passage. */
export function benchCalls(): Call[] {
  const fixture = JSON.parse(readFileSync(FIXTURE, 'utf8')) as { cases: { id: string; question: string; passage: string; expected: { promptTokens: number } }[] };
  const long = fixture.cases.filter((c) => c.expected.promptTokens >= 140);
  const calls: Call[] = long.map((c) => ({ question: c.question, passage: c.passage }));
  const source = fixture.cases.find((c) => c.id === 'own-long-passage');
  for (let skip = 10; calls.length < 10 && source; skip += 10) calls.push({ question: source.question, passage: source.passage.split(' ').slice(skip).join(' ') });
  return calls.slice(0, 10);
}

export async function measureReader(options: { threads?: number[]; models?: string[]; port?: number; log?: (line: string) => void; onRun?: (runs: ReaderRun[]) => void } = {}): Promise<ReaderRun[]> {
  const log = options.log ?? ((line: string) => process.stderr.write(`${line}\n`));
  const models = (options.models ?? READER_MODELS).filter((m) => existsSync(resolve('models', m)));
  if (!models.length) {
    log(`reader bench: no model in models/ (${READER_MODELS.join(', ')}): run npx harel-builder models fetch`);
    return [];
  }
  const calls = benchCalls();
  return withNodeEnv('development', async () => {
    process.env.HAREL_NO_HMR = '1';
    const port = options.port ?? 4295;
    const server = await createServer({ configFile: resolve('vite.config.ts'), logLevel: 'error', server: { port, strictPort: true } });
    await server.listen();
    const browser = await chromium.launch({ executablePath: findChromium(), args: CHROMIUM_ARGS });
    const runs: ReaderRun[] = [];
    try {
      for (const model of models) {
        for (const threads of options.threads ?? [1, 2]) {
          const page = await browser.newPage();
          page.setDefaultTimeout(0);
          page.on('console', (m) => {
            if (m.type() === 'error') log(`[page] ${m.text().slice(0, 300)}`);
          });
          // A blank page of the server's origin, with the headers it sends the demo's page (isolated).
          await page.route('**/reader-bench.html', async (route) => {
            const demo = await route.fetch({ url: `http://localhost:${port}/` });
            await route.fulfill({ response: demo, contentType: 'text/html', body: '<!doctype html><title>reader bench</title>' });
          });
          await page.goto(`http://localhost:${port}/reader-bench.html`);
          const loadavgBefore = loadavg();
          const result = await page.evaluate(
            async ({ module, url, threads, calls }) => {
              const { GgufReader } = (await import(/* @vite-ignore */ module)) as typeof import('../../widget/engines/gguf/gguf-reader.ts');
              const started = performance.now();
              const reader = await GgufReader.load({ url, threads });
              const loadMs = performance.now() - started;
              const replies = [];
              for (const call of calls) {
                const r = await reader.read(call);
                replies.push({ promptTokens: r.promptTokens, ms: r.ms, noAnswer: r.noAnswer, noAnswerProbability: r.noAnswerProbability, text: r.text, timings: reader.lastTimings });
              }
              await reader.unload();
              return { isolated: crossOriginIsolated, llamaThreads: reader.threads, loadMs, replies };
            },
            { module: `/@fs${READER_MODULE}`, url: `http://localhost:${port}/models/${model}`, threads, calls },
          );
          await page.close();
          const ms = result.replies.map((r) => r.ms);
          const run: ReaderRun = {
            model,
            threads,
            isolated: result.isolated,
            llamaThreads: result.llamaThreads,
            loadMs: result.loadMs,
            calls: result.replies,
            p50: percentile(ms, 50),
            p95: percentile(ms, 95),
            loadavgBefore,
            loadavgAfter: loadavg(),
          };
          runs.push(run);
          options.onRun?.(runs);
          log(
            `reader ${model} threads=${threads} (llama.cpp ${run.llamaThreads}, isolated ${run.isolated}): load ${Math.round(run.loadMs)} ms, ` +
              `call p50 ${Math.round(run.p50)} ms p95 ${Math.round(run.p95)} ms over ${ms.length} (prompts ${Math.min(...result.replies.map((r) => r.promptTokens))}–${Math.max(...result.replies.map((r) => r.promptTokens))} tokens); ` +
              `load average ${run.loadavgBefore.map((x) => x.toFixed(2)).join(' ')} → ${run.loadavgAfter.map((x) => x.toFixed(2)).join(' ')}`,
          );
        }
      }
    } finally {
      await browser.close();
      await server.close();
    }
    return runs;
  });
}

if (process.argv[1] && fileURLToPath(import.meta.url) === resolve(process.argv[1])) {
  const { parseScriptArgs } = await import('../../tools/script-args.ts');
  const { writeFileSync } = await import('node:fs');
  const { values } = parseScriptArgs('usage: npx tsx builder/bench/gguf-reader-bench.ts [--threads 1,2] [--models gguf/a.gguf,…] [--json <file>]', {
    options: { threads: { type: 'string' }, models: { type: 'string' }, json: { type: 'string' } },
  });
  const json = values.json;
  await measureReader({
    threads: values.threads?.split(',').map(Number),
    models: values.models?.split(','),
    // Written after each run: a run stopped early keeps what it measured.
    onRun: json ? (runs) => writeFileSync(json, `${JSON.stringify(runs, null, 1)}\n`) : undefined,
  });
}
