/**
 * What a customer sees of the site and of the machinery: the site's name, contacts and starters
 * (attributes, properties, the manifest's `site` block, or neutral wording when none is set), a
 * conversation area that fills the panel on a phone, no internal terms unless `debug`, Esc, and
 * mixed-direction source lines.
 */
import { expect, test, type Page } from '@playwright/test';
import type { Answer } from '../../widget/answer/types.ts';
import { DEFAULT_STARTERS } from '../../widget/ui/strings.ts';

async function openDemo(page: Page, query = ''): Promise<void> {
  await page.goto(`/${query}`);
  await expect(page.locator('harel-chat [part~="status"]')).toHaveAttribute('data-state', 'ready', { timeout: 30_000 });
}

function ask(page: Page, question: string): Promise<Answer> {
  return page.evaluate((q) => document.querySelector('harel-chat')!.ask(q), question);
}

/**
 * Replaces the demo's element (which sets the demo's contacts and starters) with a bare one, as a
 * site owner pastes it, with `attributes` on it; resolves once its index is ready.
 */
async function bareElement(page: Page, attributes: Record<string, string> = {}): Promise<void> {
  await page.evaluate((attrs) => {
    const old = document.querySelector('harel-chat')!;
    const fresh = document.createElement('harel-chat');
    fresh.setAttribute('index', '/index/manifest.json');
    for (const [name, value] of Object.entries(attrs)) fresh.setAttribute(name, value);
    old.replaceWith(fresh);
  }, attributes);
  await expect(page.locator('harel-chat [part~="status"]')).toHaveAttribute('data-state', 'ready', { timeout: 30_000 });
}

/** The text a customer sees in the panel (hidden elements excluded). */
function visibleText(page: Page): Promise<string> {
  // biome-ignore lint/performance/useDomNodeTextContent: innerText is the point: it leaves out what CSS hides.
  return page.evaluate(() => (document.querySelector('harel-chat')!.shadowRoot!.querySelector('.panel') as HTMLElement).innerText);
}

const starterTexts = (page: Page) => page.locator('harel-chat [part~="starters"] button').allTextContents();

const SITE_BLOCK = {
  name: { he: 'ביטוח המניפסט', en: 'Manifest Assurance' },
  contacts: { phone: '*5555', website: 'https://manifest-assurance.example', hours: { he: 'א׳–ה׳ 9–16', en: 'Sun–Thu 9–16' } },
  starters: { he: ['מה מכסה הפוליסה שלי?', 'איך מדווחים על נזק?'], en: ['What does my policy cover?'] },
};

/** Serves the demo's manifest with a `site` block, as `harel-builder build --site` writes it. */
async function serveSiteBlock(page: Page): Promise<void> {
  await page.route('**/index/manifest.json', async (route) => {
    const response = await route.fetch();
    await route.fulfill({ response, json: { ...(await response.json()), site: SITE_BLOCK } });
  });
}

test.beforeEach(async ({ context }) => {
  await context.clearCookies();
});

test('with nothing configured: a neutral title, neutral starters, and an off-topic reply that names no insurer', async ({ page }) => {
  await openDemo(page);
  await bareElement(page);
  await expect(page.locator('harel-chat h2')).toHaveText('העוזר הדיגיטלי');
  expect(await starterTexts(page)).toEqual(DEFAULT_STARTERS.he);
  const offTopic = await ask(page, 'מי ניצח במשחק הכדורגל אתמול?');
  expect(offTopic.refusal).toBe('off-topic');
  expect(offTopic.text).toContain('לשירות הלקוחות של חברת הביטוח שלכם');
  const refused = await ask(page, 'Is my horse covered when it kicks a neighbour?');
  expect(refused.refused).toBe(true);
  for (const text of [offTopic.text, refused.text, await visibleText(page)]) {
    expect(text).not.toMatch(/הראל|Harel|דמו ביטוח|Demo Insurance|\*\d{4}|demo-insurance\.example|harel-group/);
  }
});

test('the site’s name, contacts and starters from attributes', async ({ page }) => {
  await openDemo(page, '?lang=en');
  await bareElement(page, {
    lang: 'en',
    'site-name': 'Example Mutual',
    'contact-phone': '03-555-0100',
    'contact-email': 'help@example-mutual.example',
    'contact-hours': 'Sun–Thu 8–17',
    starters: JSON.stringify({ he: ['שאלה לדוגמה?'], en: ['Is hail damage to my car covered?'] }),
  });
  await expect(page.locator('harel-chat h2')).toHaveText('Example Mutual · Policy assistant');
  expect(await starterTexts(page)).toEqual(['Is hail damage to my car covered?']);
  const answer = await ask(page, "what's the weather tomorrow?");
  expect(answer.refusal).toBe('off-topic');
  expect(answer.text).toBe(
    'I can only answer questions about the insurance documents on this site. For anything else, please contact Example Mutual by phone at 03-555-0100 (Sun–Thu 8–17) or by email at help@example-mutual.example.',
  );
  // The properties say the same: the element reports what it uses.
  const contacts = await page.evaluate(() => document.querySelector('harel-chat')!.siteContacts);
  expect(contacts).toEqual({ name: 'Example Mutual', phone: '03-555-0100', email: 'help@example-mutual.example', hours: 'Sun–Thu 8–17' });
});

test('the site’s name, contacts and starters from the manifest’s site block; attributes win field by field', async ({ page }) => {
  await serveSiteBlock(page);
  await openDemo(page);
  await bareElement(page);
  await expect(page.locator('harel-chat h2')).toHaveText('ביטוח המניפסט · עוזר דיגיטלי');
  expect(await starterTexts(page)).toEqual(SITE_BLOCK.starters.he);
  const he = await ask(page, 'מי ניצח במשחק הכדורגל אתמול?');
  expect(he.text).toMatch(/לפנות אל ביטוח המניפסט בטלפון \*5555 \(א׳–ה׳ 9–16\) או באתר https:\/\/manifest-assurance\.example\.$/);
  const en = await ask(page, "what's the weather tomorrow?");
  expect(en.text).toMatch(/contact Manifest Assurance by phone at \*5555 \(Sun–Thu 9–16\) or at https:\/\/manifest-assurance\.example\.$/);

  // An attribute replaces its own field only: the manifest's website and hours stay.
  await bareElement(page, { 'site-name': 'שם מהתגית', 'contact-phone': '*7777' });
  await expect(page.locator('harel-chat h2')).toHaveText('שם מהתגית · עוזר דיגיטלי');
  const merged = await ask(page, 'מי ניצח במשחק הכדורגל אתמול?');
  expect(merged.text).toMatch(/לפנות אל שם מהתגית בטלפון \*7777 \(א׳–ה׳ 9–16\) או באתר https:\/\/manifest-assurance\.example\.$/);
  // And a property set by the page wins over the manifest's starters.
  await page.evaluate(() => {
    const chat = document.querySelector('harel-chat')!;
    return chat.clear().then(() => (chat.starters = { he: ['שאלה מהדף?'] }));
  });
  await expect.poll(() => starterTexts(page)).toEqual(['שאלה מהדף?']);
});

test('the demo names its own (made-up) brand', async ({ page }) => {
  await openDemo(page);
  await expect(page.locator('harel-chat h2')).toHaveText('דמו ביטוח · עוזר דיגיטלי');
  const answer = await ask(page, 'מי ניצח במשחק הכדורגל אתמול?');
  expect(answer.text).toContain('בדוא״ל service@demo-insurance.example');
});

test('at 360×740 the conversation area is at least 55 % of the panel before any question', async ({ page }) => {
  await page.setViewportSize({ width: 360, height: 740 });
  await openDemo(page);
  // The model's verdict (a software GPU here) is in: the header is as tall as it gets.
  await expect(page.locator('harel-chat [part~="model-status"]')).toHaveAttribute('data-state', 'unavailable');
  const panel = (await page.locator('harel-chat [part~="panel"]').boundingBox())!;
  const messages = (await page.locator('harel-chat [part~="messages"]').boundingBox())!;
  expect(messages.height / panel.height).toBeGreaterThanOrEqual(0.55);
  await expect(page.locator('harel-chat [part~="starters"]')).toBeInViewport();
});

test('the demo page fits a 360×740 screen: no page scroll, the composer in view, before and after an answer', async ({ page }) => {
  await page.setViewportSize({ width: 360, height: 740 });
  await openDemo(page);
  await expect(page.locator('harel-chat [part~="model-status"]')).toHaveAttribute('data-state', 'unavailable');
  const fits = async () => {
    const scroll = await page.evaluate(() => document.scrollingElement!.scrollHeight);
    expect(scroll).toBeLessThanOrEqual(740);
    const composer = (await page.locator('harel-chat [part~="composer"]').boundingBox())!;
    expect(composer.y).toBeGreaterThanOrEqual(0);
    expect(composer.y + composer.height).toBeLessThanOrEqual(740);
    expect(composer.x).toBeGreaterThanOrEqual(0);
    expect(composer.x + composer.width).toBeLessThanOrEqual(360);
  };
  await fits();
  await ask(page, 'כמה השתתפות עצמית אשלם על החלפת שמשה קדמית?');
  await fits();
});

test('at 360×740 the "add your policy" section folds to one row once the conversation has a question, and opens again', async ({ page }) => {
  await page.setViewportSize({ width: 360, height: 740 });
  await openDemo(page);
  const section = page.locator('harel-chat [part~="documents"]');
  const height = async () => (await section.boundingBox())!.height;
  // Before the first question: the button, the drop hint and the privacy line, as on a wide screen.
  await expect(page.locator('harel-chat [part~="documents-privacy"]')).toBeVisible();
  await expect(page.locator('harel-chat [part~="add-document-button"]')).toBeVisible();
  const before = await height();
  expect(before).toBeGreaterThan(60);

  await ask(page, 'כמה השתתפות עצמית אשלם על החלפת שמשה קדמית?');
  const toggle = page.locator('harel-chat [part~="documents-toggle"]');
  await expect(toggle).toBeVisible();
  await expect(toggle).toHaveAttribute('aria-expanded', 'false');
  await expect(page.locator('harel-chat [part~="documents-privacy"]')).toBeHidden();
  const after = await height();
  // One row: the control and the section's own padding.
  expect(after).toBeLessThanOrEqual(44);
  expect(after).toBeLessThan(before / 2);

  // Its control opens it again, with focus on the add button; the next question folds it again.
  await toggle.click();
  await expect(page.locator('harel-chat [part~="documents-privacy"]')).toBeVisible();
  await expect.poll(() => page.evaluate(() => document.querySelector('harel-chat')!.shadowRoot!.activeElement?.getAttribute('part'))).toBe('add-document-button');
  expect(await height()).toBeCloseTo(before, 0);
  await ask(page, 'מה ההשתתפות העצמית בתביעה על נזקי מים בביטוח הדירה?');
  await expect(toggle).toBeVisible();
  expect(await height()).toBeLessThanOrEqual(44);
});

test('the customer sees no internal terms; the details button and the debug attribute show them', async ({ page }) => {
  const internal = /BM25|swiftshader|shader-f16|q4f|MLC|gemma|\d+ קטעים|\d+ passages|חיפוש משולב|חיפוש מילים|hybrid search|word search|אחסון:|Storage:/i;
  await openDemo(page);
  await expect(page.locator('harel-chat [part~="model-status"]')).toHaveAttribute('data-state', 'unavailable');
  await ask(page, 'כמה השתתפות עצמית אשלם על החלפת שמשה קדמית?');
  const customer = await visibleText(page);
  expect(customer).not.toMatch(internal);
  // One plain sentence, in the interface's language, says how answers are written here.
  await expect(page.locator('harel-chat [part~="subtitle"]')).toHaveText('עונה בציטוט ממסמכי הפוליסה; מודל בינה מלאכותית מקומי אינו זמין במכשיר זה.');

  const button = page.locator('harel-chat [part~="details-button"]');
  await expect(button).toHaveAttribute('aria-expanded', 'false');
  await button.click();
  await expect(button).toHaveAttribute('aria-expanded', 'true');
  await expect(page.locator('harel-chat [part~="details"]')).toBeVisible();
  expect(await visibleText(page)).toMatch(/\d+ קטעים/);
  expect(await visibleText(page)).toMatch(/swiftshader/i);

  await page.goto('/?lang=en');
  await page.evaluate(() => document.querySelector('harel-chat')!.setAttribute('debug', ''));
  await expect(page.locator('harel-chat [part~="status"]')).toHaveAttribute('data-state', 'ready', { timeout: 30_000 });
  await expect(page.locator('harel-chat [part~="model-status"]')).toHaveAttribute('data-state', 'unavailable');
  await expect(page.locator('harel-chat [part~="details"]')).toBeVisible();
  expect(await visibleText(page)).toMatch(/\d+ passages/);
  expect(await visibleText(page)).toMatch(/shader-f16/);
});

test('Esc stops a question being answered', async ({ page }) => {
  // The index's download is held, so a question waits for it until Esc.
  let release = () => {};
  const held = new Promise<void>((resolve) => (release = resolve));
  await page.route('**/index/chunks-0.bin.gz', async (route) => {
    await held;
    await route.fallback();
  });
  await page.goto('/');
  await expect(page.locator('harel-chat [part~="status"]')).toHaveAttribute('data-state', 'loading');
  const input = page.locator('harel-chat textarea');
  await input.fill('לכמה ימים אקבל רכב חלופי אחרי תאונה?');
  await input.press('Enter');
  const reply = page.locator('harel-chat [part~="pending-reply"]');
  await expect(reply).toHaveAttribute('data-pending', 'waiting');
  await page.keyboard.press('Escape');
  await expect(reply).toHaveAttribute('data-pending', 'cancelled');
  release();
  await expect(page.locator('harel-chat [part~="status"]')).toHaveAttribute('data-state', 'ready', { timeout: 30_000 });
  await expect(reply).toHaveAttribute('data-pending', 'cancelled');
  await expect(page.locator('harel-chat article.msg.assistant[data-refused]')).toHaveCount(0);
});

test('Esc closes the open citation card and gives focus back to its marker', async ({ page }) => {
  await openDemo(page);
  await ask(page, 'כמה השתתפות עצמית אשלם על החלפת שמשה קדמית?');
  const reply = page.locator('harel-chat article.msg.assistant').last();
  const marker = reply.locator('button.cite').first();
  const n = await marker.getAttribute('data-n');
  await marker.click();
  const card = reply.locator(`details.card[data-n="${n}"]`);
  await expect(card).toHaveAttribute('open', '');
  await page.keyboard.press('Escape');
  await expect(card).not.toHaveAttribute('open', '');
  const focused = await page.evaluate(() => {
    const active = document.querySelector('harel-chat')!.shadowRoot!.activeElement as HTMLElement | null;
    return active ? { cite: active.classList.contains('cite'), n: active.dataset.n } : null;
  });
  expect(focused).toEqual({ cite: true, n });
});

test('an English source in the Hebrew interface: its title is isolated and named once, and the markers sit on the line', async ({ page }) => {
  const title = 'Demo World Travel Insurance – Policy Wording (English Edition)';
  await openDemo(page);
  const answer = await ask(page, 'Does the extreme sports extension cover skiing?');
  const cited = answer.citations.find((c) => c.file === 'travel/files/travel-policy-en.md');
  expect(cited, JSON.stringify(answer.citations.map((c) => c.file))).toBeTruthy();
  // The document's outline starts with its own title (shortened by the builder).
  expect(title.startsWith(cited!.sectionPath[0].replace(/…$/, ''))).toBe(true);
  const summary = page.locator(`harel-chat details.card[data-file="travel/files/travel-policy-en.md"] summary`).first();
  const line = await summary.evaluate((el, t) => {
    const text = el.textContent ?? '';
    const holders = [...el.querySelectorAll('*')].filter((e) => e.textContent === t);
    return {
      text,
      // The title's words, whole or shortened: once.
      count: text.split('Demo World Travel Insurance').length - 1,
      isolated: holders.length > 0 && holders.every((e) => e.localName === 'bdi' || e.getAttribute('dir') === 'auto'),
      pieces: [...el.querySelectorAll('bdi')].map((b) => b.textContent),
    };
  }, title);
  expect(line.count, line.text).toBe(1);
  expect(line.isolated, line.text).toBe(true);
  // Each heading of the path is isolated too, and the page is named in the interface's words.
  expect(line.pieces.slice(1)).toEqual(cited!.sectionPath.slice(1));
  expect(line.text).toMatch(/עמ׳ \d+$/);

  // A marker is no taller than the line it sits in, and is not raised above it.
  const reply = page.locator('harel-chat article.msg.assistant').last();
  const marker = await reply
    .locator('button.cite')
    .first()
    .evaluate((el) => {
      const style = getComputedStyle(el);
      const host = el.closest('p, li') ?? el.parentElement!;
      return { height: el.getBoundingClientRect().height, line: parseFloat(getComputedStyle(host).lineHeight), align: style.verticalAlign };
    });
  expect(marker.align).toBe('baseline');
  expect(marker.height).toBeLessThanOrEqual(marker.line);
});
