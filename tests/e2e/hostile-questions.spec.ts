/**
 * Hostile questions in one Chromium page (docs/reliability.md): markup and control characters, then a long run
 * of one letter after them, then 100 generated ones (tests/fuzz/hostile-questions.ts, seed 27),
 * each after `el.clear()`. Each is answered in bounded time (or refused as an empty question), runs
 * no markup, and leaves the page's main thread free.
 *
 * The issue reported `'x'.repeat(7104)` after the markup question freezing the page for over 90 s.
 * The cause, found by the question fuzzer: small talk's arithmetic pattern (widget/text/small-talk.ts)
 * backtracked exponentially on a run of letters ("x" is an operand and an operator) that failed
 * to match at its end; `'x'.repeat(7104) + ' \u00ad'` froze the page before the fix.
 */
import { expect, test, type Page } from '@playwright/test';
import { hostileQuestions, MARKUP_QUESTION } from '../fuzz/hostile-questions.ts';

async function openDemo(page: Page): Promise<void> {
  await page.goto('/');
  await expect(page.locator('harel-chat [part~="status"]')).toHaveAttribute('data-state', 'ready', { timeout: 30_000 });
  await page.evaluate(() => document.querySelector('harel-chat')!.searchReady);
}

type Outcome = { refused: boolean; text: string } | { error: string };

/**
 * Clears, asks and waits at most `ms` for the answer, checking meanwhile that the main thread
 * answers a trivial evaluate: null when no answer came in time. `longestPing` is the slowest one.
 */
async function askAfterClear(page: Page, question: string, ms: number): Promise<{ outcome: Outcome | null; elapsed: number; longestPing: number }> {
  const started = Date.now();
  let settled: Outcome | null = null;
  const asking = page
    .evaluate(async (q) => {
      const el = document.querySelector('harel-chat')!;
      await el.clear();
      try {
        const a = await el.ask(q);
        return { refused: a.refused, text: a.text };
      } catch (error) {
        return { error: String((error as { code?: string }).code ?? error) };
      }
    }, question)
    .then((o) => (settled = o));
  let longestPing = 0;
  while (!settled && Date.now() - started < ms) {
    const ping = Date.now();
    await Promise.race([page.evaluate(() => 1), new Promise((r) => setTimeout(r, ms))]);
    longestPing = Math.max(longestPing, Date.now() - ping);
    await Promise.race([asking, new Promise((r) => setTimeout(r, 100))]);
  }
  return { outcome: settled, elapsed: Date.now() - started, longestPing };
}

const pwned = (page: Page) => page.evaluate(() => (window as unknown as { __pwned?: number }).__pwned ?? 0);

/** Elements a question's markup would have made in the messages (the widget's own icons are svg without handlers). */
const markupInWidget = (page: Page) =>
  page.evaluate(
    () => document.querySelector('harel-chat')!.shadowRoot!.querySelectorAll('.msg img, .msg script, .msg iframe, .msg style, .msg [onload], .msg [onerror], .msg a[href^="javascript"]').length,
  );

test('the markup question, then 7,104 × "x" after a clear, then runs of letters ending in a soft hyphen: all answered, the page stays responsive', async ({ page }) => {
  test.setTimeout(120_000);
  await openDemo(page);
  const first = await askAfterClear(page, MARKUP_QUESTION, 20_000);
  expect(first.outcome, 'the markup question is answered within 20 s').not.toBeNull();
  expect(await markupInWidget(page)).toBe(0);
  const second = await askAfterClear(page, 'x'.repeat(7104), 20_000);
  expect(second.outcome, `'x' × 7104 is answered within 20 s (${second.elapsed} ms)`).not.toBeNull();
  expect(second.longestPing, 'the main thread answered within 2 s throughout').toBeLessThan(2000);
  // The run of letters that froze it: "x" is both an operand and an operator of the small-talk
  // arithmetic pattern, and a character neither matches at the end made it backtrack for minutes.
  for (const question of [`${'x'.repeat(7104)} \u00ad`, `${'cover'.repeat(1339)} \u00ad \u200e claim`]) {
    const frozen = await askAfterClear(page, question, 20_000);
    expect(frozen.outcome, `${JSON.stringify(question.slice(-12))} (${question.length} chars) is answered within 20 s (${frozen.elapsed} ms)`).not.toBeNull();
    expect(frozen.longestPing, 'the main thread answered within 2 s throughout').toBeLessThan(2000);
  }
  const after = await askAfterClear(page, 'How soon must I report a home insurance claim?', 20_000);
  expect(after.outcome && 'refused' in after.outcome ? after.outcome.refused : null).toBe(false);
  expect(await pwned(page)).toBe(0);
});

test('100 hostile questions (seed 27) in one page: each answered or refused as empty, no markup run, the page responsive', async ({ page }) => {
  test.setTimeout(600_000);
  await openDemo(page);
  const questions = hostileQuestions(27, 100);
  const slow: string[] = [];
  let longestPing = 0;
  let slowest = 0;
  for (const [i, q] of questions.entries()) {
    const r = await askAfterClear(page, q, 20_000);
    expect(r.outcome, `question ${i} (${q.length} chars, ${JSON.stringify(q.slice(0, 40))}) answered within 20 s`).not.toBeNull();
    const o = r.outcome!;
    if ('error' in o) expect(o.error, `question ${i}: ${JSON.stringify(q.slice(0, 40))}`).toBe(q.trim() ? 'none' : 'EMPTY_QUESTION');
    longestPing = Math.max(longestPing, r.longestPing);
    slowest = Math.max(slowest, r.elapsed);
    if (r.elapsed > 5000) slow.push(`${i}: ${r.elapsed} ms`);
    expect(await markupInWidget(page)).toBe(0);
  }
  expect(await pwned(page)).toBe(0);
  expect(longestPing).toBeLessThan(2000);
  console.log(`100 hostile questions: slowest ${slowest} ms, longest main-thread ping ${longestPing} ms${slow.length ? `; over 5 s: ${slow.join(', ')}` : ''}`);
});
