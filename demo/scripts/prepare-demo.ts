/**
 * Prepares everything the demo serves, offline: the tiny TEST embedder (a fixture, not E5), the
 * demo corpus's generated PDF, and the demo index built from demo/corpus with that embedder so
 * the whole pipeline — vectors included — runs without a download.
 */
import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { buildIndex } from '../../builder/build/build-index.ts';
import { createProgressReporter } from '../../builder/cli/progress.ts';
import { FIXTURE_EMBEDDER } from '../../builder/embed/defaults.ts';
import { writeTinyEmbedder } from '../../tests/fixtures/tiny-embedder/write-tiny-embedder.ts';
import { writeDemoPdf } from './make-demo-pdf.ts';

const root = (path: string) => fileURLToPath(new URL(`../../${path}`, import.meta.url));

export const DEMO_PATHS = {
  corpus: root('demo/corpus'),
  pdf: root('demo/corpus/apartment/files/demo-home-policy.pdf'),
  modelDir: root('tests/fixtures/.generated'),
  index: root('demo/.generated/index'),
};

/** How the demo's indexes are built: offline, with the tiny test embedder (a fixture, not E5). */
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

export async function prepareDemo(options: { quiet?: boolean; force?: boolean } = {}): Promise<string> {
  await writeTinyEmbedder(`${DEMO_PATHS.modelDir}/${FIXTURE_EMBEDDER}`);
  if (options.force || !existsSync(DEMO_PATHS.pdf)) await writeDemoPdf(DEMO_PATHS.pdf);
  const progress = createProgressReporter({ quiet: Boolean(options.quiet) });
  const summary = await buildIndex({ ...demoBuildOptions([DEMO_PATHS.corpus], DEMO_PATHS.index), onProgress: progress.onProgress, log: progress.log });
  progress.finish();
  if (!options.quiet) {
    const c = summary.manifest.counts;
    process.stderr.write(`demo index ${summary.manifest.buildId}: ${c.documents} documents, ${c.chunks} chunks → ${DEMO_PATHS.index}\n`);
  }
  return DEMO_PATHS.index;
}

if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) {
  await prepareDemo({ force: process.argv.includes('--force') });
}
