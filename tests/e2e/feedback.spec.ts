/**
 * Feedback on an answer and the way to a person, in a real Chromium against the demo: thumbs up /
 * down with a reason, the harel-chat:feedback event a site's analytics hears, the rating kept with
 * the conversation across a reload, changed and withdrawn; "talk to a representative" after a
 * refusal, after a rating down and on demand, with the harel-chat:escalate event's transcript, the
 * built-in contact panel (keyboard and focus), and a page that cancels the event to open its own.
 */
import { expect, test, type Page } from '@playwright/test';
import { plainAnswerText } from '../../widget/answer/document-text.ts';
import type { Answer, TurnFeedback } from '../../widget/answer/types.ts';
import type { HarelChatEscalateDetail } from '../../widget/ui/escalate.ts';
import type { HarelChatFeedbackDetail } from '../../widget/ui/feedback.ts';
import { readStoredConversation } from '../support/stored-conversation.ts';

type Recorded = { type: string; detail: unknown };

async function openDemo(page: Page, query = ''): Promise<void> {
  await page.goto(`/${query}`);
  await expect(page.locator('harel-chat [part~="status"]')).toHaveAttribute('data-state', 'ready', { timeout: 30_000 });
}

function ask(page: Page, question: string): Promise<Answer> {
  return page.evaluate((q) => document.querySelector('harel-chat')!.ask(q), question);
}

function buildId(page: Page): Promise<string> {
  return page.evaluate(async () => (await document.querySelector('harel-chat')!.ready).buildId);
}

/** Records every feedback and escalate event the page hears (on window: they bubble out of the shadow root). */
async function recordEvents(page: Page): Promise<void> {
  await page.addInitScript(() => {
    const w = window as unknown as { __events: { type: string; detail: unknown }[] };
    w.__events = [];
    for (const type of ['harel-chat:feedback', 'harel-chat:escalate']) {
      addEventListener(type, (e) => w.__events.push({ type, detail: (e as CustomEvent).detail }));
    }
  });
}

function events(page: Page, type: string): Promise<Recorded['detail'][]> {
  return page.evaluate((t) => (window as unknown as { __events: Recorded[] }).__events.filter((e) => e.type === t).map((e) => e.detail), type);
}

/** The ratings stored with the conversation in IndexedDB, one per turn (null when none). */
async function storedFeedback(page: Page): Promise<(TurnFeedback | null)[]> {
  const stored = await readStoredConversation<{ feedback?: TurnFeedback }>(page);
  return (stored?.turns ?? []).map((t) => t.feedback ?? null);
}

const reply = (page: Page) => page.locator('harel-chat article.msg.assistant').last();

test.beforeEach(async ({ context }) => {
  await context.clearCookies();
});

test('rating an answer: up, then down with a reason, kept across a reload, changed and withdrawn', async ({ page }) => {
  await recordEvents(page);
  await openDemo(page, '?lang=en');
  const question = 'How soon must I report a home insurance claim?';
  const answer = await ask(page, question);
  const build = await buildId(page);
  const up = reply(page).locator('[part~="feedback-up"]');
  const down = reply(page).locator('[part~="feedback-down"]');
  await expect(up).toHaveAttribute('aria-label', 'This answer helped');
  await expect(down).toHaveAttribute('aria-label', 'This answer did not help');
  await expect(up).toHaveAttribute('aria-pressed', 'false');
  await expect(reply(page).locator('[part~="feedback-reasons"]')).toHaveCount(0);

  await up.click();
  await expect(up).toHaveAttribute('aria-pressed', 'true');
  const base = { question, answer: plainAnswerText(answer.text), citations: answer.citations, buildId: build };
  expect(await events(page, 'harel-chat:feedback')).toEqual([{ ...base, rating: 'up', reason: null }]);
  const detail = (await events(page, 'harel-chat:feedback'))[0] as HarelChatFeedbackDetail;
  // What a reader sees: no isolate marks or word joiners around the quoted document text.
  expect(detail.answer).not.toMatch(/[\u2060\u2066-\u2069]/);
  expect(detail.citations.length).toBeGreaterThan(0);

  await down.click();
  await expect(down).toHaveAttribute('aria-pressed', 'true');
  await expect(up).toHaveAttribute('aria-pressed', 'false');
  const reasons = reply(page).locator('[part~="feedback-reason"]');
  await expect(reasons).toHaveText(['Wrong', 'Not relevant', 'Missing information', 'Unclear']);
  await reasons.filter({ hasText: 'Missing information' }).click();
  await expect(reasons.filter({ hasText: 'Missing information' })).toHaveAttribute('aria-pressed', 'true');
  expect(await events(page, 'harel-chat:feedback')).toEqual([
    { ...base, rating: 'up', reason: null },
    { ...base, rating: 'down', reason: null },
    { ...base, rating: 'down', reason: 'missing' },
  ]);
  // Kept with the conversation's answer turn.
  await expect.poll(() => storedFeedback(page).then((f) => f.map((x) => x && [x.rating, x.reason]))).toEqual([null, ['down', 'missing']]);

  await page.reload();
  await expect(page.locator('harel-chat [part~="status"]')).toHaveAttribute('data-state', 'ready', { timeout: 30_000 });
  await expect(down).toHaveAttribute('aria-pressed', 'true');
  await expect(reasons.filter({ hasText: 'Missing information' })).toHaveAttribute('aria-pressed', 'true');

  // Changed after the reload: the event carries the same question, answer and build.
  await up.click();
  await expect(up).toHaveAttribute('aria-pressed', 'true');
  await expect(reasons).toHaveCount(0);
  expect(await events(page, 'harel-chat:feedback')).toEqual([{ ...base, rating: 'up', reason: null }]);
  // Withdrawn: pressing the pressed thumb again; no event (nothing to count).
  await up.click();
  await expect(up).toHaveAttribute('aria-pressed', 'false');
  await expect(down).toHaveAttribute('aria-pressed', 'false');
  expect(await events(page, 'harel-chat:feedback')).toHaveLength(1);
  await expect.poll(() => storedFeedback(page)).toEqual([null, null]);
  await page.reload();
  await expect(page.locator('harel-chat [part~="status"]')).toHaveAttribute('data-state', 'ready', { timeout: 30_000 });
  await expect(up).toHaveAttribute('aria-pressed', 'false');
  await expect(down).toHaveAttribute('aria-pressed', 'false');
});

test("a refusal offers a representative: the event has the transcript, the panel the site's channels, Esc closes it and focus returns", async ({ page }) => {
  await recordEvents(page);
  await openDemo(page, '?lang=en');
  const question = 'Is my horse covered when it kicks a neighbour?';
  const answer = await ask(page, question);
  expect(answer.refused).toBe(true);
  const offer = reply(page).locator('[part~="escalate-action"]');
  await expect(offer).toHaveAttribute('data-reason', 'refused');
  await expect(offer).toHaveText('Talk to a representative');
  await offer.focus();
  await page.keyboard.press('Enter');

  const [detail] = (await events(page, 'harel-chat:escalate')) as HarelChatEscalateDetail[];
  expect(detail).toEqual({
    reason: 'refused',
    buildId: await buildId(page),
    transcript: [
      { role: 'user', text: question },
      { role: 'assistant', text: plainAnswerText(answer.text), citations: answer.citations },
    ],
  });
  const panel = page.locator('harel-chat [part~="contact-panel"]');
  await expect(panel).toBeVisible();
  await expect(panel).toHaveAttribute('data-reason', 'refused');
  // demo/main.ts sets Demo Insurance's (made-up) channels.
  await expect(panel).toContainText('Demo Insurance');
  await expect(panel.locator('li[data-kind="phone"] a')).toHaveAttribute('href', 'tel:*1234');
  await expect(panel.locator('li[data-kind="website"] a')).toHaveAttribute('href', 'https://demo-insurance.example/');
  // Focus moved to the panel's heading, and Esc there closes it and returns focus to the offer.
  expect(await page.evaluate(() => document.querySelector('harel-chat')!.shadowRoot!.activeElement?.id)).toBe('contact-title');
  await page.keyboard.press('Escape');
  await expect(panel).toHaveCount(0);
  expect(await page.evaluate(() => document.querySelector('harel-chat')!.shadowRoot!.activeElement?.getAttribute('data-action'))).toBe('escalate');
});

test('a rating down offers a representative, in the interface language', async ({ page }) => {
  await recordEvents(page);
  await openDemo(page);
  const question = 'לכמה ימים אקבל רכב חלופי אחרי תאונה?';
  const answer = await ask(page, question);
  expect(answer.refused).toBe(false);
  const offer = reply(page).locator('[part~="escalate-action"]');
  await expect(offer).toHaveCount(0);
  const down = reply(page).locator('[part~="feedback-down"]');
  await expect(down).toHaveAttribute('aria-label', 'התשובה לא עזרה');
  await down.click();
  await expect(reply(page).locator('[part~="feedback-reason"]')).toHaveText(['שגויה', 'לא רלוונטית', 'חסר מידע', 'לא ברורה']);
  await reply(page).locator('[part~="feedback-reason"][data-reason="wrong"]').click();
  await expect(offer).toHaveAttribute('data-reason', 'rated-down');
  await expect(offer).toHaveText('שיחה עם נציג');
  await offer.click();

  const [detail] = (await events(page, 'harel-chat:escalate')) as HarelChatEscalateDetail[];
  expect(detail.reason).toBe('rated-down');
  expect(detail.transcript).toEqual([
    { role: 'user', text: question },
    { role: 'assistant', text: plainAnswerText(answer.text), citations: answer.citations },
  ]);
  const panel = page.locator('harel-chat [part~="contact-panel"]');
  await expect(panel.locator('h3')).toHaveText('פנייה לנציג');
  await expect(panel).toContainText('דמו ביטוח');
  await panel.locator('[part~="contact-close"]').click();
  await expect(panel).toHaveCount(0);
  await expect(offer).toBeFocused();
  // Withdrawing the rating withdraws the offer.
  await down.click();
  await expect(offer).toHaveCount(0);
});

test('on demand: the always-available control fires the event with the conversation so far and opens the panel', async ({ page }) => {
  await recordEvents(page);
  await openDemo(page, '?lang=en');
  const button = page.locator('harel-chat [part~="escalate-button"]');
  await expect(button).toHaveAttribute('aria-expanded', 'false');
  await button.focus();
  await page.keyboard.press('Enter');
  const panel = page.locator('harel-chat [part~="contact-panel"]');
  await expect(panel).toBeVisible();
  await expect(button).toHaveAttribute('aria-expanded', 'true');
  const build = await buildId(page);
  expect(await events(page, 'harel-chat:escalate')).toEqual([{ reason: 'asked', buildId: build, transcript: [] }]);
  await panel.locator('[part~="contact-close"]').click();
  await expect(panel).toHaveCount(0);
  await expect(button).toBeFocused();

  const question = 'How soon must I report a home insurance claim?';
  const answer = await ask(page, question);
  await button.click();
  await expect(panel).toBeVisible();
  expect((await events(page, 'harel-chat:escalate'))[1]).toEqual({
    reason: 'asked',
    buildId: build,
    transcript: [
      { role: 'user', text: question },
      { role: 'assistant', text: plainAnswerText(answer.text), citations: answer.citations },
    ],
  });
  // The same control closes it again.
  await button.click();
  await expect(panel).toHaveCount(0);
  await expect(button).toHaveAttribute('aria-expanded', 'false');
});

test('a page that cancels harel-chat:escalate opens its own form instead of the built-in panel', async ({ page }) => {
  await page.addInitScript(() => {
    addEventListener('harel-chat:escalate', (e) => {
      e.preventDefault();
      const w = window as unknown as { __ownForm?: string[] };
      (w.__ownForm ??= []).push((e as CustomEvent<HarelChatEscalateDetail>).detail.reason);
    });
  });
  await openDemo(page, '?lang=en');
  await ask(page, 'Is my horse covered when it kicks a neighbour?');
  await reply(page).locator('[part~="escalate-action"]').click();
  await page.locator('harel-chat [part~="escalate-button"]').click();
  expect(await page.evaluate(() => (window as unknown as { __ownForm?: string[] }).__ownForm)).toEqual(['refused', 'asked']);
  await expect(page.locator('harel-chat [part~="contact-panel"]')).toHaveCount(0);
  await expect(page.locator('harel-chat [part~="escalate-button"]')).toHaveAttribute('aria-expanded', 'false');
});
