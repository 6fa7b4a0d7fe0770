/**
 * Asks the real widget every question in a real Chromium: serves the index with the demo's Vite
 * config, opens the demo page, and calls `el.ask()` one question after another, each in a fresh
 * conversation. What it records is exactly what a customer's browser produced.
 */
import { withNodeEnv } from '../../node-env.ts';
import { resolve } from 'node:path';
import { chromium } from '@playwright/test';
import { createServer } from 'vite';
import type { IndexInfo } from '../../../widget/search/search-service.ts';
import { CHROMIUM_ARGS, findChromium } from '../../browser/chromium.ts';
import type { EvalQuestion } from '../questions.ts';
import type { AnswerRecord } from './answer-metrics.ts';
import { askInFreshConversation } from './ask-fresh.ts';

export interface BrowserEvalOptions {
  indexDir: string;
  questions: readonly EvalQuestion[];
  port?: number;
  mode?: 'extractive' | 'llm';
  onProgress?: (done: number, total: number, record: AnswerRecord) => void;
}

export interface BrowserEvalRun {
  records: AnswerRecord[];
  index: IndexInfo;
  /** Milliseconds from page load to the index being ready: first visit (download) and second (IndexedDB). */
  indexLoad: { cold: number; warm: number };
}

export function runBrowserEval(options: BrowserEvalOptions): Promise<BrowserEvalRun> {
  // A dev server compiles the widget as development code whatever a build before it left behind.
  return withNodeEnv('development', () => runOnDevServer(options));
}

async function runOnDevServer(options: BrowserEvalOptions): Promise<BrowserEvalRun> {
  process.env.HAREL_INDEX_DIR = resolve(options.indexDir);
  // An edited source file must not reload the page in the middle of a run.
  process.env.HAREL_NO_HMR = '1';
  const port = options.port ?? 4290;
  const server = await createServer({ configFile: resolve('vite.config.ts'), logLevel: 'error', server: { port, strictPort: true } });
  await server.listen();
  const browser = await chromium.launch({ executablePath: findChromium(), args: CHROMIUM_ARGS });
  try {
    const page = await browser.newPage();
    const url = `http://localhost:${port}/?mode=${options.mode ?? 'extractive'}`;
    const load = async (): Promise<{ info: IndexInfo; ms: number }> => {
      const started = Date.now();
      await page.goto(url);
      // Search settled (the query model loads after the index answers): every question is searched alike.
      const info = await page.evaluate(() => document.querySelector('harel-chat')!.searchReady);
      return { info, ms: Date.now() - started };
    };
    const cold = await load();
    const warm = await load();
    const records: AnswerRecord[] = [];
    for (const q of options.questions) {
      const result = await askInFreshConversation(page, q.question);
      const record: AnswerRecord = {
        id: q.id,
        question: q.question,
        domain: q.domain,
        difficulty: q.difficulty,
        answerable: q.answerable,
        ...result,
      };
      records.push(record);
      options.onProgress?.(records.length, options.questions.length, record);
    }
    return { records, index: warm.info, indexLoad: { cold: cold.ms, warm: warm.ms } };
  } finally {
    await browser.close();
    await server.close();
  }
}
