/**
 * The `query-model` attribute: a question model of its own (builder/models/e5-query-model.ts)
 * names in its config.json the passage model it was trained against. Against another index's
 * passages it is refused (QUERY_MODEL_MISMATCH): search stays on words, the details say why, and
 * answers still come. A matching one answers hybrid, and the details name it. With the tiny TEST
 * embedder: the "tuned" model's files are the fixture's, served under another id by page.route.
 */
import { expect, test, type Page } from '@playwright/test';
import type { IndexInfo } from '../../widget/search/search-service.ts';

const TUNED = 'fixture/tuned-query';

/** Sets query-model on the page's <harel-chat> before it first loads (the element is parsed before the widget's module runs). */
async function withQueryModel(page: Page, passageModel: string): Promise<void> {
  await page.route(`**/models/${TUNED}/**`, async (route) => {
    const url = route.request().url();
    if (url.endsWith('/config.json')) {
      await route.fulfill({ status: 200, contentType: 'application/json', body: JSON.stringify({ harel: { role: 'query', passageModel } }) });
      return;
    }
    const response = await route.fetch({ url: url.replace(`/models/${TUNED}/`, '/models/fixture/tiny-embedder/') });
    await route.fulfill({ response });
  });
  await page.addInitScript((id) => {
    new MutationObserver((_, observer) => {
      const element = document.querySelector('harel-chat');
      if (!element) return;
      element.setAttribute('query-model', id);
      observer.disconnect();
    }).observe(document, { childList: true, subtree: true });
  }, TUNED);
}

const searchReady = (page: Page): Promise<IndexInfo> => page.evaluate(() => document.querySelector('harel-chat')!.searchReady);
const searchInfo = (page: Page) => page.locator('harel-chat [part~="search-info"]');
const ask = (page: Page) =>
  page.evaluate(async () => {
    const a = await document.querySelector('harel-chat')!.ask('How soon must I report a home insurance claim?');
    return { searchMode: a.searchMode, citations: a.citations.length };
  });

test('a question model trained against other passages is refused: words only, and the details say why', async ({ page }) => {
  await withQueryModel(page, 'other/passage-model');
  await page.goto('/?lang=en');
  const info = await searchReady(page);
  expect(info).toMatchObject({ searchMode: 'bm25', embedderStatus: 'failed', queryModel: TUNED });
  expect(info.embedderError).toContain(`"${TUNED}" was trained against other/passage-model, this index's passages were embedded with fixture/tiny-embedder`);
  await expect(searchInfo(page)).toHaveAttribute('data-embedder', 'failed');
  await expect(searchInfo(page).locator('.reason')).toContainText('was trained against other/passage-model');
  const answer = await ask(page);
  expect(answer.searchMode).toBe('bm25');
  expect(answer.citations).toBeGreaterThan(0);
});

test('a question model trained against this index’s passages answers hybrid, and the details name it', async ({ page }) => {
  await withQueryModel(page, 'fixture/tiny-embedder');
  await page.goto('/?lang=en');
  const info = await searchReady(page);
  expect(info).toMatchObject({ searchMode: 'hybrid', embedderStatus: 'ready', embedderError: null, queryModel: TUNED });
  await expect(searchInfo(page)).toContainText(`questions: ${TUNED}`);
  expect((await ask(page)).searchMode).toBe('hybrid');
});
