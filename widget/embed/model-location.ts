/**
 * Where the query model's files are, from the widget's `model-base` attribute. Pure, so the rules
 * can be unit-tested.
 *
 * - no model-base: the Hugging Face hub (`https://huggingface.co/<id>/resolve/main/<file>`);
 * - a model-base: its absolute URL, files at `<model-base>/<id>/config.json`, `…/onnx/model.onnx`
 *   (the hub's layout without `/resolve/main/`), whether it is on the page's origin or another.
 *
 * Always an absolute URL, never a path: a widget on another origin starts its workers from a
 * `blob:` URL (widget/assets.ts), against which no path resolves. The page resolves model-base
 * against its own URL before posting it to the worker (widget/search/worker-search-service.ts),
 * so the worker never resolves anything against itself.
 */
export type ModelLocation = { kind: 'hub' } | { kind: 'folder'; base: string };

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
  return { kind: 'folder', base: absolute(withSlash(modelBase), 'model-base', base).href };
}

/** The hub's address of a file, as transformers.js fetches it (`{model}/resolve/{revision}/`). */
export const HUB_HOST = 'https://huggingface.co/';

/** The URL of `file` (e.g. 'onnx/model.onnx') of model `id`. */
export function modelFileUrl(location: ModelLocation, id: string, file: string): string {
  return location.kind === 'folder' ? `${location.base}${id}/${file}` : `${HUB_HOST}${id}/resolve/main/${file}`;
}

/**
 * onnxruntime-web's plain wasm build (widget/embed/onnx-encoder.ts says why not the asyncify one
 * transformers.js's WebGPU bundle needs: 14 MB instead of 27, faster to start and to run).
 */
export const ORT_WASM_FILES = { mjs: 'ort-wasm-simd-threaded.mjs', wasm: 'ort-wasm-simd-threaded.wasm' } as const;

export function resolveWasmPaths(wasmBase: string, base?: string): { mjs: string; wasm: string } {
  const folder = absolute(withSlash(wasmBase), 'The onnxruntime folder (wasmPaths)', base);
  return { mjs: new URL(ORT_WASM_FILES.mjs, folder).href, wasm: new URL(ORT_WASM_FILES.wasm, folder).href };
}
