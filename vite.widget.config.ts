/**
 * The widget as a library: `npm run build:widget` writes dist/widget/ — harel-chat.js (the one
 * module a site loads), its worker and lazy chunks beside it, and onnxruntime-web's runtime in
 * ort/. Every URL between these files is relative to the module that asks for it
 * (`new URL(…, import.meta.url)`), so the folder works from any path or another origin.
 * transformers.js and onnxruntime-web end up in query-embedder-*.js, which the search worker
 * imports only for an index with vectors (tests/e2e/widget-bundle.spec.ts checks it stays apart).
 */
import { copyFileSync, mkdirSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { defineConfig, type Plugin } from 'vite';
import { ORT_WASM_FILES } from './widget/embed/model-location.ts';

export const WIDGET_OUT_DIR = 'dist/widget';

/**
 * The two files transformers.js's onnxruntime asks for; widget/assets.ts points at them (`ort/`
 * beside the module that holds it: the bundle's folder here, assets/ in the demo's app build).
 */
export function copyOrtRuntime(folder = 'ort'): Plugin {
  let outDir = WIDGET_OUT_DIR;
  return {
    name: 'harel-copy-ort-runtime',
    apply: 'build',
    configResolved(config) {
      outDir = resolve(config.root, config.build.outDir);
    },
    writeBundle() {
      const from = resolve('node_modules/onnxruntime-web/dist');
      const to = join(outDir, folder);
      mkdirSync(to, { recursive: true });
      for (const file of Object.values(ORT_WASM_FILES)) copyFileSync(join(from, file), join(to, file));
    },
  };
}

/**
 * onnxruntime-web's fallback `new URL("ort-wasm-….wasm", import.meta.url)`: in library mode Vite
 * inlines such assets as base64, twice (26 MB each) into the chunk that holds onnxruntime (the
 * search worker's lazy query-embedder chunk). The widget always passes wasmPaths, so the fallback
 * is never fetched; a non-literal first argument makes Vite leave it alone.
 */
export function keepOrtWasmExternal(): Plugin {
  return {
    name: 'harel-keep-ort-wasm-external',
    enforce: 'pre',
    transform(code, id) {
      if (!/[\\/]onnxruntime-web[\\/]dist[\\/]/.test(id)) return null;
      const out = code.replace(/new URL\((["'`])(ort-wasm[^"'`]*\.wasm)\1\s*,\s*import\.meta\.url\)/g, 'new URL("" + $1$2$1, import.meta.url)');
      return out === code ? null : { code: out, map: null };
    },
  };
}

/**
 * Chunk names a site owner can read: web-llm's entry is an anonymous lib/index.js, and the code the
 * element shares with the lazy LLM engine would otherwise take the name of one of its modules.
 */
export const chunkName =
  (dir = '') =>
  (chunk: { name: string; moduleIds: string[]; isDynamicEntry: boolean }): string => {
    if (chunk.moduleIds.some((id) => id.includes('@mlc-ai/web-llm'))) return `${dir}web-llm-[hash].js`;
    return chunk.isDynamicEntry ? `${dir}[name]-[hash].js` : `${dir}harel-chat-shared-[hash].js`;
  };

export default defineConfig({
  // Relative base: chunks and workers are found from the importing module's URL, not the page's.
  base: './',
  publicDir: false,
  plugins: [keepOrtWasmExternal(), copyOrtRuntime()],
  build: {
    outDir: WIDGET_OUT_DIR,
    emptyOutDir: true,
    target: 'es2022',
    // The LLM runtime is large by nature and loaded only on demand.
    chunkSizeWarningLimit: 8000,
    lib: {
      entry: 'widget/index.ts',
      formats: ['es'],
      fileName: () => 'harel-chat.js',
    },
    rollupOptions: {
      output: {
        // Library mode keeps ES output's whitespace (for a later bundler); a site serves these files as they are.
        minify: true,
        // Flat: widget/assets.ts resolves ort/ against the module it ends up in.
        chunkFileNames: chunkName(),
        assetFileNames: '[name]-[hash][extname]',
      },
    },
  },
  worker: {
    format: 'es',
    plugins: () => [keepOrtWasmExternal()],
    rollupOptions: { output: { entryFileNames: '[name]-[hash].js', chunkFileNames: '[name]-[hash].js', minify: true } },
  },
});
