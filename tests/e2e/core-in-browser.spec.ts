/**
 * The shared core in a real Chromium: the demo page loads the demo index through fetch, checks
 * every file's sha256 with SubtleCrypto, inflates it with DecompressionStream, restores Orama
 * with the project's tokenizer and searches Hebrew and English.
 */
import { expect, test } from '@playwright/test';

async function search(page: import('@playwright/test').Page, query: string) {
  await page.fill('#q', query);
  await page.press('#q', 'Enter');
  await expect(page.locator('#results li').first()).toBeVisible();
  return page.locator('#results li');
}

test('loads the demo index and answers a Hebrew query with Hebrew passages', async ({ page }) => {
  await page.goto('/search.html');
  await expect(page.locator('#status')).toHaveAttribute('data-state', 'ready');
  await expect(page.locator('#status')).toContainText(/\d+ chunks/);
  const hits = await search(page, 'מה ההשתתפות העצמית בביטוח הרכב?');
  await expect(hits.first()).toHaveAttribute('data-file', /^car\//);
  // Hebrew passages are rendered right-to-left by their own script.
  const dir = await hits
    .first()
    .locator('.text')
    .evaluate((el) => getComputedStyle(el).direction);
  expect(dir).toBe('rtl');
});

test('answers an English query from the generated PDF with its page number', async ({ page }) => {
  await page.goto('/search.html');
  await expect(page.locator('#status')).toHaveAttribute('data-state', 'ready');
  const hits = await search(page, 'how many days do I have to report a home insurance claim');
  const files = await hits.evaluateAll((els) => els.map((el) => `${el.getAttribute('data-file')}#${el.getAttribute('data-page')}`));
  expect(files.some((f) => f.startsWith('apartment/files/demo-home-policy.pdf#'))).toBe(true);
});

test('rejects a tampered index file with an integrity error', async ({ page }) => {
  await page.route('**/index/chunks-0.bin.gz', async (route) => {
    const response = await route.fetch();
    const body = Buffer.from(await response.body());
    body[body.length - 10] ^= 0xff;
    await route.fulfill({ response, body });
  });
  await page.goto('/search.html');
  await expect(page.locator('#status')).toHaveAttribute('data-state', 'error');
  await expect(page.locator('#status')).toContainText('INDEX_INTEGRITY');
});
