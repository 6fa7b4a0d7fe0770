import { fileURLToPath } from 'node:url';

/** The demo corpus the fuzzers start from. */
export const DEMO_CORPUS = fileURLToPath(new URL('../../demo/corpus/', import.meta.url));
