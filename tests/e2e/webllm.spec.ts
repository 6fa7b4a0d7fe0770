/**
 * The WebLLM engine's path in a real Chromium with the SwiftShader WebGPU adapter, up to the model
 * download. No Gemma weights or compiled model libraries exist on these machines (and no network),
 * so the test serves a self-hosted `model-base` of descriptor files through page.route: the engine
 * checks the GPU, picks the q4f32 variant, reads the descriptors (progress, exact size), starts
 * web-llm in its worker — which fetches the config and the model library from that model-base —
 * and is then cancelled, or fails with the error a site owner would need. Generating text is not
 * exercised here: it needs the real library and weights.
 */
import { expect, test, type Page, type Route } from '@playwright/test';
import type { GpuReport, VariantChoice } from '../../widget/engines/webllm/gpu-check.ts';
import type { LoadOutcome } from '../../demo/dev/webllm-check.ts';

const VARIANT = 'gemma-2-2b-it-q4f32_1-MLC';
const LIB = 'gemma-2-2b-it-q4f32_1_cs1k-webgpu.wasm';
const SHARDS = 38;
const SHARD_BYTES = 33_554_432;

/** The shape of a real gemma-2-2b mlc-chat-config.json (values abridged; web-llm reads it before the library). */
const chatConfig = {
  model_type: 'gemma2',
  quantization: 'q4f32_1',
  vocab_size: 256000,
  context_window_size: 4096,
  sliding_window_size: -1,
  prefill_chunk_size: 1024,
  attention_sink_size: -1,
  tensor_parallel_shards: 1,
  temperature: 1,
  presence_penalty: 0,
  frequency_penalty: 0,
  repetition_penalty: 1,
  top_p: 1,
  tokenizer_files: ['tokenizer.model', 'tokenizer.json', 'tokenizer_config.json'],
  tokenizer_info: { token_postproc_method: 'byte_fallback', prepend_space_in_encode: false, strip_space_in_decode: false },
  conv_template: {
    name: 'gemma_instruction',
    system_template: '{system_message}',
    system_message: '',
    roles: { user: '<start_of_turn>user', assistant: '<start_of_turn>model' },
    seps: ['<end_of_turn>\n'],
    role_content_sep: '\n',
    role_empty_sep: '\n',
    stop_str: ['<end_of_turn>'],
    system_prefix_token_ids: [2],
    stop_token_ids: [1, 107],
  },
  pad_token_id: 0,
  bos_token_id: 2,
  eos_token_id: [1, 107],
};

/** tensor-cache.json: shards of raw records, as web-llm 0.2.86 names and reads it. */
const tensorCache = {
  metadata: { ParamSize: 288, ParamBytes: SHARDS * SHARD_BYTES, BitsPerParam: 5 },
  records: Array.from({ length: SHARDS }, (_, i) => ({
    dataPath: `params_shard_${i}.bin`,
    format: 'raw-shard',
    nbytes: SHARD_BYTES,
    records: [{ name: `model.layers.${i}.weight`, shape: [SHARD_BYTES / 4], dtype: 'uint32', format: 'raw', nbytes: SHARD_BYTES, byteOffset: 0 }],
    md5sum: '0'.repeat(32),
  })),
};

interface Served {
  urls: string[];
  libRequested: Promise<void>;
}

/** Serves /models/ as a self-hosted model-base. `lib` decides what the model library request gets. */
async function serveModelBase(page: Page, lib: 'hang' | 'junk'): Promise<Served> {
  const urls: string[] = [];
  let libSeen: () => void = () => undefined;
  const libRequested = new Promise<void>((resolve) => (libSeen = resolve));
  const held: Route[] = [];
  await page.route('**/models/**', async (route) => {
    const request = route.request();
    const path = new URL(request.url()).pathname;
    urls.push(`${request.method()} ${path}`);
    if (path === `/models/${VARIANT}/resolve/main/mlc-chat-config.json`) return route.fulfill({ json: chatConfig });
    if (path === `/models/${VARIANT}/resolve/main/tensor-cache.json`) return route.fulfill({ json: tensorCache });
    if (path === `/models/libs/${LIB}`) {
      if (request.method() === 'HEAD') return route.fulfill({ status: 200, contentType: 'application/wasm', body: '' });
      libSeen();
      if (lib === 'junk') return route.fulfill({ status: 200, contentType: 'application/wasm', body: Buffer.from('not a wasm module') });
      // A library that never finishes arriving: the load is mid-download when the test cancels it.
      held.push(route);
      return;
    }
    return route.fulfill({ status: 404, body: 'not found' });
  });
  page.on('close', () => held.forEach((r) => r.abort().catch(() => undefined)));
  return { urls, libRequested };
}

/** Every request the page and its workers make, to prove none leaves localhost. */
function recordRequests(page: Page): string[] {
  const seen: string[] = [];
  page.context().on('request', (request) => seen.push(request.url()));
  return seen;
}

function expectLocalOnly(urls: string[]): void {
  const foreign = urls.filter((u) => !/^(https?:\/\/(localhost|127\.0\.0\.1)(:\d+)?\/|data:|blob:)/.test(u));
  expect(foreign, 'requests that left localhost').toEqual([]);
}

async function openCheckPage(page: Page): Promise<void> {
  await page.goto('/dev/webllm-check.html');
  await expect(page.locator('#gpu')).not.toHaveAttribute('data-state', 'pending', { timeout: 30_000 });
}

/**
 * Rejects if the page navigates again: the dev server reloads pages when files under it change
 * (others editing the checkout), which would otherwise surface as an unexplained timeout.
 */
function failOnReload(page: Page): Promise<never> {
  const reloaded = new Promise<never>((_, reject) => {
    page.on('framenavigated', (frame) => {
      if (frame === page.mainFrame()) reject(new Error('the page was reloaded mid-test (the dev server saw a file change): rerun'));
    });
  });
  reloaded.catch(() => undefined);
  return reloaded;
}

test('the WebGPU check reports the software adapter and the missing shader-f16, and picks q4f32', async ({ page }) => {
  const requests = recordRequests(page);
  await openCheckPage(page);
  const report = (await page.evaluate(() => window.webllmCheck.report)) as GpuReport;
  expect(report.verdict).toBe('software');
  expect(report.adapter).not.toBeNull();
  expect(report.adapter!.isFallbackAdapter || /swiftshader/i.test(`${report.adapter!.architecture} ${report.adapter!.description}`)).toBe(true);
  expect(report.shaderF16).toBe(false);
  expect(report.features).not.toContain('shader-f16');
  expect(report.limits!.maxStorageBufferBindingSize).toBeGreaterThan(0);
  await expect(page.locator('#gpu')).toHaveAttribute('data-state', 'software');

  const choice = (await page.evaluate(() => window.webllmCheck.choose('gemma-2-2b-it-q4f16_1-MLC'))) as VariantChoice;
  expect(choice).toMatchObject({ ok: true, modelId: VARIANT, switched: true });
  expect(choice.ok && choice.reason).toMatch(/shader-f16/);
  expect(choice.ok && choice.warning).toMatch(/software/);
  expectLocalOnly(requests);
});

test('loads from a self-hosted model-base up to the download, reports progress, and cancels', async ({ page }) => {
  const requests = recordRequests(page);
  const served = await serveModelBase(page, 'hang');
  await openCheckPage(page);
  const reloaded = failOnReload(page);
  await page.evaluate(() => {
    (window as unknown as { pending: Promise<LoadOutcome> }).pending = window.webllmCheck.load({ modelId: 'gemma-2-2b-it-q4f16_1-MLC', modelBase: '/models' });
  });
  // web-llm, in its worker, has read the config and is fetching the model library from the model-base.
  await Promise.race([served.libRequested, reloaded]);
  const progress = await page.evaluate(() => window.webllmCheck.progress);
  expect(progress.length).toBeGreaterThan(0);
  expect(progress.every((p) => p.step === 'download')).toBe(true);
  expect(progress.at(-1)).toMatchObject({ done: 0, total: SHARDS * SHARD_BYTES });
  await expect(page.locator('#load-status')).toHaveAttribute('data-state', 'loading');

  await page.evaluate(() => window.webllmCheck.abort());
  const outcome = await page.evaluate(() => (window as unknown as { pending: Promise<LoadOutcome> }).pending);
  expect(outcome).toMatchObject({ ok: false, code: 'MODEL_LOAD_ABORTED' });
  expect(outcome.message).toContain(VARIANT);
  await expect(page.locator('#load-status')).toHaveAttribute('data-code', 'MODEL_LOAD_ABORTED');

  const configReads = served.urls.filter((u) => u === `GET /models/${VARIANT}/resolve/main/mlc-chat-config.json`);
  expect(configReads.length, 'the preflight and web-llm both read the config from the model-base').toBeGreaterThanOrEqual(2);
  expect(served.urls).toContain(`GET /models/libs/${LIB}`);
  expectLocalOnly(requests);
});

test('a model-base without the model fails with MODEL_DOWNLOAD_FAILED naming the URL', async ({ page }) => {
  const requests = recordRequests(page);
  await page.route('**/missing-models/**', (route) => route.fulfill({ status: 404, body: 'not found' }));
  await openCheckPage(page);
  const outcome = (await page.evaluate(() => window.webllmCheck.load({ modelId: 'gemma-2-2b-it-q4f16_1-MLC', modelBase: '/missing-models' }))) as LoadOutcome;
  expect(outcome.code).toBe('MODEL_DOWNLOAD_FAILED');
  expect(outcome.message).toMatch(new RegExp(`/missing-models/${VARIANT}/resolve/main/mlc-chat-config\\.json`));
  expect(outcome.message).toMatch(/HTTP 404/);
  expect(outcome.message).toMatch(/model-base/);
  expectLocalOnly(requests);
});

test('a model library that is not WebAssembly fails with MODEL_LOAD_FAILED from the worker', async ({ page }) => {
  const requests = recordRequests(page);
  await serveModelBase(page, 'junk');
  await openCheckPage(page);
  const outcome = (await page.evaluate(() => window.webllmCheck.load({ modelId: 'gemma-2-2b-it-q4f16_1-MLC', modelBase: '/models' }))) as LoadOutcome;
  expect(outcome.code).toBe('MODEL_LOAD_FAILED');
  expect(outcome.message).toMatch(/WebAssembly/);
  expectLocalOnly(requests);
});
