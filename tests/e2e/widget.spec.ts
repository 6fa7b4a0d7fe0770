/**
 * <harel-chat> in a real Chromium against the demo: answers with citations in Hebrew and
 * English, the no-answer response, the index kept in IndexedDB, a tampered build rejected while
 * the stored one keeps answering, nothing sent beyond localhost, keyboard use and a narrow screen.
 */
import { createHash } from 'node:crypto';
import { gunzipSync, gzipSync } from 'node:zlib';
import { expect, test, type Page } from '@playwright/test';
import { plainAnswerText } from '../../widget/answer/document-text.ts';
import type { Answer } from '../../widget/answer/types.ts';
import { decodeChunkStore, encodeChunkStore } from '../../widget/core/format/chunk-store.ts';
import { readStoredConversation, storeConversation } from '../support/stored-conversation.ts';

async function openDemo(page: Page, query = ''): Promise<void> {
  await page.goto(`/${query}`);
  await expect(page.locator('harel-chat [part~="status"]')).toHaveAttribute('data-state', 'ready', { timeout: 30_000 });
  // And the query model settled (it loads after the index): answers rank as hybrid search does.
  await page.evaluate(() => document.querySelector('harel-chat')!.searchReady);
}

function ask(page: Page, question: string): Promise<Answer> {
  return page.evaluate((q) => document.querySelector('harel-chat')!.ask(q), question);
}

test.beforeEach(async ({ context }) => {
  // Every test starts from an empty IndexedDB: the reload test asserts what a second visit reuses.
  await context.clearCookies();
});

test('the demo runs Lit in production mode and logs no warnings while it loads and answers', async ({ page }) => {
  const messages: string[] = [];
  page.on('console', (m) => {
    if (m.type() === 'warning' || m.type() === 'error' || /Lit is in dev mode/.test(m.text())) messages.push(`${m.type()}: ${m.text()}`);
  });
  await openDemo(page);
  await ask(page, 'כמה השתתפות עצמית אשלם על החלפת שמשה קדמית?');
  expect(messages).toEqual([]);
});

test('is in extractive mode by default and says so', async ({ page }) => {
  await openDemo(page);
  const badge = page.locator('harel-chat [part~="mode-badge"]');
  await expect(badge).toHaveAttribute('data-mode', 'extractive');
  await expect(page.locator('harel-chat .subtitle')).toContainText('ציטוט');
  // The badge is a technical detail, behind the details button.
  await expect(badge).toBeHidden();
  await page.locator('harel-chat [part~="details-button"]').click();
  await expect(badge).toBeVisible();
});

test('checks WebGPU before any download: the software adapter is not offered the model', async ({ page }) => {
  const modelRequests: string[] = [];
  page.on('request', (r) => {
    if (/mlc|gemma|resolve\/main/i.test(r.url())) modelRequests.push(r.url());
  });
  await openDemo(page, '?lang=en');
  const status = page.locator('harel-chat [part~="model-status"]');
  await expect(status).toHaveAttribute('data-state', 'unavailable');
  await expect(status).toHaveAttribute('data-reason', 'software-gpu');
  await expect(page.locator('harel-chat .subtitle')).toHaveText('Answers by quoting the policy; a local AI model is not available on this device.');
  await expect(status).toBeHidden();
  await page.locator('harel-chat [part~="details-button"]').click();
  await expect(status).toBeVisible();
  // The technical reason names the SwiftShader adapter and the missing shader-f16 (hence q4f32).
  await expect(status.locator('.detail')).toContainText(/swiftshader/i);
  await expect(status.locator('.detail')).toContainText('shader-f16');
  await expect(status.locator('.detail')).toContainText('q4f32');
  await expect(page.locator('harel-chat [part~="load-model-button"]')).toHaveCount(0);
  expect(modelRequests).toEqual([]);
});

test('mode="llm" without the model files reports the failure and keeps answering by quotation', async ({ page }) => {
  const errors: { code: string; message: string }[] = [];
  await page.exposeFunction('recordError', (detail: { code: string; message: string }) => errors.push(detail));
  await page.addInitScript(() => {
    addEventListener('harel-chat:error', (e) => (window as unknown as { recordError(d: unknown): void }).recordError((e as CustomEvent).detail));
  });
  await openDemo(page, '?lang=en&mode=llm');
  const status = page.locator('harel-chat [part~="model-status"]');
  await expect(status).toHaveAttribute('data-state', 'error', { timeout: 30_000 });
  await expect(status).toHaveAttribute('data-reason', 'MODEL_DOWNLOAD_FAILED');
  expect(errors.map((e) => e.code)).toEqual(['MODEL_DOWNLOAD_FAILED']);
  expect(errors.find((e) => e.code === 'MODEL_DOWNLOAD_FAILED')!.message).toContain('/models/gemma-2-2b-it-q4f32_1-MLC/');
  await expect(page.locator('harel-chat [part~="mode-badge"]')).toHaveAttribute('data-mode', 'extractive');
  const answer = await ask(page, 'How soon must I report a home insurance claim?');
  expect(answer.mode).toBe('extractive');
  expect(answer.citations.length).toBeGreaterThan(0);
});

/** Every harel-chat:error the page hears, recorded from before the element exists. */
async function recordErrors(page: Page): Promise<{ code: string; message: string }[]> {
  const errors: { code: string; message: string }[] = [];
  await page.exposeFunction('recordError', (detail: { code: string; message: string }) => errors.push(detail));
  await page.addInitScript(() => {
    addEventListener('harel-chat:error', (e) => (window as unknown as { recordError(d: unknown): void }).recordError((e as CustomEvent).detail));
  });
  return errors;
}

test('mode="llm" with a model this GPU cannot run (no shader-f16, no q4f32 variant) reports it once and keeps answering by quotation', async ({ page }) => {
  const errors = await recordErrors(page);
  const modelRequests: string[] = [];
  page.on('request', (r) => {
    // The page's own address names the model: only what the page fetches counts.
    if (!r.isNavigationRequest() && /mlc|gemma|resolve\/main/i.test(r.url())) modelRequests.push(r.url());
  });
  // Gemma 3 1B comes in q4f16 only; the software adapter has no shader-f16.
  await openDemo(page, '?lang=en&mode=llm&model=gemma3-1b-it-q4f16_1-MLC');
  const status = page.locator('harel-chat [part~="model-status"]');
  await expect(status).toHaveAttribute('data-state', 'unavailable');
  await expect(status).toHaveAttribute('data-reason', 'incompatible');
  await expect.poll(() => errors.length).toBe(1);
  expect(errors[0].code).toBe('SHADER_F16_MISSING');
  expect(errors[0].message).toContain('gemma3-1b-it-q4f16_1-MLC');
  await expect(page.locator('harel-chat [part~="mode-badge"]')).toHaveAttribute('data-mode', 'extractive');
  const answer = await ask(page, 'How soon must I report a home insurance claim?');
  expect(answer.mode).toBe('extractive');
  expect(answer.citations.length).toBeGreaterThan(0);
  expect(errors).toHaveLength(1);
  expect(modelRequests).toEqual([]);
});

test('mode="llm" in a browser without WebGPU reports WEBGPU_UNAVAILABLE once and keeps answering by quotation', async ({ page }) => {
  const errors = await recordErrors(page);
  await page.addInitScript(() => {
    Object.defineProperty(Navigator.prototype, 'gpu', { get: () => undefined, configurable: true });
  });
  await openDemo(page, '?lang=en&mode=llm');
  const status = page.locator('harel-chat [part~="model-status"]');
  await expect(status).toHaveAttribute('data-state', 'unavailable');
  await expect(status).toHaveAttribute('data-reason', 'no-webgpu');
  await expect.poll(() => errors.length).toBe(1);
  expect(errors[0].code).toBe('WEBGPU_UNAVAILABLE');
  expect(errors[0].message).toContain('navigator.gpu is missing');
  const answer = await ask(page, 'How soon must I report a home insurance claim?');
  expect(answer.mode).toBe('extractive');
  expect(answer.citations.length).toBeGreaterThan(0);
  expect(errors).toHaveLength(1);
});

test('mode="auto" without WebGPU only does not offer the model: no error event', async ({ page }) => {
  const errors = await recordErrors(page);
  await page.addInitScript(() => {
    Object.defineProperty(Navigator.prototype, 'gpu', { get: () => undefined, configurable: true });
  });
  await openDemo(page, '?lang=en');
  await expect(page.locator('harel-chat [part~="model-status"]')).toHaveAttribute('data-reason', 'no-webgpu');
  await ask(page, 'How soon must I report a home insurance claim?');
  expect(errors).toEqual([]);
});

test('answers a Hebrew question typed in the composer, with a citation that opens the right source', async ({ page }) => {
  await openDemo(page);
  const input = page.locator('harel-chat textarea');
  await input.fill('כמה השתתפות עצמית אשלם על החלפת שמשה קדמית במרכז שמשות שבהסדר?');
  await input.press('Enter');
  const reply = page.locator('harel-chat article.msg.assistant').last();
  await expect(reply).toHaveAttribute('data-refused', 'false', { timeout: 20_000 });
  await expect(reply).toHaveAttribute('dir', 'rtl');
  await expect(reply.locator('.body')).toContainText('250');
  const marker = reply.locator('button.cite').first();
  await marker.click();
  const card = reply.locator('details.card[open]').first();
  await expect(card).toBeVisible();
  await expect(card).toHaveAttribute('data-file', /^car\//);
  const href = await card.locator('a').getAttribute('href');
  expect(href).toMatch(/^https:\/\/demo-insurance\.example\/car\//);
  // The question's words are marked in the quoted passage.
  await expect(card.locator('mark').first()).toBeVisible();
});

test('answers an English question from the PDF and links the cited page', async ({ page }) => {
  await openDemo(page, '?lang=en');
  const answer = await ask(page, 'How soon must I report a home insurance claim?');
  expect(answer.mode).toBe('extractive');
  expect(answer.lang).toBe('en');
  expect(answer.refused).toBe(false);
  const pdf = answer.citations.find((c) => c.file === 'apartment/files/demo-home-policy.pdf');
  expect(pdf, JSON.stringify(answer.citations.map((c) => c.file))).toBeTruthy();
  const reply = page.locator('harel-chat article.msg.assistant').last();
  await expect(reply).toHaveAttribute('dir', 'ltr');
  const link = reply.locator(`details.card[data-file="apartment/files/demo-home-policy.pdf"] a`).first();
  await expect(link).toHaveAttribute('href', `https://demo-insurance.example/en/apartment/demo-home-policy.pdf#page=${pdf!.page}`);
  for (const key of ['assess', 'search', 'grade', 'generate', 'ground', 'total'] as const) {
    expect(answer.timings[key]).toBeGreaterThanOrEqual(0);
  }
});

test('shows the clause a cited passage refers to as supporting context', async ({ page }) => {
  // Words only (the embedder named here does not exist): the ranking is BM25's, as in Node, not
  // the test embedder's, whose vectors mean little.
  await openDemo(page, '?embedder=missing/embedder');
  await expect(page.locator('harel-chat [part~="search-badge"]')).toHaveAttribute('data-search', 'bm25');
  const answer = await ask(page, 'האם לפני ניתוח אצל רופא הסכם יש לקבל כתב התחייבות?');
  const cited = answer.citations.find((c) => c.clause === '2.1.4');
  expect(cited?.references?.[0]?.clause).toBe('5.1');
  const card = page.locator(`harel-chat article.msg.assistant details.card[data-file="${cited!.file}"]`).first();
  await card.evaluate((d) => ((d as HTMLDetailsElement).open = true));
  const reference = card.locator('[part~="citation-reference"]').first();
  await expect(reference).toContainText('5.1');
  await expect(reference.locator('blockquote')).toContainText('5.1 לקבלת כתב התחייבות');
});

test('says plainly when the documents do not answer, with the closest clauses', async ({ page }) => {
  await openDemo(page, '?lang=en');
  const answer = await ask(page, 'Is my horse covered when it kicks a neighbour?');
  expect(answer.refused).toBe(true);
  // Refused as not in the documents (nothing kept, or the evidence says so), never as off-topic.
  expect(['no-passages', 'not-answerable']).toContain(answer.refusal);
  expect(answer.confidence).toBe('low');
  expect(answer.text).toContain('I cannot find a definitive answer in the policy documents');
  expect(answer.citations.length).toBeGreaterThan(0);
  const reply = page.locator('harel-chat article.msg.assistant').last();
  await expect(reply).toHaveAttribute('data-refused', 'true');
  await expect(reply.locator('[part~="confidence-badge"]')).toHaveAttribute('data-confidence', 'low');
  await expect(reply.locator('details.card')).toHaveCount(answer.citations.length);
});

test("answers an off-topic question with the contact channels the page set, in the question's language", async ({ page }) => {
  await openDemo(page);
  const answer = await ask(page, 'מי ניצח במשחק הכדורגל אתמול?');
  expect(answer.refused).toBe(true);
  expect(answer.refusal).toBe('off-topic');
  // demo/main.ts sets Demo Insurance's (made-up) channels; the widget names no real insurer.
  expect(answer.text).toContain('דמו ביטוח');
  expect(answer.text).toContain('*1234');
  expect(answer.text).not.toMatch(/הראל|Harel|\*2735/);
  // The demo's interface is Hebrew; an English question is answered in English.
  const english = await ask(page, "what's the weather tomorrow?");
  expect(english).toMatchObject({ refusal: 'off-topic', lang: 'en' });
  expect(english.text).toMatch(/^I can only answer questions about the insurance documents on this site\..*Demo Insurance/);
});

test('a reload reads the index from IndexedDB and keeps the conversation', async ({ page }) => {
  await openDemo(page);
  const first = await ask(page, 'לכמה ימים אקבל רכב חלופי אחרי תאונה?');
  // ask() resolves with the whole answer; the stored turn keeps what was shown, not the evaluation payload.
  expect(first.retrieved.length).toBeGreaterThan(0);
  const stored = await readStoredConversation<{ answer?: Record<string, unknown> }>(page);
  expect(stored?.turns[1]?.answer?.citations).toEqual(first.citations);
  expect(stored?.turns[1]?.answer).not.toHaveProperty('retrieved');
  expect(stored?.turns[1]?.answer).not.toHaveProperty('evidence');
  const indexRequests: string[] = [];
  page.on('request', (request) => {
    if (/\/index\/.+\.gz$/.test(new URL(request.url()).pathname)) indexRequests.push(request.url());
  });
  await page.reload();
  await expect(page.locator('harel-chat [part~="status"]')).toHaveAttribute('data-state', 'ready', { timeout: 30_000 });
  expect(indexRequests).toEqual([]);
  await expect(page.locator('harel-chat [part~="index-info"]')).toContainText('נטען מהמכשיר');
  await expect(page.locator('harel-chat .msg.user').first()).toContainText('רכב חלופי');
  const answer = await ask(page, 'מה ההשתתפות העצמית בתביעה על נזקי מים בביטוח הדירה?');
  expect(answer.citations.length).toBeGreaterThan(0);
});

test('rejects a tampered build while the stored index keeps answering', async ({ page }) => {
  await openDemo(page);
  // A "new build" is published, but its chunk file was altered on the way.
  await page.route('**/index/manifest.json', async (route) => {
    const response = await route.fetch();
    const manifest = await response.json();
    manifest.buildId = `${manifest.buildId}-tampered`;
    await route.fulfill({ response, json: manifest });
  });
  // The demo index is one fragment of each kind: its chunks are all in chunks-0.
  await page.route('**/index/chunks-0.bin.gz', async (route) => {
    const response = await route.fetch();
    const body = Buffer.from(await response.body());
    body[body.length - 10] ^= 0xff;
    await route.fulfill({ response, body });
  });
  const errors: string[] = [];
  await page.exposeFunction('recordError', (code: string) => errors.push(code));
  await page.addInitScript(() => {
    addEventListener('harel-chat:error', (e) => (window as unknown as { recordError(c: string): void }).recordError((e as CustomEvent).detail.code));
  });
  await page.reload();
  await expect(page.locator('harel-chat [part~="status"]')).toHaveAttribute('data-state', 'ready', { timeout: 30_000 });
  await expect(page.locator('harel-chat [part~="status"] .stale')).toHaveAttribute('data-code', 'INDEX_INTEGRITY');
  await expect(page.locator('harel-chat [part~="details"]')).toContainText('INDEX_INTEGRITY');
  const answer = await ask(page, 'לכמה ימים אקבל רכב חלופי אחרי תאונה?');
  expect(answer.citations.length).toBeGreaterThan(0);
});

test('sends nothing beyond localhost', async ({ page }) => {
  const outside: string[] = [];
  page.on('request', (request) => {
    const url = new URL(request.url());
    if (!['localhost', '127.0.0.1'].includes(url.hostname) && url.protocol !== 'data:' && url.protocol !== 'blob:') outside.push(request.url());
  });
  await openDemo(page);
  await ask(page, 'מהי תקופת האכשרה לניתוחים בביטוח הבריאות?');
  await ask(page, 'Does the extreme sports extension cover skiing?');
  expect(outside).toEqual([]);
});

test('markup inside a policy document is shown as text, never run', async ({ page }) => {
  const injected = '<img src=x onerror="window.__pwned=1">';
  const withMarkup = (gzipped: Buffer) => {
    const { first, chunks } = decodeChunkStore(new Uint8Array(gunzipSync(gzipped)));
    return gzipSync(
      encodeChunkStore(
        chunks.map((c) => ({ ...c, text: c.text.replaceAll('שמשה', `שמשה ${injected}`) })),
        first,
      ),
    );
  };
  // The build served to the browser is rewritten so one car passage carries markup; its manifest
  // gets the new sizes, hash and build id, as a real (malicious) publication would.
  // The demo index is one fragment of each kind: its chunks are all in chunks-0.
  await page.route('**/index/chunks-0.bin.gz', async (route) => {
    const response = await route.fetch();
    await route.fulfill({ response, body: withMarkup(await response.body()) });
  });
  await page.route('**/index/manifest.json', async (route) => {
    const response = await route.fetch();
    const manifest = await response.json();
    const chunks = await (await page.request.get('/index/chunks-0.bin.gz')).body();
    const body = withMarkup(chunks);
    // The route above must produce the same bytes: gzip of the same input is deterministic here.
    const entry = manifest.files['chunks-0'];
    entry.bytes = body.length;
    entry.rawBytes = gunzipSync(body).length;
    entry.sha256 = createHash('sha256').update(body).digest('hex');
    manifest.buildId = `${manifest.buildId}-markup`;
    await route.fulfill({ response, json: manifest });
  });
  await openDemo(page);
  const answer = await ask(page, 'כמה השתתפות עצמית אשלם על החלפת שמשה קדמית?');
  expect(answer.citations.some((c) => c.quote.includes('<img'))).toBe(true);
  const reply = page.locator('harel-chat article.msg.assistant').last();
  await reply
    .locator('details.card')
    .first()
    .evaluate((d) => ((d as HTMLDetailsElement).open = true));
  await expect(reply.locator('img')).toHaveCount(0);
  await expect(reply.locator('blockquote').filter({ hasText: '<img src=x' }).first()).toBeVisible();
  expect(await page.evaluate(() => (window as unknown as { __pwned?: number }).__pwned ?? 0)).toBe(0);
});

test('markup in an answer is shown as text, never run', async ({ page }) => {
  await openDemo(page);
  // A model's answer with markup, as persisted in the conversation: rendered after a reload.
  const text = 'התשובה <script>window.__pwned=1</script> **מודגש** <img src=x onerror="window.__pwned=2"> [1]';
  await storeConversation(page, [
    { role: 'user', text: 'שאלה', at: 1 },
    { role: 'assistant', text, at: 2 },
  ]);
  await page.reload();
  const reply = page.locator('harel-chat article.msg.assistant').last();
  await expect(reply).toContainText('<script>window.__pwned=1</script>');
  await expect(reply.locator('img, script')).toHaveCount(0);
  await expect(reply.locator('strong')).toHaveText('מודגש');
  expect(await page.evaluate(() => (window as unknown as { __pwned?: number }).__pwned ?? 0)).toBe(0);
});

test('a citation of collapsed twin passages lists the other editions as "also in"', async ({ page }) => {
  await openDemo(page);
  // An answer as the loop writes it when twins are collapsed (retrieval's collapseTwins): one
  // citation, its near-identical passages in other editions listed with it.
  const citation = {
    n: 1,
    chunkId: 'c1',
    file: 'car/files/car-policy-2025.pdf',
    page: 4,
    url: 'https://insurer.example/car-2025.pdf',
    title: 'פוליסת רכב 2025',
    sectionPath: ['כיסויים'],
    clause: '3.1',
    quote: 'החלפת שמשה כרוכה בהשתתפות עצמית של 250 ש"ח.',
    alsoIn: [{ file: 'car/files/car-policy-2024.pdf', page: 5, title: 'פוליסת רכב 2024', url: null }],
  };
  const answer = {
    text: 'לפי הפוליסה: "החלפת שמשה כרוכה בהשתתפות עצמית של 250 ש"ח." [1]',
    citations: [citation],
    mode: 'extractive',
    confidence: 'high',
    refused: false,
    refusal: null,
    domain: 'car',
    lang: 'he',
    searchedQuery: 'שמשה',
    searchMode: 'bm25',
    retrieved: [],
    timings: { route: 0, embed: 0, search: 0, grade: 0, generate: 0, ground: 0, total: 0 },
  };
  await storeConversation(page, [
    { role: 'user', text: 'שמשה', at: 1 },
    { role: 'assistant', text: answer.text, answer, at: 2 },
  ]);
  await page.reload();
  const card = page.locator('harel-chat details.card').first();
  await page.locator('harel-chat button.cite').first().click();
  await expect(card).toHaveAttribute('open', '');
  await expect(card.locator('.also')).toContainText('מופיע גם ב:');
  await expect(card.locator('.also')).toContainText('פוליסת רכב 2024');
  await expect(card.locator('a')).toHaveAttribute('href', 'https://insurer.example/car-2025.pdf#page=4');
});

test('Shift+Enter breaks a line, Enter sends', async ({ page }) => {
  await openDemo(page);
  const input = page.locator('harel-chat textarea');
  await input.click();
  await input.pressSequentially('שורה ראשונה');
  await input.press('Shift+Enter');
  await input.pressSequentially('שורה שנייה');
  await expect(input).toHaveValue('שורה ראשונה\nשורה שנייה');
  await expect(page.locator('harel-chat .msg.user')).toHaveCount(0);
  await input.press('Enter');
  await expect(page.locator('harel-chat .msg.user')).toHaveCount(1);
  await expect(input).toHaveValue('');
});

test('copy, ask again and clear act on the conversation, and clearing is kept across a reload', async ({ page, context }) => {
  await context.grantPermissions(['clipboard-read', 'clipboard-write']);
  await openDemo(page);
  const answer = await ask(page, 'לכמה ימים אקבל רכב חלופי אחרי תאונה?');
  const reply = page.locator('harel-chat article.msg.assistant').last();
  await reply.locator('[data-action="copy"]').click();
  await expect(reply.locator('[data-action="copy"]')).toHaveText('הועתק');
  const copied = await page.evaluate(() => navigator.clipboard.readText());
  // The clipboard gets what a reader sees: document runs unwrapped, no isolate marks or joiners.
  expect(copied).toContain(plainAnswerText(answer.text).split('\n')[0]);
  expect(copied).not.toMatch(/[\u2060\u2066-\u2069]/);
  expect(copied).toContain(`[1] ${answer.citations[0].title}`);
  await reply.locator('[data-action="retry"]').click();
  await expect(page.locator('harel-chat .msg.user')).toHaveCount(2);
  await expect(page.locator('harel-chat article.msg.assistant[data-refused]')).toHaveCount(2);
  await page.locator('harel-chat [part~="clear-button"]').click();
  await expect(page.locator('harel-chat .msg')).toHaveCount(0);
  await expect(page.locator('harel-chat [part~="starters"]')).toBeVisible();
  await page.reload();
  await expect(page.locator('harel-chat [part~="status"]')).toHaveAttribute('data-state', 'ready', { timeout: 30_000 });
  await expect(page.locator('harel-chat .msg')).toHaveCount(0);
});

test('is usable 360 px wide', async ({ page }) => {
  await page.setViewportSize({ width: 360, height: 740 });
  await openDemo(page);
  await ask(page, 'מה ההשתתפות העצמית בתביעה על נזקי מים בביטוח הדירה?');
  const overflow = await page.evaluate(() => document.documentElement.scrollWidth - document.documentElement.clientWidth);
  expect(overflow).toBeLessThanOrEqual(0);
  await expect(page.locator('harel-chat textarea')).toBeInViewport();
  await expect(page.locator('harel-chat [part~="send-button"]')).toBeInViewport();
});
