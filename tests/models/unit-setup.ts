/**
 * Vitest's global setup: says, before any unit test file is collected, when Gemma 3 270M's GGUF is
 * not in models/, so that the tests that read the real file (the reader's tokenizer, the dequantizers
 * against gguf-py, the real merge, the model-file fuzz) are skipped with the reason printed. It
 * fetches nothing: `npm run test:models` fetches Gemma the first time (tests/models/prepare-gemma.ts),
 * then runs those files and the browser tests that run the model, and under CI fails where Gemma
 * cannot be had. The child Vitest runs of tests/unit/models/e5-parity-setup.test.ts pass through here too.
 */
import { existsSync } from 'node:fs';
import { GEMMA_FILE } from './gemma.ts';

export default function setup(): void {
  if (!existsSync(GEMMA_FILE)) process.stderr.write(`unit tests that read Gemma's GGUF are skipped: ${GEMMA_FILE} is missing (npm run test:models fetches it and runs them)\n`);
}
