/**
 * What an answer is labelled and how its pieces show on a phone: an off-topic reply says so in its
 * badge (and names no domain), the site's contact details in it are links kept whole on their line,
 * and a quoted table row shows in its source card as a table under its header, right to left in
 * Hebrew.
 */
import { expect, test, type Locator, type Page } from '@playwright/test';
import type { Answer } from '../../widget/answer/types.ts';

async function openDemo(page: Page, query = '?mode=extractive'): Promise<void> {
  await page.goto(`/${query}`);
  await expect(page.locator('harel-chat [part~="status"]')).toHaveAttribute('data-state', 'ready', { timeout: 30_000 });
}

function ask(page: Page, question: string): Promise<Answer> {
  return page.evaluate((q) => document.querySelector('harel-chat')!.ask(q), question);
}

const lastReply = (page: Page): Locator => page.locator('harel-chat article.msg.assistant').last();

/** How many lines an element's text takes: the distinct tops of its text's boxes. */
function textLines(link: Locator): Promise<number> {
  return link.evaluate((el) => {
    const range = document.createRange();
    range.selectNodeContents(el);
    return new Set([...range.getClientRects()].filter((r) => r.width > 0).map((r) => Math.round(r.top))).size;
  });
}

test.beforeEach(async ({ context }) => {
  await context.clearCookies();
});

test('an off-topic reply says so in its badge, in both languages, beside no domain; a greeting carries no badge', async ({ page }) => {
  await openDemo(page);
  const he = await ask(page, 'מי ניצח במשחק הכדורגל אתמול?');
  expect(he.refusal).toBe('off-topic');
  let reply = lastReply(page);
  await expect(reply.locator('[part~="topic-badge"]')).toHaveText('מחוץ לתחום מסמכי הביטוח');
  await expect(reply.locator('[part~="topic-badge"]')).toHaveAttribute('data-refusal', 'off-topic');
  await expect(reply.locator('[part~="confidence-badge"]')).toHaveCount(0);
  await expect(reply.locator('[part~="domain-badge"]')).toHaveCount(0);
  await expect(reply).not.toContainText('לא נמצאה תשובה ודאית');

  const greeting = await ask(page, 'שלום');
  expect(greeting.refusal).toBe('off-topic');
  await expect(lastReply(page).locator('.badge')).toHaveCount(0);

  await openDemo(page, '?lang=en&mode=extractive');
  const en = await ask(page, "what's the weather tomorrow?");
  expect(en.refusal).toBe('off-topic');
  reply = lastReply(page);
  await expect(reply.locator('[part~="topic-badge"]')).toHaveText('Outside the insurance documents');
  await expect(reply.locator('[part~="confidence-badge"]')).toHaveCount(0);
  await expect(reply).not.toContainText('No definitive answer');
});

test('the contact details in the off-topic reply are links, left to right and whole on their line at 360 px', async ({ page }) => {
  await page.setViewportSize({ width: 360, height: 740 });
  await openDemo(page);
  await ask(page, 'מי ניצח במשחק הכדורגל אתמול?');
  const links = lastReply(page).locator('.body a[part~="answer-link"]');
  // demo/main.ts sets Demo Insurance's (made-up) channels.
  await expect(links).toHaveText(['*1234', 'https://demo-insurance.example', 'service@demo-insurance.example']);
  expect(await links.evaluateAll((as) => as.map((a) => a.getAttribute('href')))).toEqual(['tel:*1234', 'https://demo-insurance.example/', 'mailto:service@demo-insurance.example']);
  for (const link of await links.all()) {
    await expect(link).toHaveAttribute('dir', 'ltr');
    expect(await textLines(link), (await link.textContent()) ?? '').toBe(1);
  }
  // "*1234" reads left to right inside the Hebrew line: the star stands left of the digits.
  const star = await links.first().evaluate((a) => {
    const text = a.firstChild!.nodeType === Node.TEXT_NODE ? a.firstChild! : [...a.childNodes].find((n) => n.nodeType === Node.TEXT_NODE)!;
    const at = (i: number) => {
      const range = document.createRange();
      range.setStart(text, i);
      range.setEnd(text, i + 1);
      return range.getBoundingClientRect().left;
    };
    return { star: at(0), digit: at(1) };
  });
  expect(star.star).toBeLessThan(star.digit);
});

test('a contact detail that cannot be linked safely stays text', async ({ page }) => {
  await openDemo(page, '?lang=en&mode=extractive');
  await page.evaluate(() => {
    const chat = document.querySelector('harel-chat')!;
    chat.contacts = { name: 'Example Mutual', phone: '03-555-0100', website: 'javascript:alert(1)' };
  });
  const answer = await ask(page, "what's the weather tomorrow?");
  expect(answer.text).toContain('javascript:alert(1)');
  const reply = lastReply(page);
  await expect(reply.locator('.body a')).toHaveCount(1);
  await expect(reply.locator('.body a')).toHaveAttribute('href', 'tel:035550100');
  await expect(reply.locator('.body')).toContainText('at javascript:alert(1)');
});

/** The cited table rows of an answer, each with its card opened. */
async function tableCards(page: Page, answer: Answer): Promise<{ card: Locator; header: string[]; quote: string }[]> {
  const cited = answer.citations.filter((c) => c.tableHeader);
  expect(cited.length, JSON.stringify(answer.citations.map((c) => c.quote))).toBeGreaterThan(0);
  const out: { card: Locator; header: string[]; quote: string }[] = [];
  for (const c of cited) {
    const card = lastReply(page).locator(`details.card[data-n="${c.n}"]`);
    await card.evaluate((d) => ((d as HTMLDetailsElement).open = true));
    out.push({ card, header: c.tableHeader!.split(' | '), quote: c.quote });
  }
  return out;
}

test('a quoted table row shows in its card as a table under its header: right to left in Hebrew, question words marked', async ({ page }) => {
  await page.setViewportSize({ width: 360, height: 740 });
  await openDemo(page);
  const answer = await ask(page, 'כמה עולה ביטול נסיעה בביטוח נסיעות?');
  const cards = await tableCards(page, answer);
  for (const { card, header, quote } of cards) {
    const table = card.locator('[part~="citation-table"]');
    await expect(table.locator('th')).toHaveText(header);
    const rows = quote.split(' … ').filter((piece) => piece.split(' | ').length === header.length && piece !== header.join(' | '));
    await expect(table.locator('tbody tr')).toHaveCount(rows.length);
    for (const [i, row] of rows.entries()) await expect(table.locator('tbody tr').nth(i).locator('td')).toHaveText(row.split(' | '));
    // No raw row lines left in the quote.
    expect(await card.locator('[part~="citation-quote"]').textContent()).not.toContain(' | ');
  }
  const hebrew = cards.find((c) => /[\u0590-\u05FF]/.test(c.header.join('')));
  expect(hebrew, 'a Hebrew table is cited').toBeTruthy();
  const table = hebrew!.card.locator('[part~="citation-table"]');
  await expect(hebrew!.card.locator('[part~="citation-quote"]')).toHaveAttribute('dir', 'rtl');
  const first = (await table.locator('th').nth(0).boundingBox())!;
  const second = (await table.locator('th').nth(1).boundingBox())!;
  // The first column stands at the right.
  expect(first.x).toBeGreaterThan(second.x);
  await expect(table.locator('td mark, th mark').first()).toBeVisible();
});

test('an English table row quoted in the Hebrew interface keeps its own left-to-right table', async ({ page }) => {
  await openDemo(page);
  const answer = await ask(page, 'What is the excess for trip cancellation?');
  const cards = await tableCards(page, answer);
  const english = cards.find((c) => c.header.join(' | ') === 'Cover | Maximum we pay | Excess');
  expect(english, JSON.stringify(cards.map((c) => c.header))).toBeTruthy();
  const table = english!.card.locator('[part~="citation-table"]');
  await expect(english!.card.locator('[part~="citation-quote"]')).toHaveAttribute('dir', 'ltr');
  await expect(table.locator('th')).toHaveText(['Cover', 'Maximum we pay', 'Excess']);
  await expect(table.locator('tbody tr').first().locator('td')).toHaveText(['Trip cancellation', 'USD 5,000', '10% of the loss']);
  const first = (await table.locator('th').nth(0).boundingBox())!;
  const second = (await table.locator('th').nth(1).boundingBox())!;
  expect(first.x).toBeLessThan(second.x);
});
