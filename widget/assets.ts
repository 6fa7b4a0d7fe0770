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
const ORT_DIR = 'ort/';

export function defaultWasmPaths(): string {
  if (import.meta.env?.DEV !== false) return '/ort/';
  // ORT_DIR through a variable: Vite rewrites `new URL('<literal>', import.meta.url)` into an asset
  // it must find at build time, and this folder is copied in after the bundle is written.
  return new URL(ORT_DIR, import.meta.url).href;
}
