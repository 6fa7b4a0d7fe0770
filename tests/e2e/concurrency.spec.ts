/**
 * Questions asked at once, stopped and cleared, as a page (or an impatient customer) would: the
 * element's `ask()` called 20 times together answers every question, one at a time in the order
 * asked, each call with its own answer; stopping in the middle leaves every question with a reply,
 * answered or marked stopped; clearing while an answer is written leaves a conversation that stays
 * empty, here and after a reload. The rule is documented where `ask` is (widget/ui/harel-chat.ts,
 * widget/session/chat-session.ts).
 */
import { expect, test, type Page } from '@playwright/test';

async function openDemo(page: Page, query = '?lang=en'): Promise<void> {
  await page.goto(`/${query}`);
  await expect(page.locator('harel-chat [part~="status"]')).toHaveAttribute('data-state', 'ready', { timeout: 30_000 });
}

const QUESTIONS = [
  { q: 'How soon must I report a home insurance claim?', lang: 'en', word: 'report' },
  { q: 'לכמה ימים אקבל רכב חלופי אחרי תאונה?', lang: 'he', word: 'חלופי' },
  { q: 'Does the travel policy cover a cancelled flight?', lang: 'en', word: 'flight' },
  { q: 'מה ההשתתפות העצמית בתביעה על נזקי מים בביטוח הדירה?', lang: 'he', word: 'מים' },
  { q: 'Is dental treatment covered by the health policy?', lang: 'en', word: 'dental' },
];
/** 20 questions, the five above in turn, each with its number so none is the same as another. */
const TWENTY = Array.from({ length: 20 }, (_, i) => {
  const { q, lang, word } = QUESTIONS[i % QUESTIONS.length];
  return { text: `${q} (${i + 1})`, lang, word };
});

/**
 * The conversation as shown, row by row: each question followed by its reply, as
 * 'answered', 'stopped' (a stopped answer or a question stopped before its turn), or what else it is.
 */
async function exchanges(page: Page): Promise<{ question: string; reply: string }[]> {
  return page.evaluate(() => {
    const log = document.querySelector('harel-chat')!.shadowRoot!.querySelector('.log')!;
    const children = [...log.children];
    const rows: { question: string; reply: string }[] = [];
    for (let i = 0; i < children.length; i++) {
      const el = children[i];
      if (!el.classList.contains('user')) {
        rows.push({ question: '(no question)', reply: el.className });
        continue;
      }
      const next = children[i + 1];
      const reply =
        !next || next.classList.contains('user')
          ? 'none'
          : next.hasAttribute('data-refused')
            ? 'answered'
            : next.querySelector('.stopped')
              ? 'stopped'
              : `other: ${next.getAttribute('part')} ${next.getAttribute('data-pending') ?? ''}`;
      if (reply !== 'none') i++;
      rows.push({ question: (el.textContent ?? '').trim(), reply });
    }
    return rows;
  });
}

test('20 ask() calls at once: all answered, one at a time in the order asked, each with its own answer', async ({ page }) => {
  test.setTimeout(120_000);
  await openDemo(page);
  const answers = await page.evaluate(
    async (questions) => {
      const el = document.querySelector('harel-chat')!;
      const all = await Promise.all(questions.map((q) => el.ask(q)));
      return all.map((a) => ({ lang: a.lang, searched: a.searchedQuery, text: a.text, citations: a.citations.length }));
    },
    TWENTY.map((q) => q.text),
  );

  expect(answers).toHaveLength(20);
  answers.forEach((answer, i) => {
    // Its own question's answer: in that question's language, searched with that question's words.
    expect(answer.lang, TWENTY[i].text).toBe(TWENTY[i].lang);
    expect(answer.searched, TWENTY[i].text).toContain(TWENTY[i].word);
    expect(answer.text.length).toBeGreaterThan(0);
  });
  const rows = await exchanges(page);
  expect(rows.map((r) => r.question)).toEqual(TWENTY.map((q) => q.text));
  expect(rows.map((r) => r.reply)).toEqual(Array(20).fill('answered'));
  await expect(page.locator('harel-chat [part~="pending-reply"]')).toHaveCount(0);
  await expect(page.locator('harel-chat [part~="stop-button"]')).toHaveCount(0);
});

test('stop() in the middle of 20 questions: every question ends answered or marked stopped, and the next question is answered', async ({ page }) => {
  test.setTimeout(120_000);
  await openDemo(page);
  const outcome = await page.evaluate(
    async (questions) => {
      const el = document.querySelector('harel-chat')!;
      const settled = Promise.allSettled(questions.map((q) => el.ask(q)));
      // Stop once two answers are in the conversation (the third is being answered, the rest wait).
      const log = el.shadowRoot!.querySelector('.log')!;
      while (log.querySelectorAll('article[data-refused]').length < 2) await new Promise(requestAnimationFrame);
      el.stop();
      return (await settled).map((r) => (r.status === 'fulfilled' ? 'answered' : (r.reason as { code: string }).code));
    },
    TWENTY.map((q) => q.text),
  );

  const answered = outcome.filter((o) => o === 'answered').length;
  expect(answered).toBeGreaterThanOrEqual(2);
  expect(answered).toBeLessThan(20);
  // The documented outcome: the calls answered before the stop resolve, every other one rejects ABORTED.
  expect(outcome).toEqual([...Array(answered).fill('answered'), ...Array(20 - answered).fill('ABORTED')]);
  const rows = await exchanges(page);
  expect(rows.map((r) => r.question)).toEqual(TWENTY.map((q) => q.text));
  expect(rows.map((r) => r.reply)).toEqual([...Array(answered).fill('answered'), ...Array(20 - answered).fill('stopped')]);
  await expect(page.locator('harel-chat [part~="stop-button"]')).toHaveCount(0);

  const next = await page.evaluate(() => document.querySelector('harel-chat')!.ask('How soon must I report a home insurance claim?'));
  expect(next.citations.length).toBeGreaterThan(0);
  const after = await exchanges(page);
  expect(after.at(-1)).toEqual({ question: 'How soon must I report a home insurance claim?', reply: 'answered' });
  // The stopped questions stay stopped: none of them was answered after the stop.
  expect(after.filter((r) => r.reply === 'answered')).toHaveLength(answered + 1);
});

test('clear() while an answer is written leaves an empty conversation that stays empty, also after a reload', async ({ page }) => {
  await openDemo(page);
  await page.evaluate(() => document.querySelector('harel-chat')!.ask('Does the travel policy cover a cancelled flight?'));
  const result = await page.evaluate(async () => {
    const el = document.querySelector('harel-chat')!;
    const root = el.shadowRoot!;
    // Clear as soon as streamed text of the second answer is on screen (the answer is still being written).
    let clearedWhileStreaming = false;
    let clearing: Promise<void> | null = null;
    const observer = new MutationObserver(() => {
      if (clearing || !root.querySelector('.log article[aria-busy="true"] .body')) return;
      clearedWhileStreaming = true;
      clearing = el.clear();
    });
    observer.observe(root, { subtree: true, childList: true, characterData: true });
    const asked = el.ask('How soon must I report a home insurance claim?').then(
      () => 'answered',
      (e: { code: string }) => e.code,
    );
    const outcome = await asked;
    observer.disconnect();
    await clearing;
    // Let anything still in flight settle and render.
    for (let i = 0; i < 5; i++) await new Promise(requestAnimationFrame);
    return { outcome, clearedWhileStreaming, messages: root.querySelectorAll('.log .msg').length };
  });
  expect(result.clearedWhileStreaming).toBe(true);
  expect(result.outcome).toBe('ABORTED');
  expect(result.messages).toBe(0);
  await expect(page.locator('harel-chat .msg')).toHaveCount(0);
  await expect(page.locator('harel-chat [part~="starters"]')).toBeVisible();
  await expect(page.locator('harel-chat [part~="stop-button"]')).toHaveCount(0);

  await page.reload();
  await expect(page.locator('harel-chat [part~="status"]')).toHaveAttribute('data-state', 'ready', { timeout: 30_000 });
  await expect(page.locator('harel-chat .msg')).toHaveCount(0);
});
