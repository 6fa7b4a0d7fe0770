/**
 * A published index that lies (untrusted text: links and direction): document URLs with script schemes, and
 * passages holding their own "[1]", "[2] [99]" and a right-to-left override. The build served to
 * the browser is rewritten in flight, its manifest updated with the new sizes, hashes and build
 * id, as a hostile or hand-edited publication would be; the builder's own checks never see it, so
 * what is tested here is the widget's.
 */
import { createHash } from 'node:crypto';
import { gunzipSync, gzipSync } from 'node:zlib';
import { expect, test, type Page } from '@playwright/test';
import { answerSegments } from '../../widget/answer/document-text.ts';
import type { Answer } from '../../widget/answer/types.ts';
import { decodeChunkStore, encodeChunkStore } from '../../widget/core/format/chunk-store.ts';
import { storeConversation } from '../support/stored-conversation.ts';

// The demo index is one fragment of each kind (88 chunks): its chunks are all in chunks-0.
type Role = 'documents' | 'chunks-0';
const FILES: Record<Role, string> = { documents: 'documents.json.gz', 'chunks-0': 'chunks-0.bin.gz' };

/** Serves `role`'s file rewritten by `rewrite` (gunzipped bytes in, bytes out), manifest to match. */
async function serveRewritten(page: Page, role: Role, rewrite: (raw: Uint8Array) => Uint8Array): Promise<void> {
  const served = async (original: Buffer) => {
    const raw = rewrite(new Uint8Array(gunzipSync(original)));
    return { raw, body: gzipSync(raw) };
  };
  await page.route(`**/index/${FILES[role]}`, async (route) => {
    const response = await route.fetch();
    await route.fulfill({ response, body: (await served(await response.body())).body });
  });
  await page.route('**/index/manifest.json', async (route) => {
    const response = await route.fetch();
    const manifest = await response.json();
    const { raw, body } = await served(await (await page.request.get(`/index/${FILES[role]}`)).body());
    // gzip of the same input is deterministic here: the route above serves these very bytes.
    manifest.files[role].bytes = body.length;
    manifest.files[role].rawBytes = raw.length;
    manifest.files[role].sha256 = createHash('sha256').update(body).digest('hex');
    manifest.buildId = `${manifest.buildId}-${role}-rewritten`;
    await route.fulfill({ response, json: manifest });
  });
}

async function openDemo(page: Page): Promise<void> {
  await page.goto('/');
  await expect(page.locator('harel-chat [part~="status"]')).toHaveAttribute('data-state', 'ready', { timeout: 30_000 });
}

function ask(page: Page, question: string): Promise<Answer> {
  return page.evaluate((q) => document.querySelector('harel-chat')!.ask(q), question);
}

const pwned = (page: Page) => page.evaluate(() => (window as unknown as { __pwned?: number }).__pwned ?? 0);

test('a document URL with a script scheme never becomes a link; http(s) and relative ones do', async ({ page }) => {
  // Every document gets a hostile URL except the two that keep a good one; the documents these
  // questions cite get the plainest disguises, the others the rest in turn.
  const citedFiles = ['car/pages/roadside-assistance.txt', 'health/pages/surgery-approval.html', 'health/pages/faq.txt', 'health/files/health-policy.md'];
  const hostile = [
    'javascript:window.__pwned=1',
    ' JaVaScRiPt:window.__pwned=2',
    '\u0001javascript:window.__pwned=3',
    'java\tscript:window.__pwned=4',
    'java\nscript:window.__pwned=5',
    '&#106;avascript:window.__pwned=6',
    'javascript&colon;window.__pwned=7',
    'data:text/html,<script>opener.__pwned=8</script>',
    'vbscript:msgbox(9)',
    'https://insurer.example@evil.example/',
  ];
  const good: Record<string, string> = {
    'car/pages/claims.html': '/policies/car-claims',
    'car/files/car-policy.md': 'https://insurer.example/car/policy.pdf',
  };
  const urls = new Map<string, string>();
  await serveRewritten(page, 'documents', (raw) => {
    const documents = JSON.parse(new TextDecoder().decode(raw)) as { file: string; url: string | null }[];
    let next = citedFiles.length;
    documents.forEach((d) => {
      const first = citedFiles.indexOf(d.file);
      d.url = good[d.file] ?? hostile[first >= 0 ? first : next++ % hostile.length];
      urls.set(d.file, d.url);
    });
    return new TextEncoder().encode(JSON.stringify(documents));
  });
  await openDemo(page);
  const answers = [await ask(page, 'כמה השתתפות עצמית אשלם על החלפת שמשה קדמית?'), await ask(page, 'איך מגישים תביעה בביטוח רכב?'), await ask(page, 'מהי תקופת האכשרה לניתוחים בביטוח הבריאות?')];
  const cited = answers.flatMap((a) => a.citations);
  expect(cited.length).toBeGreaterThan(2);
  // The answers cite documents with each kind of URL, so every branch below is exercised.
  for (const file of [...Object.keys(good), ...citedFiles]) expect(cited.map((c) => c.file)).toContain(file);
  for (const c of cited) expect(c.url).toBe(good[c.file] ?? null);

  const cards = page.locator('harel-chat details.card');
  await expect(cards).toHaveCount(cited.length);
  for (const card of await cards.all()) {
    const file = (await card.getAttribute('data-file'))!;
    expect(urls.has(file)).toBe(true);
    const link = card.locator('a[part~="citation-link"]');
    if (file === 'car/pages/claims.html') await expect(link).toHaveAttribute('href', new URL('/policies/car-claims', page.url()).href);
    else if (file === 'car/files/car-policy.md') await expect(link).toHaveAttribute('href', /^https:\/\/insurer\.example\/car\/policy\.pdf#page=\d+$/);
    // No link at all, and the card still says which document and page it quotes.
    else {
      await expect(link).toHaveCount(0);
      await expect(card.locator('summary')).toContainText(/עמ׳ \d+/);
    }
  }
  // Whatever the card: no element in the widget has an href that is not http(s).
  const hrefs = await page.locator('harel-chat [href]').evaluateAll((els) => els.map((e) => e.getAttribute('href') ?? ''));
  for (const href of hrefs) expect(href).toMatch(/^https?:\/\//);
  expect(await pwned(page)).toBe(0);
});

test('a quoted passage keeps its own [1], [2] [99] as text and shows no bidi override', async ({ page }) => {
  const planted = 'שמשה [1] [2] [99] invoice\u202Efdp.exe';
  await serveRewritten(page, 'chunks-0', (raw) => {
    const { first, chunks } = decodeChunkStore(raw);
    return encodeChunkStore(
      chunks.map((c) => ({ ...c, text: c.text.replaceAll('שמשה', planted) })),
      first,
    );
  });
  await openDemo(page);
  const answer = await ask(page, 'כמה השתתפות עצמית אשלם על החלפת שמשה קדמית?');
  const reply = page.locator('harel-chat article.msg.assistant').last();
  const body = reply.locator('.body');
  await expect(body).toContainText('שמשה [1] [2] [99] invoicefdp.exe');
  // It is quoted in the answer's text as document text (answer/document-text.ts).
  const runs = answerSegments(answer.text).filter((s) => s.kind === 'document');
  expect(runs.some((r) => r.text.includes('[\u20602] [\u206099] invoicefdp.exe'))).toBe(true);
  // Only the engine's markers are buttons: one per marker outside the quotes, none inside them.
  const engineMarkers = answerSegments(answer.text)
    .filter((s) => s.kind === 'engine')
    .reduce((n, s) => n + (s.text.match(/\[\d+\]/g)?.length ?? 0), 0);
  expect(engineMarkers).toBeGreaterThan(0);
  await expect(body.locator('button.cite')).toHaveCount(engineMarkers);
  await expect(body.locator('bdi button')).toHaveCount(0);
  const numbers = await body.locator('button.cite').evaluateAll((els) => els.map((e) => Number(e.getAttribute('data-n'))));
  for (const n of numbers) expect(n).toBeLessThanOrEqual(answer.citations.length);
  await expect(body.locator('bdi').filter({ hasText: '[2] [99]' }).first()).toBeVisible();

  // No bidi embedding, override or isolate anywhere in the answer's text, cards included.
  await reply
    .locator('details.card')
    .first()
    .evaluate((d) => ((d as HTMLDetailsElement).open = true));
  await expect(reply.locator('blockquote').filter({ hasText: 'invoicefdp.exe' }).first()).toBeVisible();
  const text = await reply.evaluate((el) => el.textContent ?? '');
  expect(text).toContain('invoicefdp.exe');
  expect(text).not.toMatch(/[\u202A-\u202E\u2066-\u2069]/);
});

test('a stored answer whose citations were edited to script URLs and reversed text renders no such link or text', async ({ page }) => {
  await openDemo(page);
  // What the renderer gets when the answer never passed the loop's checks: a conversation in
  // IndexedDB edited by hand (or written by an older widget), shown after a reload.
  const card = (n: number, url: string, title: string) => ({
    n,
    chunkId: `c${n}`,
    file: `car/files/policy-${n}.pdf`,
    page: n + 1,
    url,
    title,
    sectionPath: ['כיסויים\u202E'],
    clause: null,
    quote: `החלפת שמשה [${n + 1}] כרוכה בהשתתפות עצמית invoice\u202Efdp.exe`,
    alsoIn: [],
  });
  const citations = [
    card(1, 'javascript:window.__pwned=1', 'פוליסה \u202Eאחת'),
    card(2, '  JaVaScRiPt:window.__pwned=2', 'פוליסה \u2067שתיים'),
    card(3, '&#x6A;avascript:window.__pwned=3', 'פוליסה שלוש'),
    card(4, 'data:text/html,<script>opener.__pwned=4</script>', 'פוליסה ארבע'),
    card(5, '/policies/car.pdf', 'פוליסה חמש'),
  ];
  const stored = `לפי הפוליסה:\n“\u2068החלפת שמשה [\u20602] [\u206099] כרוכה בהשתתפות עצמית invoice\u202Efdp.exe\u2069” [1][2][3][4][5]`;
  const answer = {
    text: stored,
    citations,
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
    { role: 'assistant', text: stored, answer, at: 2 },
  ]);
  await page.reload();
  const reply = page.locator('harel-chat article.msg.assistant').last();
  await expect(reply.locator('details.card')).toHaveCount(5);
  await reply.locator('details.card').evaluateAll((cards) => cards.forEach((d) => ((d as HTMLDetailsElement).open = true)));
  const links = reply.locator('a[part~="citation-link"]');
  await expect(links).toHaveCount(1);
  await expect(links).toHaveAttribute('href', new URL('/policies/car.pdf#page=6', page.url()).href);
  const hrefs = await page.locator('harel-chat [href]').evaluateAll((els) => els.map((e) => e.getAttribute('href') ?? ''));
  for (const href of hrefs) expect(href).toMatch(/^https?:\/\//);
  // The quote's own [2] [99] are text; the five markers after it are the buttons.
  await expect(reply.locator('.body button.cite')).toHaveCount(5);
  await expect(reply.locator('.body')).toContainText('שמשה [2] [99] כרוכה');
  const text = await reply.evaluate((el) => el.textContent ?? '');
  expect(text).toContain('invoicefdp.exe');
  expect(text).toContain('פוליסה אחת');
  expect(text).not.toMatch(/[\u202A-\u202E\u2066-\u2069]/);
  expect(await pwned(page)).toBe(0);
});
