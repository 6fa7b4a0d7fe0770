/**
 * Where transformers.js should look for a model, from the widget's `model-base` attribute.
 * Kept free of transformers.js so the rules can be unit-tested.
 *
 * - no model-base: the Hugging Face hub (remote downloads allowed, nothing local);
 * - a model-base: its absolute URL as transformers.js's *remote* host with the template
 *   '{model}/' (files at `<model-base>/<id>/config.json`, not the hub's `/resolve/main/` layout),
 *   whether it is on the page's origin or another.
 *
 * Why never transformers.js's *local* path, even on the page's origin: a local path is fetched as
 * a bare path ('/models/…'), which resolves against the worker's own URL. A worker started from
 * the page's origin would find it, but a widget on another origin starts its workers from a
 * `blob:` URL (widget/assets.ts), against which no path resolves: the fetch throws, transformers.js
 * reports "file was not found locally" and search silently ran BM25-only (issue 15, item 4). And
 * the local path cannot be a full URL either (with an `http://` localModelPath transformers.js
 * skips the tokenizer, measured). An absolute remote host has neither problem; the page resolves
 * model-base against its own URL before posting it to the worker
 * (widget/search/worker-search-service.ts), so the worker never resolves anything against itself.
 */
export type ModelLocation = { kind: 'hub' } | { kind: 'folder'; remoteHost: string; remotePathTemplate: string };

const withSlash = (s: string) => (s.endsWith('/') ? s : `${s}/`);

/** A URL that is already absolute: in the worker there is no page to resolve a relative one against. */
function absolute(url: string, what: string, base: string | undefined): URL {
  try {
    return new URL(url, base);
  } catch {
    throw new TypeError(`${what} must be an absolute URL here (the page resolves it before the worker sees it): ${url}`);
  }
}

/**
 * `base` is the page's URL for a relative model-base; the search worker passes none, because the
 * page has made every URL absolute already and the worker's own URL (maybe a `blob:`) must not be used.
 */
export function resolveModelLocation(modelBase: string | null | undefined, base?: string): ModelLocation {
  if (!modelBase) return { kind: 'hub' };
  return { kind: 'folder', remoteHost: absolute(withSlash(modelBase), 'model-base', base).href, remotePathTemplate: '{model}/' };
}

/** onnxruntime-web's files as the WebGPU bundle transformers.js imports asks for them. */
export const ORT_WASM_FILES = { mjs: 'ort-wasm-simd-threaded.asyncify.mjs', wasm: 'ort-wasm-simd-threaded.asyncify.wasm' } as const;

export function resolveWasmPaths(wasmBase: string, base?: string): { mjs: string; wasm: string } {
  const folder = absolute(withSlash(wasmBase), 'The onnxruntime folder (wasmPaths)', base);
  return { mjs: new URL(ORT_WASM_FILES.mjs, folder).href, wasm: new URL(ORT_WASM_FILES.wasm, folder).href };
}
