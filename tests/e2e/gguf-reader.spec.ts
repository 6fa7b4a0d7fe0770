/**
 * The reader (widget/engines/gguf/gguf-reader.ts) with the real GGUF in Chromium, in a page of the
 * dev server, which is cross-origin isolated as the demo is: one HeQ question and passage read,
 * the reply's structure checked, llama.cpp's own prompt count equal to the one the reader made
 * (so BOS is not doubled and the budget held), and Esc's abort honoured. The page carries the
 * headers the server sends the demo (COOP/COEP, vite.config.ts), so it is cross-origin isolated
 * and llama.cpp runs on 2 threads.
 * The merged reader, written first where models/ lacks it as `models fetch` writes it
 * (tests/models/reader.ts; the test skips with the reason where it cannot be, and fails under CI).
 */
import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { expect, test, type Page } from '@playwright/test';
import { prepareReader } from '../models/reader.ts';

const READER = 'gguf/gemma-3-270m-harel-reader.gguf';
/** The PyPI base: it writes all 24 reply tokens, so a read stopped mid-reply leaves the most behind. */
const BASE = 'gguf/gemma-3-270m-q4_k_m.gguf';
const MODULE = `/@fs${resolve('widget/engines/gguf/gguf-reader.ts')}`;
/** A HeQ v1.1 case (CC BY 4.0) of tests/fixtures/reader/prompt-cases.json, with the prompt the training code built for it. */
const HEQ = (
  JSON.parse(readFileSync('tests/fixtures/reader/prompt-cases.json', 'utf8')) as {
    cases: { id: string; question: string; passage: string; expected: { passage: string; promptTokens: number } }[];
  }
).cases.find((c) => c.id === 'heq-b226c4ed:answer')!;

test.beforeAll(async () => {
  test.setTimeout(900_000);
  const missing = await prepareReader();
  if (missing && process.env.CI) throw new Error(`the reader test cannot run under CI: ${missing}`);
  if (missing) process.stderr.write(`gguf-reader.spec.ts skipped: ${missing}\n`);
  test.skip(Boolean(missing), missing ?? '');
});

// Two cores shared with other work: a 150-token prompt and 24 tokens took 10-40 s a read here.
test.setTimeout(600_000);

/** A blank page of the dev server's origin with the headers the server sends the demo's page. */
async function openDemoOriginPage(page: Page): Promise<void> {
  await page.route('**/reader-test.html', async (route) => {
    const demo = await route.fetch({ url: new URL('/', route.request().url()).href });
    await route.fulfill({ response: demo, contentType: 'text/html', body: '<!doctype html><title>reader</title>' });
  });
  await page.goto('/reader-test.html');
}

for (const model of [READER, BASE]) {
  test(`${model}: reads a HeQ passage: a reply, a verdict, the passage read, llama.cpp counting the prompt as the reader did, on 2 threads; an abort stops it and leaves the next read as the first`, async ({
    page,
  }) => {
    await openDemoOriginPage(page);
    const result = await page.evaluate(
      async ({ module, url, call }) => {
        const { GgufReader } = (await import(/* @vite-ignore */ module)) as typeof import('../../widget/engines/gguf/gguf-reader.ts');
        const reader = await GgufReader.load({ url });
        try {
          const reply = await reader.read(call);
          const stopped = new AbortController();
          const aborted = reader.read({ ...call, signal: stopped.signal }).then(
            () => 'finished',
            (e: { code?: string }) => e.code ?? String(e),
          );
          setTimeout(() => stopped.abort(), 50);
          const abortCode = await aborted;
          const again = await reader.read(call);
          return { isolated: crossOriginIsolated, threads: reader.threads, modelId: reader.modelId, reply, abortCode, again: again.text };
        } finally {
          await reader.unload();
        }
      },
      { module: MODULE, url: new URL(`/models/${model}`, page.url()).href, call: { question: HEQ.question, passage: HEQ.passage } },
    );
    process.stderr.write(`reader (${model}): ${JSON.stringify(result)}\n`);
    expect(result.isolated).toBe(true);
    expect(result.threads).toBe(2);
    const { reply } = result;
    expect(typeof reply.text).toBe('string');
    expect(typeof reply.noAnswer).toBe('boolean');
    expect(reply.noAnswer).toBe(reply.text.startsWith('אין בקטע'));
    expect(reply.noAnswerProbability).toBeGreaterThanOrEqual(0);
    expect(reply.noAnswerProbability).toBeLessThanOrEqual(1);
    expect(reply.passageRead).toBe(HEQ.expected.passage);
    // llama.cpp's count (usage.prompt_tokens) is the training code's: one BOS, markers as control tokens.
    expect(reply.promptTokens).toBe(HEQ.expected.promptTokens);
    expect(reply.promptTokens).toBeLessThanOrEqual(160);
    expect(reply.ms).toBeGreaterThan(0);
    expect(result.abortCode).toBe('ABORTED');
    // Greedy: the same read gives the same reply, after an aborted one.
    expect(result.again).toBe(reply.text);
  });
}
