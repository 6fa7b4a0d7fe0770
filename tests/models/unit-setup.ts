/**
 * Vitest's global setup: Gemma 3 270M's GGUF in models/ before any unit test file is collected,
 * fetched once as `models fetch` does (tests/models/gemma.ts), so the tests that read the real file
 * (the reader's tokenizer, the dequantizers against gguf-py, the real merge, the model-file fuzz)
 * run after the quick start instead of being skipped at collection. Where it cannot be fetched they
 * are skipped with the reason printed. It never fails the run itself: the child Vitest runs of
 * tests/unit/models/e5-parity-setup.test.ts pass through here too, and under CI the GGUF browser
 * tests fail where Gemma cannot be had (tests/e2e/gguf.spec.ts).
 */
import { prepareGemma } from './gemma.ts';

export default async function setup(): Promise<void> {
  const missing = await prepareGemma();
  if (missing) process.stderr.write(`unit tests that read Gemma's GGUF will be skipped: ${missing}\n`);
}
