/**
 * Builds the bench page (builder/bench/page/) with Vite into a folder of its own: a production
 * build with the widget's worker settings (vite.widget.config.ts), so the search worker timed is
 * the one `npm run build:widget` ships, minified and bundled the same way. Built on every bench
 * run (a few seconds), so a clean clone needs nothing but `npm ci`.
 */
import { resolve } from 'node:path';
import { build } from 'vite';
import { withNodeEnv } from '../node-env.ts';
import { keepOrtWasmExternal } from '../../vite.widget.config.ts';

export const BENCH_PAGE_DIR = '.tmp/bench-page';
/** The same page unminified: CPU profiles name the functions. */
export const BENCH_PROFILE_PAGE_DIR = '.tmp/bench-page-profile';

export async function buildBenchPage(outDir = BENCH_PAGE_DIR, options: { minify?: boolean } = {}): Promise<string> {
  const minify = options.minify ?? true;
  const out = resolve(outDir);
  await withNodeEnv('production', () =>
    build({
      configFile: false,
      root: resolve('builder/bench/page'),
      base: './',
      publicDir: false,
      logLevel: 'warn',
      plugins: [keepOrtWasmExternal()],
      build: {
        outDir: out,
        emptyOutDir: true,
        target: 'es2022',
        chunkSizeWarningLimit: 8000,
        minify,
        rollupOptions: { output: { minify } },
      },
      worker: {
        format: 'es',
        plugins: () => [keepOrtWasmExternal()],
        rollupOptions: { output: { entryFileNames: '[name]-[hash].js', chunkFileNames: '[name]-[hash].js', minify } },
      },
    }),
  );
  return out;
}
