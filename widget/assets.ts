/// <reference types="vite/client" />
/**
 * Where the widget's own runtime files are, when the page does not say.
 *
 * The library build (vite.widget.config.ts) puts onnxruntime-web's runtime in `ort/` beside the
 * bundle, so a site can host the folder on any path or CDN with no setting: the URL is taken from
 * the module's own URL, never the page's. The dev server (vite.config.ts) and the tests serve the
 * same files at /ort/ instead; there `import.meta.url` is a source file's URL, not the bundle's.
 * Outside Vite (Node tests, tsx) `import.meta.env` does not exist, hence the optional chain.
 */
import { createError } from './core/errors.ts';

const ORT_DIR = 'ort/';

export function defaultWasmPaths(): string {
  if (import.meta.env?.DEV !== false) return '/ort/';
  // ORT_DIR through a variable: Vite rewrites `new URL('<literal>', import.meta.url)` into an asset
  // it must find at build time, and this folder is copied in after the bundle is written.
  return new URL(ORT_DIR, import.meta.url).href;
}

/**
 * Starts a module worker from a script URL that may be on another origin than the page (the
 * widget served from a CDN). Browsers refuse `new Worker(crossOriginUrl)` outright, so a
 * same-origin blob: module imports the script instead: the worker then runs the real module, whose
 * `import.meta.url` — and so every chunk and `ort/` file it resolves — stays on the widget's
 * origin. That import needs CORS on the widget's host and `blob:` allowed for workers by the page's
 * CSP (README, Content-Security-Policy). Same-origin scripts keep the plain path, which needs
 * neither.
 *
 * Callers write `const Worker = ModuleWorker` and then `new Worker(new URL('…', import.meta.url), …)`:
 * Vite bundles a worker only where it sees that exact pattern, and the local name keeps it.
 */
function startWorker(url: URL | string, options: WorkerOptions = {}): Worker {
  const script = new URL(url, globalThis.location?.href);
  const page = globalThis.location?.origin;
  if (!page || script.origin === page || script.protocol === 'blob:' || script.protocol === 'data:') {
    return new globalThis.Worker(script, options);
  }
  // Never revoked: revoking races the worker's own fetch of it, and it is a few bytes per worker.
  const shim = URL.createObjectURL(new Blob([`import ${JSON.stringify(script.href)};`], { type: 'text/javascript' }));
  try {
    return new globalThis.Worker(shim, { ...options, type: 'module' });
  } catch (error) {
    throw createError('WORKER_BLOCKED', script.href, error instanceof Error ? error.message : String(error));
  }
}

/** `startWorker` as a constructor (a plain function returning an object can be called with `new`). */
export const ModuleWorker = startWorker as unknown as new (url: URL | string, options?: WorkerOptions) => Worker;
