/**
 * Where transformers.js should look for a model, from the widget's `model-base` attribute.
 * Kept free of transformers.js so the rules can be unit-tested.
 *
 * - no model-base: the Hugging Face hub (remote downloads allowed, nothing local);
 * - same origin: transformers.js's *local* path, given as a path ('/models/'), because it joins
 *   the path with the model id and fetches it from the page's origin;
 * - another origin: its *remote* host with the template '{model}/' (files at
 *   `<model-base>/<id>/config.json`, not the hub's `/resolve/main/` layout).
 */
export type ModelLocation =
  | { kind: 'hub' }
  | { kind: 'same-origin'; localModelPath: string }
  | { kind: 'cross-origin'; remoteHost: string; remotePathTemplate: string };

const withSlash = (s: string) => (s.endsWith('/') ? s : `${s}/`);

export function resolveModelLocation(modelBase: string | null | undefined, pageUrl: string): ModelLocation {
  if (!modelBase) return { kind: 'hub' };
  const url = new URL(withSlash(modelBase), pageUrl);
  if (url.origin === new URL(pageUrl).origin) return { kind: 'same-origin', localModelPath: url.pathname };
  return { kind: 'cross-origin', remoteHost: url.href, remotePathTemplate: '{model}/' };
}

/** onnxruntime-web's files as the WebGPU bundle transformers.js imports asks for them. */
export const ORT_WASM_FILES = { mjs: 'ort-wasm-simd-threaded.asyncify.mjs', wasm: 'ort-wasm-simd-threaded.asyncify.wasm' } as const;

export function resolveWasmPaths(wasmBase: string, pageUrl: string): { mjs: string; wasm: string } {
  const base = new URL(withSlash(wasmBase), pageUrl);
  return { mjs: new URL(ORT_WASM_FILES.mjs, base).href, wasm: new URL(ORT_WASM_FILES.wasm, base).href };
}
