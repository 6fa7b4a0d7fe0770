/**
 * Issue 36's bad input, each through `<harel-chat>`'s `addDocument()` in Chromium: refused with
 * its code, and nothing else lost (the documents already added, the conversation); a second copy;
 * a full storage quota (the browser's own QuotaExceededError, forced through the DevTools
 * protocol); and a tab closed while the document was being embedded (the next visit lists it,
 * finishes its vectors and answers from it).
 */
import { expect, type Page, test } from '@playwright/test';
import type { DeviceDocumentInfo } from '../../widget/core/device/device-document.ts';
import { encryptedPdf, notAPdf, policyPdf, simplePdf } from '../fixtures/device-pdfs/device-pdfs.ts';

/** A policy for a sailboat over `pages` pages (words the demo's index never uses), one mooring clause a page. */
function mooringPdf(pages: number, padding = 0): Uint8Array {
  const clauses = Array.from({ length: pages }, (_, i) => [`Marina ${i + 1}`, `The mooring fee of the sailboat Marlin at marina ${i + 1} is ${(i + 1) * 10} dollars a night.`] as const);
  return policyPdf(clauses, { padding });
}

const b64 = (bytes: Uint8Array) => Buffer.from(bytes).toString('base64');

async function openDemo(page: Page): Promise<void> {
  await page.goto('/?lang=en');
  await expect(page.locator('harel-chat [part~="status"]')).toHaveAttribute('data-state', 'ready', { timeout: 30_000 });
}

/** Adds a file from base64 (or, with `zeros`, a PDF header padded to that many bytes, made in the page); resolves with its info or the error's code. */
function add(page: Page, name: string, base64: string | null, zeros = 0): Promise<{ info?: DeviceDocumentInfo; code?: string; message?: string }> {
  return page.evaluate(
    async ({ name, base64, zeros }) => {
      const bytes = base64 ? Uint8Array.from(atob(base64), (c) => c.charCodeAt(0)) : new Uint8Array(zeros);
      if (!base64) bytes.set(new TextEncoder().encode('%PDF-1.7\n'));
      try {
        return { info: await document.querySelector('harel-chat')!.addDocument(new File([bytes], name, { type: 'application/pdf' })) };
      } catch (error) {
        const e = error as { code?: string; message?: string };
        return { code: e.code, message: e.message };
      }
    },
    { name, base64, zeros },
  );
}

const documents = (page: Page) => page.evaluate(() => document.querySelector('harel-chat')!.documents.map((d) => ({ id: d.id, name: d.name, status: d.embedding.status })));
const turns = (page: Page) => page.evaluate(() => document.querySelector('harel-chat')!.shadowRoot!.querySelectorAll('[part~="message"]').length);

test('each bad file is refused with its code, and the documents and the conversation stay as they were', async ({ page }) => {
  test.setTimeout(180_000);
  await openDemo(page);
  const kept = await add(page, 'good.pdf', b64(mooringPdf(2)));
  expect(kept.info?.pages).toBe(2);
  await page.evaluate(() => document.querySelector('harel-chat')!.ask('What is the deductible for water damage?'));
  // its vectors are made in the background after addDocument() resolves: the snapshot waits until that
  // work ends, so that "as they were" compares documents at rest, not an embedding that moved on meanwhile
  await expect.poll(async () => (await documents(page)).every((d) => d.status !== 'waiting' && d.status !== 'running'), { timeout: 120_000 }).toBe(true);
  const before = { documents: await documents(page), turns: await turns(page) };
  expect(before.turns).toBeGreaterThan(0);

  const cases: [string, string | null, number, string, RegExp][] = [
    ['notes.txt', b64(notAPdf()), 0, 'DOCUMENT_NOT_PDF', /not a PDF/],
    ['locked.pdf', b64(encryptedPdf()), 0, 'DOCUMENT_ENCRYPTED', /password-protected/],
    ['scan.pdf', b64(simplePdf(2, { text: false })), 0, 'DOCUMENT_NO_TEXT', /no text layer/],
    ['huge.pdf', null, 21 * 1024 * 1024, 'DOCUMENT_TOO_LARGE', /up to 20 MB/],
    ['long.pdf', b64(simplePdf(301)), 0, 'DOCUMENT_TOO_MANY_PAGES', /up to 300 pages/],
    ['good-again.pdf', b64(mooringPdf(2)), 0, 'DOCUMENT_DUPLICATE', /already added/],
  ];
  for (const [name, base64, zeros, code, message] of cases) {
    const result = await add(page, name, base64, zeros);
    expect(result.code, name).toBe(code);
    expect(result.message, name).toMatch(message);
    expect(await documents(page), name).toEqual(before.documents);
    expect(await turns(page), name).toBe(before.turns);
  }
});

test('a full storage quota refuses the document with DOCUMENT_STORAGE_QUOTA and keeps nothing of it', async ({ page, context }) => {
  const cdp = await context.newCDPSession(page);
  await page.goto('/manifest.webmanifest');
  const origin = new URL(page.url()).origin;
  // A real QuotaExceededError from IndexedDB: DevTools' per-origin quota override, 1 MB for the
  // origin, and a 3 MB policy (the site's small test index may or may not fit beside it: it answers either way).
  await cdp.send('Storage.overrideQuotaForOrigin', { origin, quotaSize: 1_000_000 });
  const large = b64(mooringPdf(40, 3_000_000));
  try {
    await openDemo(page);
    const result = await add(page, 'policy.pdf', large);
    expect(result.code).toBe('DOCUMENT_STORAGE_QUOTA');
    expect(result.message).toMatch(/not enough browser storage/);
    expect(await documents(page)).toEqual([]);
    const stored = await page.evaluate(
      () =>
        new Promise<number>((ok, fail) => {
          const open = indexedDB.open('harel-chat');
          open.onerror = () => fail(open.error);
          open.onsuccess = () => {
            const tx = open.result.transaction(['device-documents', 'device-files', 'device-vectors']);
            let total = 0;
            let left = 3;
            for (const name of ['device-documents', 'device-files', 'device-vectors']) {
              const count = tx.objectStore(name).count();
              count.onsuccess = () => {
                total += count.result;
                if (--left === 0) {
                  open.result.close();
                  ok(total);
                }
              };
            }
          };
        }),
    );
    expect(stored).toBe(0);
  } finally {
    await cdp.send('Storage.overrideQuotaForOrigin', { origin });
  }
  // With room again, the same file is added.
  expect((await add(page, 'policy.pdf', large)).info?.pages).toBe(40);
});

test('a tab closed while its document was being embedded: the next visit lists it, finishes its vectors and answers from it', async ({ context }) => {
  test.setTimeout(120_000);
  const first = await context.newPage();
  await openDemo(first);
  const added = await add(first, 'policy.pdf', b64(mooringPdf(60)));
  expect(added.info?.chunks).toBeGreaterThan(0);
  // Closed at once: the background embedding may be anywhere (waiting, part-way, done).
  await first.close();

  const next = await context.newPage();
  await openDemo(next);
  await expect.poll(() => documents(next), { timeout: 60_000 }).toEqual([{ id: added.info!.id, name: 'policy.pdf', status: 'done' }]);
  const answer = await next.evaluate(() => document.querySelector('harel-chat')!.ask('What is the mooring fee of the sailboat Marlin at marina 37?'));
  expect(answer.citations[0]).toMatchObject({ origin: 'device', deviceDocument: added.info!.id, page: 37 });
});
