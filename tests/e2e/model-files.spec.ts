/**
 * Damaged query-model files in Chromium (the model-file fuzzer, tests/fuzz/
 * model-files.ts, runs thousands of them through the same code in Node): a bit-flipped ONNX file
 * and a cut-short or bit-flipped `.q4w` weights file are refused before any question is embedded,
 * the index answers by BM25, and the details say why. The tiny TEST embedder on the tests' server;
 * for the q4f32 pair, the manifest is answered with `queryDtype: 'q4f32'` and the pair written by
 * tests/fuzz/model-fixtures.ts is served in place of the real E5's, so the widget's q4f32 path
 * (expand the 4-bit blocks, hand them to onnxruntime as external data) runs on a small model.
 */
import { expect, test, type Page } from '@playwright/test';
import type { IndexInfo } from '../../widget/search/search-service.ts';
import { tinyQ4f32Pair } from '../fuzz/model-fixtures.ts';

const MODEL = '/models/fixture/tiny-embedder/';
const QUESTION = 'How soon must I report a home insurance claim?';

const flipped = (bytes: Uint8Array, at: number, bit: number) => {
  const out = bytes.slice();
  out[at] ^= 1 << bit;
  return out;
};

/** Answers the manifest with `queryDtype: 'q4f32'` and the tiny pair (`q4w` changed by `damage`) under the model's folder. */
async function serveQ4f32(page: Page, damage: { onnx?: (b: Uint8Array) => Uint8Array; q4w?: (b: Uint8Array) => Uint8Array }): Promise<void> {
  const tokenizer = new Uint8Array(await (await page.request.get(`${MODEL}tokenizer.json`)).body());
  const pair = tinyQ4f32Pair(tokenizer);
  await page.route('**/manifest.json', async (route) => {
    const response = await route.fetch();
    const manifest = await response.json();
    manifest.embedder.queryDtype = 'q4f32';
    await route.fulfill({ response, json: manifest });
  });
  await page.route(`**${MODEL}onnx/model_q4f32.onnx`, (route) => route.fulfill({ status: 200, contentType: 'application/octet-stream', body: Buffer.from(damage.onnx?.(pair.onnx) ?? pair.onnx) }));
  await page.route(`**${MODEL}onnx/model_q4f32.q4w`, (route) => route.fulfill({ status: 200, contentType: 'application/octet-stream', body: Buffer.from(damage.q4w?.(pair.q4w) ?? pair.q4w) }));
}

async function searchReady(page: Page): Promise<IndexInfo> {
  return page.evaluate(async () => {
    await customElements.whenDefined('harel-chat');
    return document.querySelector('harel-chat')!.searchReady;
  });
}

/** The index answers by BM25 with citations, the details name the model and `reason`, and the page hears no error. */
async function expectBm25WithReason(page: Page, reason: RegExp): Promise<void> {
  const info = await searchReady(page);
  expect(info).toMatchObject({ searchMode: 'bm25', embedderStatus: 'failed' });
  expect(info.embedderError).toMatch(reason);
  const details = page.locator('harel-chat [part~="search-info"]');
  await expect(details).toHaveAttribute('data-embedder', 'failed');
  await expect(details).toContainText('Search: words only (BM25) — ');
  await expect(details.locator('.reason')).toContainText(reason);
  const answer = await page.evaluate(async (q) => {
    const a = await document.querySelector('harel-chat')!.ask(q);
    return { searchMode: a.searchMode, citations: a.citations.length, refused: a.refused, embed: a.timings.embed };
  }, QUESTION);
  expect(answer).toMatchObject({ searchMode: 'bm25', refused: false, embed: 0 });
  expect(answer.citations).toBeGreaterThan(0);
}

test('a bit-flipped ONNX file for the model leaves BM25 answering with the reason in the details', async ({ page }) => {
  const errors: string[] = [];
  page.on('pageerror', (e) => errors.push(e.message));
  // The first byte of the ONNX protobuf (ir_version's tag) with its top bit set: no longer a model.
  await page.route(`**${MODEL}onnx/*.onnx`, async (route) => {
    const response = await route.fetch();
    await route.fulfill({ response, body: Buffer.from(flipped(new Uint8Array(await response.body()), 0, 7)) });
  });
  await page.goto('/?lang=en');
  await expectBm25WithReason(page, /protobuf parsing failed/);
  expect(errors).toEqual([]);
});

const DAMAGED_WEIGHTS: [string, (b: Uint8Array) => Uint8Array, RegExp][] = [
  ['cut in half', (b) => b.subarray(0, Math.floor(b.length / 2)), /\.q4w holds \d+ bytes of blocks, its header says \d+/],
  ['with a bit flipped in its magic', (b) => flipped(b, 0, 2), /not a \.q4w weights file/],
];

for (const [name, damage, reason] of DAMAGED_WEIGHTS) {
  test(`a q4f32 weights file (.q4w) ${name} leaves BM25 answering with the reason in the details`, async ({ page }) => {
    await serveQ4f32(page, { q4w: damage });
    await page.goto('/?lang=en');
    await expectBm25WithReason(page, reason);
  });
}

test('the intact q4f32 pair of the tiny embedder loads: hybrid search (the damaged ones above fail for their damage alone)', async ({ page }) => {
  await serveQ4f32(page, {});
  await page.goto('/?lang=en');
  expect(await searchReady(page)).toMatchObject({ searchMode: 'hybrid', embedderStatus: 'ready', embedderError: null });
});
