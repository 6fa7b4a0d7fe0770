/**
 * "Add your policy" in a real Chromium against the demo (issue 36): the panel's button (through
 * the file chooser) and the panel as a drop target add a PDF written here, the list shows it, a
 * question about it is answered citing "your document, page N" whose page opens from this device,
 * the remove buttons delete it (and the answer that quoted it), a bad file is refused in the page's language with nothing else
 * lost, and the whole flow works from the keyboard alone.
 *
 * The PDF is a three-page policy for a sailboat, words the demo's own index never uses, so an
 * answer citing it can only have come from the customer's document.
 */
import { expect, type Locator, type Page, test } from '@playwright/test';
import type { Answer } from '../../widget/answer/types.ts';
import type { DeviceDocumentInfo } from '../../widget/core/device/device-document.ts';
import { policyPdf } from '../fixtures/device-pdfs/device-pdfs.ts';

const PAGES: [string, string][] = [
  ['Marlin Sailboat Policy', 'Policy number MS-20417. This policy covers the sailboat Marlin and its equipment.'],
  ['Hull damage', 'The deductible for hull damage to the sailboat Marlin is 4,750 dollars per claim.'],
  ['Theft of equipment', 'Theft of the outboard engine is covered up to 12,000 dollars when the engine was locked to the boat.'],
];

/** The sailboat policy: one heading and one sentence a page. */
const sailboatPdf = (): Buffer => Buffer.from(policyPdf(PAGES));

const FILE = { name: 'marlin-sailboat.pdf', mimeType: 'application/pdf', buffer: sailboatPdf() };
const QUESTION = 'What is the deductible for hull damage to my sailboat?';

const part = (page: Page, name: string): Locator => page.locator(`harel-chat [part~="${name}"]`);

async function openDemo(page: Page, lang: 'he' | 'en' = 'en'): Promise<void> {
  await page.goto(`/?lang=${lang}`);
  await expect(part(page, 'status')).toHaveAttribute('data-state', 'ready', { timeout: 30_000 });
}

function ask(page: Page, question: string): Promise<Answer> {
  return page.evaluate((q) => document.querySelector('harel-chat')!.ask(q), question);
}

function documents(page: Page): Promise<DeviceDocumentInfo[]> {
  return page.evaluate(() => document.querySelector('harel-chat')!.documents);
}

/** The element of the panel that has focus (inside its shadow root), by its part. */
function focusedPart(page: Page): Promise<string | null> {
  return page.evaluate(() => document.querySelector('harel-chat')!.shadowRoot!.activeElement?.getAttribute('part') ?? null);
}

test.beforeEach(async ({ context }) => {
  await context.clearCookies();
});

test('the button adds the PDF: listed, answered from it as "your document, page N", its page opened from this device, then removed', async ({ page }) => {
  const events: number[] = [];
  await page.exposeFunction('recordDocuments', (count: number) => events.push(count));
  await page.addInitScript(() => {
    addEventListener('harel-chat:documents', (e) => (window as unknown as { recordDocuments(n: number): void }).recordDocuments((e as CustomEvent).detail.documents.length));
  });
  await openDemo(page);
  await expect(part(page, 'documents-privacy')).toHaveText('Your document stays on this device and is never uploaded; removing it deletes it from this browser.');

  const chooser = page.waitForEvent('filechooser');
  await part(page, 'add-document-button').click();
  await (await chooser).setFiles(FILE);

  const item = part(page, 'document');
  await expect(item).toHaveCount(1, { timeout: 30_000 });
  await expect(part(page, 'document-addition')).toHaveCount(0);
  await expect(item.locator('[part~="document-name"]')).toHaveText('marlin-sailboat.pdf');
  await expect(item).toContainText('3 pages');
  await expect(item.locator('[part~="document-status"]')).toHaveText(/^(Answers by words now; meaning search \d+%|Ready.*)$/);
  // Said as it happens: added (answers by words), then ready once its meaning search is done (a
  // three-page document may be embedded before the list is read).
  await expect(part(page, 'documents-announcer')).toHaveText(/marlin-sailboat\.pdf\u2069 is (added\. You can ask about it now|ready, for meaning search too)\./);
  const [info] = await documents(page);
  expect(info).toMatchObject({ name: 'marlin-sailboat.pdf', pages: 3, lang: 'en' });
  await expect.poll(() => events.at(-1)).toBe(1);

  const answer = await ask(page, QUESTION);
  expect(answer.refused).toBe(false);
  const cited = answer.citations.find((c) => c.origin === 'device');
  expect(cited).toMatchObject({ deviceDocument: info.id, page: 2, url: null });
  expect(answer.text).toContain('4,750');

  const card = page.locator(`harel-chat details.card[data-origin="device"][data-page="2"]`).first();
  await expect(card.locator('summary')).toContainText('Your document — \u2068marlin-sailboat.pdf\u2069, page 2');
  await expect(card.locator('a')).toHaveCount(0);
  await card.locator('summary').click();
  await card.locator('[part~="device-page-button"]').click();
  const shownPage = card.locator('[part~="device-page"]');
  await expect(shownPage).toHaveAttribute('data-state', 'shown');
  await expect(shownPage).toContainText('The deductible for hull damage to the sailboat Marlin is 4,750 dollars per claim.');
  await expect(shownPage).toHaveAttribute('dir', 'auto');

  await item.locator('[part~="document-remove"]').click();
  await expect(part(page, 'document')).toHaveCount(0);
  expect(await documents(page)).toEqual([]);
  await expect(part(page, 'documents-announcer')).toHaveText('\u2068marlin-sailboat.pdf\u2069 is removed from this device.');
  await expect.poll(() => events.at(-1)).toBe(0);
  // The answer that quoted it goes with it (its words were the document's); asked again, the answer no longer comes from it.
  await expect(page.locator('harel-chat details.card[data-origin="device"]')).toHaveCount(0);
  const after = await ask(page, QUESTION);
  expect(after.citations.some((c) => c.origin === 'device')).toBe(false);
});

test('a PDF dropped on the panel is added; a drag of text is left alone', async ({ page }) => {
  await openDemo(page);
  const panel = part(page, 'panel');
  // A drag of text (not files) is not taken: no highlight, and the drop is not prevented.
  const textDrag = await page.evaluate(() => {
    const target = document.querySelector('harel-chat')!.shadowRoot!.querySelector('.panel')!;
    const data = new DataTransfer();
    data.setData('text/plain', 'hello');
    target.dispatchEvent(new DragEvent('dragenter', { dataTransfer: data, bubbles: true, composed: true, cancelable: true }));
    const over = new DragEvent('dragover', { dataTransfer: data, bubbles: true, composed: true, cancelable: true });
    target.dispatchEvent(over);
    return { taken: over.defaultPrevented, dropping: target.hasAttribute('data-dropping') };
  });
  expect(textDrag).toEqual({ taken: false, dropping: false });

  const bytes = [...FILE.buffer];
  await page.evaluate(
    async ({ bytes, name }) => {
      const target = document.querySelector('harel-chat')!.shadowRoot!.querySelector('.panel')!;
      const data = new DataTransfer();
      data.items.add(new File([new Uint8Array(bytes)], name, { type: 'application/pdf' }));
      target.dispatchEvent(new DragEvent('dragenter', { dataTransfer: data, bubbles: true, composed: true, cancelable: true }));
      target.dispatchEvent(new DragEvent('dragover', { dataTransfer: data, bubbles: true, composed: true, cancelable: true }));
      await document.querySelector('harel-chat')!.updateComplete;
    },
    { bytes, name: FILE.name },
  );
  await expect(panel).toHaveAttribute('data-dropping', '');
  await expect(part(page, 'drop-overlay')).toHaveText('Drop to add the file');
  await page.evaluate(
    ({ bytes, name }) => {
      const target = document.querySelector('harel-chat')!.shadowRoot!.querySelector('.panel')!;
      const data = new DataTransfer();
      data.items.add(new File([new Uint8Array(bytes)], name, { type: 'application/pdf' }));
      target.dispatchEvent(new DragEvent('drop', { dataTransfer: data, bubbles: true, composed: true, cancelable: true }));
    },
    { bytes, name: FILE.name },
  );
  await expect(panel).not.toHaveAttribute('data-dropping', '');
  await expect(part(page, 'document')).toHaveCount(1, { timeout: 30_000 });
  await expect(part(page, 'document-name')).toHaveText(FILE.name);
});

test('a file that is not a PDF is refused in Hebrew with its code, and the conversation and the document added before stay', async ({ page }) => {
  const errors: string[] = [];
  await page.exposeFunction('recordError', (code: string) => errors.push(code));
  await page.addInitScript(() => {
    addEventListener('harel-chat:error', (e) => (window as unknown as { recordError(c: string): void }).recordError((e as CustomEvent).detail.code));
  });
  await openDemo(page, 'he');
  await part(page, 'document-input').setInputFiles(FILE);
  await expect(part(page, 'document')).toHaveCount(1, { timeout: 30_000 });
  await ask(page, 'מה מכסה ביטוח הדירה?');
  const turns = await page.locator('harel-chat [part~="message"]').count();

  await part(page, 'document-input').setInputFiles({ name: 'notes.txt', mimeType: 'text/plain', buffer: Buffer.from('Policy number 12345\nnot a PDF\n'.repeat(20)) });
  const notice = part(page, 'document-error');
  await expect(notice).toHaveAttribute('data-code', 'DOCUMENT_NOT_PDF', { timeout: 30_000 });
  // The name isolated in the Hebrew sentence, so the file name keeps its order.
  await expect(notice).toContainText('\u2068notes.txt\u2069 אינו קובץ PDF');
  expect(errors).toContain('DOCUMENT_NOT_PDF');
  await expect(part(page, 'document')).toHaveCount(1);
  await expect(page.locator('harel-chat [part~="message"]')).toHaveCount(turns);

  // The same PDF again: refused as a duplicate, one copy kept.
  await part(page, 'document-input').setInputFiles({ ...FILE, name: 'copy.pdf' });
  await expect(notice).toHaveAttribute('data-code', 'DOCUMENT_DUPLICATE', { timeout: 30_000 });
  await expect(part(page, 'document')).toHaveCount(1);
  await page.evaluate(() => document.querySelector('harel-chat')!.removeAllDocuments());
  await expect(part(page, 'document')).toHaveCount(0);
});

test('keyboard only: Tab to "Add your policy", Enter opens the file chooser, the remove button by Enter, focus back on the add button', async ({ page }) => {
  await openDemo(page);
  await page.evaluate(() => document.querySelector('harel-chat')!.searchReady);
  // Listening for the chooser before any key is pressed: Playwright turns on its file-chooser
  // interception asynchronously, and a chooser opened before that is not reported.
  const chooser = page.waitForEvent('filechooser');
  let reached = false;
  for (let i = 0; i < 30 && !reached; i++) {
    await page.keyboard.press('Tab');
    reached = (await focusedPart(page)) === 'add-document-button';
  }
  expect(reached).toBe(true);
  // Its accessible name says what it does, and the privacy line describes it.
  await expect(part(page, 'add-document-button')).toHaveAccessibleName('Add your policy');
  await expect(part(page, 'add-document-button')).toHaveAccessibleDescription(/never uploaded/);

  expect(await focusedPart(page)).toBe('add-document-button');
  await page.keyboard.press('Enter');
  await (await chooser).setFiles(FILE);
  await expect(part(page, 'document')).toHaveCount(1, { timeout: 30_000 });

  const remove = part(page, 'document-remove');
  await expect(remove).toHaveAccessibleName(/marlin-sailboat\.pdf/);
  let onRemove = false;
  for (let i = 0; i < 10 && !onRemove; i++) {
    await page.keyboard.press('Tab');
    onRemove = (await focusedPart(page)) === 'document-remove';
  }
  expect(onRemove).toBe(true);
  await page.keyboard.press('Enter');
  await expect(part(page, 'document')).toHaveCount(0);
  await expect.poll(() => focusedPart(page)).toBe('add-document-button');
});
