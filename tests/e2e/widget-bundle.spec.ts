/**
 * The widget as a site gets it: `npm run build:widget`'s folder, loaded by a plain HTML page from
 * a plain static server (not Vite), under a strict Content-Security-Policy. The bundle sits on a
 * nested path, so its chunks, workers and onnxruntime's wasm must be found relative to the bundle,
 * and the test embedder is self-hosted through `model-base`: search must come up hybrid with no
 * request leaving the site.
 */
import { createReadStream, existsSync, mkdtempSync, rmSync, statSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { extname, join, resolve, sep } from 'node:path';
import { buildWidgetBundle } from '../support/build-widget.ts';
import { expect, test } from '@playwright/test';
import { ORT_WASM_FILES } from '../../widget/embed/model-location.ts';

/**
 * The README's strictest policy, sent on every response: the workers' scripts carry it too, so
 * their wasm needs 'wasm-unsafe-eval' and transformers.js's import of onnxruntime's loader as a
 * blob: URL needs blob:.
 */
const CSP = "default-src 'self'; script-src 'self' 'wasm-unsafe-eval' blob:";

const BUNDLE_PATH = '/static/harel-chat/';
const TYPES: Record<string, string> = {
  '.html': 'text/html; charset=utf-8',
  '.js': 'text/javascript',
  '.mjs': 'text/javascript',
  '.json': 'application/json',
  '.wasm': 'application/wasm',
};

const PAGE = `<!doctype html>
<html lang="he" dir="rtl">
<head><meta charset="utf-8"><title>bundle test</title>
<script type="module" src="${BUNDLE_PATH}harel-chat.js"></script></head>
<body><harel-chat index="/index/manifest.json" model-base="/models/" mode="extractive"></harel-chat></body>
</html>`;

let outDir = '';
let server: Server;
let origin = '';
const served: string[] = [];

/** `/prefix/…` → a file under `folder`, nothing outside it. */
function mount(prefix: string, folder: string) {
  return (path: string): string | null => {
    if (!path.startsWith(prefix)) return null;
    const dir = resolve(folder);
    const file = resolve(join(dir, path.slice(prefix.length)));
    return file.startsWith(dir + sep) && existsSync(file) && statSync(file).isFile() ? file : null;
  };
}

test.beforeAll(async () => {
  test.setTimeout(60_000);
  outDir = mkdtempSync(join(tmpdir(), 'harel-widget-'));
  await buildWidgetBundle(outDir);
  const mounts = [
    mount(BUNDLE_PATH, outDir),
    mount('/index/', 'demo/.generated/index'),
    mount('/models/', 'tests/fixtures/.generated'),
  ];
  server = createServer((req, res) => {
    const path = decodeURIComponent(new URL(req.url ?? '/', 'http://x').pathname);
    served.push(path);
    res.setHeader('Content-Security-Policy', CSP);
    if (path === '/') {
      res.setHeader('Content-Type', TYPES['.html']);
      res.end(PAGE);
      return;
    }
    const file = mounts.map((m) => m(path)).find(Boolean);
    if (!file) {
      res.statusCode = 404;
      res.end();
      return;
    }
    res.setHeader('Content-Type', TYPES[extname(file)] ?? 'application/octet-stream');
    res.setHeader('Content-Length', statSync(file).size);
    createReadStream(file).pipe(res);
  });
  await new Promise<void>((ready) => server.listen(0, '127.0.0.1', ready));
  origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});

test.afterAll(async () => {
  await new Promise((done) => server?.close(done));
  if (outDir) rmSync(outDir, { recursive: true, force: true });
});

test('the built bundle answers from a static page, hybrid, under a strict CSP, nothing leaving the site', async ({ page }) => {
  const outside: string[] = [];
  const violations: string[] = [];
  page.context().on('request', (request) => {
    const url = request.url();
    if (!url.startsWith(`${origin}/`) && !/^(data|blob):/.test(url)) outside.push(url);
  });
  page.on('console', (message) => {
    if (/Content.Security.Policy|Refused to/i.test(message.text())) violations.push(message.text());
  });

  await page.goto(`${origin}/`);
  const info = await page.evaluate(async () => {
    const el = document.querySelector('harel-chat')!;
    await customElements.whenDefined('harel-chat');
    const ready = await el.ready;
    return { searchMode: ready.searchMode, embedderError: ready.embedderError, chunkCount: ready.chunkCount };
  });
  expect(info.embedderError).toBeNull();
  expect(info.searchMode).toBe('hybrid');
  expect(info.chunkCount).toBeGreaterThan(0);

  const answer = await page.evaluate(() => document.querySelector('harel-chat')!.ask('כמה השתתפות עצמית אשלם על החלפת שמשה קדמית?'));
  expect(answer.refused).toBe(false);
  expect(answer.citations.length).toBeGreaterThan(0);
  expect(answer.citations.some((c) => c.file.startsWith('car/'))).toBe(true);
  await expect(page.locator('harel-chat [part~="search-badge"]')).toHaveAttribute('data-search', 'hybrid');

  // The runtime came from beside the bundle, the embedder from model-base, the workers as chunks.
  expect(served).toContain(`${BUNDLE_PATH}ort/${ORT_WASM_FILES.wasm}`);
  expect(served).toContain('/models/fixture/tiny-embedder/onnx/model_quantized.onnx');
  expect(served.some((p) => p.startsWith(`${BUNDLE_PATH}search-worker-`))).toBe(true);
  expect(outside).toEqual([]);
  expect(violations).toEqual([]);
});
