/**
 * Elliptical follow-ups in a real Chromium against the demo (the test index, hybrid search): a
 * follow-up naming another insurance is the previous question asked about it, in Hebrew and in
 * English, and an off-topic reply carries no domain.
 */
import { expect, test, type Page } from '@playwright/test';
import type { Answer } from '../../widget/answer/types.ts';

async function openDemo(page: Page, query = ''): Promise<void> {
  await page.goto(`/${query}`);
  await expect(page.locator('harel-chat [part~="status"]')).toHaveAttribute('data-state', 'ready', { timeout: 30_000 });
  // And the query model settled (it loads after the index): answers rank as hybrid search does.
  await page.evaluate(() => document.querySelector('harel-chat')!.searchReady);
}

function ask(page: Page, question: string): Promise<Answer> {
  return page.evaluate((q) => document.querySelector('harel-chat')!.ask(q), question);
}

const files = (answer: Answer): string[] => answer.citations.map((c) => c.file);

test('"ומה לגבי רכב?" after the home deductible is answered with the car policy’s deductibles', async ({ page }) => {
  await openDemo(page);
  const home = await ask(page, 'מה ההשתתפות העצמית בביטוח דירה?');
  expect(home.refused).toBe(false);
  expect(files(home)[0]).toMatch(/^apartment\//);
  const car = await ask(page, 'ומה לגבי רכב?');
  expect(car.searchedQuery).toBe('מה ההשתתפות העצמית בביטוח רכב?');
  expect(car).toMatchObject({ refused: false, refusal: null, domain: 'car' });
  expect(files(car)[0]).toBe('car/files/car-policy.md');
  expect(files(car).some((f) => f.startsWith('apartment/'))).toBe(false);
  // The car policy's deductible table (section 4): the home policy has none of these amounts.
  expect(car.text).toMatch(/(?:1,500|2,700|3,000) ש"ח/);
  expect(car.text).not.toBe(home.text);
  // Shown as the car's answer: its badge names the car, and its first card the car policy.
  const reply = page.locator('harel-chat article.msg.assistant').last();
  await expect(reply.locator('[part~="domain-badge"]')).toHaveAttribute('data-domain', 'car');
  await expect(reply.locator('details.card').first()).toHaveAttribute('data-file', 'car/files/car-policy.md');

  // The demo's own water-damage question: the car's deductibles again, not the water-damage one.
  const water = await ask(page, 'מה ההשתתפות העצמית בתביעה על נזקי מים בביטוח הדירה?');
  expect(water.text).toContain('500');
  const carAgain = await ask(page, 'ומה לגבי רכב?');
  expect(carAgain).toMatchObject({ refused: false, domain: 'car' });
  expect(files(carAgain)[0]).toBe('car/files/car-policy.md');
  expect(files(carAgain).some((f) => f.startsWith('apartment/'))).toBe(false);
  expect(carAgain.text).toMatch(/(?:1,500|2,700|3,000) ש"ח/);
});

test('"And for travel insurance?" after the home excess is answered with the travel policy’s excess', async ({ page }) => {
  await openDemo(page, '?lang=en');
  const home = await ask(page, 'What is the excess for home insurance?');
  expect(home.refused).toBe(false);
  expect(files(home)[0]).toBe('apartment/files/demo-home-policy.pdf');
  const travel = await ask(page, 'And for travel insurance?');
  expect(travel.searchedQuery).toBe('What is the excess for travel insurance?');
  expect(travel).toMatchObject({ refused: false, refusal: null, lang: 'en', domain: 'travel' });
  expect(files(travel)[0]).toBe('travel/files/travel-policy-en.md');
  // The travel policy's excesses are in US dollars; the home policy's in shekels.
  expect(travel.text).toMatch(/USD \d+/);
  expect(travel.text).not.toBe(home.text);
});

test('an off-topic reply carries no domain, though the router names one', async ({ page }) => {
  await openDemo(page, '?lang=en');
  const answer = await ask(page, 'who won the car race yesterday?');
  expect(answer).toMatchObject({ refused: true, refusal: 'off-topic', domain: null });
  await expect(page.locator('harel-chat article.msg.assistant').last().locator('[part~="domain-badge"]')).toHaveCount(0);
});
