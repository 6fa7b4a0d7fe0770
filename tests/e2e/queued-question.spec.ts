/**
 * Ready means usable: a question typed while the index downloads is shown at once with a reply
 * that waits for the documents and counts the download in bytes, and is answered (cited) as soon
 * as search works; when the index cannot be loaded, the question stays with a reply that says so.
 * The test holds the index's files back (page.route) until it has seen the waiting state, so
 * nothing depends on how fast the machine is. Every test starts on an empty IndexedDB (a fresh
 * browser context): a first visit, which downloads.
 */
import { expect, test, type Page, type Route } from '@playwright/test';

/**
 * Lets the manifest and the first index file through, and holds the others until `release` is
 * called, then answers them with `respond` (by default: served as they are).
 */
async function holdIndexFiles(page: Page, respond: (route: Route) => Promise<void> = (route) => route.continue()): Promise<() => void> {
  let release!: () => void;
  const released = new Promise<void>((resolve) => (release = resolve));
  let passed = 0;
  await page.route('**/index/**', async (route) => {
    if (new URL(route.request().url()).pathname.endsWith('/manifest.json') || passed++ === 0) return route.continue();
    await released;
    await respond(route);
  });
  return release;
}

/** An element's text as read, without the bidi isolates that keep byte counts in order. */
async function textOf(page: Page, selector: string): Promise<string> {
  const text =
    (await page
      .locator(selector)
      .first()
      .textContent({ timeout: 1_000 })
      .catch(() => null)) ?? '';
  return text
    .replace(/[\u2066-\u2069]/g, '')
    .replace(/\s+/g, ' ')
    .trim();
}

test('a question typed while the index downloads waits with the byte count and is answered, with citations, once it loads', async ({ page }) => {
  const release = await holdIndexFiles(page);
  await page.goto('/?lang=en');
  const status = page.locator('harel-chat [part~="status"]');
  await expect(status).toHaveAttribute('data-step', 'download');

  const input = page.locator('harel-chat textarea');
  await expect(page.locator('harel-chat [part~="send-button"]')).toBeEnabled();
  await input.fill('How soon must I report a home insurance claim?');
  await page.locator('harel-chat [part~="send-button"]').click();
  await input.fill('Does the travel policy cover a cancelled flight?');
  await input.press('Enter');

  // Both questions are in the conversation at once, each with a reply that waits for the documents.
  await expect(page.locator('harel-chat .msg.user')).toHaveText(['How soon must I report a home insurance claim?', 'Does the travel policy cover a cancelled flight?']);
  const waiting = page.locator('harel-chat [part~="pending-reply"][data-pending="waiting"]');
  await expect(waiting).toHaveCount(2);
  await expect(waiting.first()).toContainText('as soon as the documents have loaded');
  const bytes = /Downloading the documents: \d[\d.,]* (bytes?|kB|MB) of \d[\d.,]* (kB|MB)/;
  await expect.poll(() => textOf(page, 'harel-chat [part~="status"]')).toMatch(bytes);
  await expect.poll(() => textOf(page, 'harel-chat [part~="pending-reply"] .progress')).toMatch(bytes);
  await expect(status.locator('progress')).toBeVisible();
  // Said once to a screen reader, in the element's own live region; the status speaks only the step.
  await expect(page.locator('harel-chat .sr-only[aria-live="polite"]:not([part~="documents-announcer"])')).toHaveText(/will be answered as soon as the documents have loaded/);
  await expect(status.locator('.amount')).toHaveAttribute('aria-hidden', 'true');
  await expect(page.locator('harel-chat [part~="stop-button"]')).toBeVisible();

  release();
  await expect(status).toHaveAttribute('data-state', 'ready', { timeout: 30_000 });
  const replies = page.locator('harel-chat article.msg.assistant[data-refused]');
  await expect(replies).toHaveCount(2, { timeout: 20_000 });
  await expect(page.locator('harel-chat [part~="pending-reply"]')).toHaveCount(0);
  // In the order asked: the first question's answer comes first, and it cites the home policy.
  await expect(replies.first()).toHaveAttribute('data-refused', 'false');
  await expect(replies.first().locator('button.cite').first()).toBeVisible();
  await expect(replies.first().locator('details.card[data-file^="apartment/"]').first()).toBeAttached();
  await expect(page.locator('harel-chat .log > *')).toHaveClass([/user/, /assistant/, /user/, /assistant/]);
  await expect(page.locator('harel-chat [part~="stop-button"]')).toHaveCount(0);

  // Saved as whole turns: the next visit shows the same conversation, read from this device.
  await page.unrouteAll({ behavior: 'ignoreErrors' });
  await page.reload();
  await expect(status).toHaveAttribute('data-state', 'ready', { timeout: 30_000 });
  await expect(status).not.toContainText('Downloading');
  // The index's size and origin are technical details (behind the details button).
  await expect(page.locator('harel-chat [part~="index-info"]')).toContainText('loaded from this device');
  await expect(page.locator('harel-chat .msg.user')).toHaveText(['How soon must I report a home insurance claim?', 'Does the travel policy cover a cancelled flight?']);
  await expect(page.locator('harel-chat article.msg.assistant[data-refused]')).toHaveCount(2);
});

test('the first visit counts the download in bytes; a warm start, from this device, shows no byte counter', async ({ page }) => {
  // Every state the status line goes through, recorded as it renders (from before the element exists).
  await page.addInitScript(() => {
    const w = window as unknown as { __status: string[] };
    w.__status = [];
    const attach = Element.prototype.attachShadow;
    Element.prototype.attachShadow = function (init) {
      const root = attach.call(this, init);
      if (this.localName === 'harel-chat') {
        new MutationObserver(() => {
          const el = root.querySelector('[part~="status"]');
          if (el) w.__status.push(`${el.getAttribute('data-state')}:${el.getAttribute('data-step') ?? ''}:${(el.textContent ?? '').replace(/\s+/g, ' ').trim()}`);
        }).observe(root, { subtree: true, childList: true, characterData: true, attributes: true });
      }
      return root;
    };
  });
  const recorded = () => page.evaluate(() => (window as unknown as { __status: string[] }).__status);
  const status = page.locator('harel-chat [part~="status"]');
  await page.goto('/?lang=en');
  await expect(status).toHaveAttribute('data-state', 'ready', { timeout: 30_000 });
  const first = await recorded();
  expect(
    first.some((s) => /^loading:download:Downloading the documents: .+ of /.test(s)),
    first.join('\n'),
  ).toBe(true);
  expect(
    first.some((s) => s.startsWith('loading:load:Preparing search')),
    first.join('\n'),
  ).toBe(true);

  await page.reload();
  await expect(status).toHaveAttribute('data-state', 'ready', { timeout: 30_000 });
  // The index's size and origin are technical details (behind the details button).
  await expect(page.locator('harel-chat [part~="index-info"]')).toContainText('loaded from this device');
  const warm = await recorded();
  expect(
    warm.some((s) => s.startsWith('loading:')),
    warm.join('\n'),
  ).toBe(true);
  expect(warm.filter((s) => s.includes(':download:') || s.includes('Downloading'))).toEqual([]);
});

test('when the index cannot be loaded, a queued question gets a reply that says so and why, and nothing broken is kept', async ({ page }) => {
  const errors: string[] = [];
  await page.exposeFunction('recordError', (code: string) => errors.push(code));
  await page.addInitScript(() => {
    addEventListener('harel-chat:error', (e) => (window as unknown as { recordError(c: string): void }).recordError((e as CustomEvent).detail.code));
  });
  const release = await holdIndexFiles(page, (route) => route.fulfill({ status: 503, body: 'unavailable' }));
  await page.goto('/');
  const status = page.locator('harel-chat [part~="status"]');
  await expect(status).toHaveAttribute('data-step', 'download');
  await expect.poll(() => textOf(page, 'harel-chat [part~="status"]')).toMatch(/מוריד את המסמכים: \d[\d.,]* \S+ מתוך \d/);
  const input = page.locator('harel-chat textarea');
  await input.fill('לכמה ימים אקבל רכב חלופי אחרי תאונה?');
  await input.press('Enter');
  const reply = page.locator('harel-chat [part~="pending-reply"]');
  await expect(reply).toHaveAttribute('data-pending', 'waiting');
  await expect(reply).toHaveAttribute('dir', 'rtl');
  await expect(reply).toContainText('אענה על השאלה מיד כשהמסמכים ייטענו');

  release();
  await expect(status).toHaveAttribute('data-state', 'error', { timeout: 30_000 });
  await expect(reply).toHaveAttribute('data-pending', 'failed');
  await expect(reply).toHaveAttribute('data-code', 'INDEX_DOWNLOAD_FAILED');
  await expect(reply).toContainText('לא ניתן היה לטעון את המסמכים');
  await expect(reply.locator('.detail')).toContainText('HTTP 503');
  await expect(reply.locator('.detail')).toContainText('Check the connection');
  // Nothing is lost: the question stays in the conversation.
  await expect(page.locator('harel-chat .msg.user')).toHaveText(['לכמה ימים אקבל רכב חלופי אחרי תאונה?']);
  // The failure is reported once, by the load, not again for the question.
  expect(errors).toEqual(['INDEX_DOWNLOAD_FAILED']);

  // The next visit, with the index reachable, starts from a whole conversation: the unanswered
  // question was never saved, and a new one is answered.
  await page.unrouteAll({ behavior: 'ignoreErrors' });
  await page.reload();
  await expect(status).toHaveAttribute('data-state', 'ready', { timeout: 30_000 });
  await expect(page.locator('harel-chat .msg')).toHaveCount(0);
  const answer = await page.evaluate(() => document.querySelector('harel-chat')!.ask('לכמה ימים אקבל רכב חלופי אחרי תאונה?'));
  expect(answer.citations.length).toBeGreaterThan(0);
});

test('the stop control cancels a queued question: it stays in view, marked stopped, and is never answered', async ({ page }) => {
  const release = await holdIndexFiles(page);
  await page.goto('/?lang=en');
  await expect(page.locator('harel-chat [part~="status"]')).toHaveAttribute('data-step', 'download');
  const input = page.locator('harel-chat textarea');
  await input.fill('How soon must I report a home insurance claim?');
  await input.press('Enter');
  await page.locator('harel-chat [part~="stop-button"]').click();
  const reply = page.locator('harel-chat [part~="pending-reply"]');
  await expect(reply).toHaveAttribute('data-pending', 'cancelled');
  await expect(reply).toContainText('Stopped before it was answered');
  await expect(page.locator('harel-chat [part~="stop-button"]')).toHaveCount(0);

  release();
  await expect(page.locator('harel-chat [part~="status"]')).toHaveAttribute('data-state', 'ready', { timeout: 30_000 });
  await expect(page.locator('harel-chat .msg.user')).toHaveText(['How soon must I report a home insurance claim?']);
  await expect(reply).toHaveAttribute('data-pending', 'cancelled');
  await expect(page.locator('harel-chat article.msg.assistant[data-refused]')).toHaveCount(0);
});
