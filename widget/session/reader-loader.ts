/**
 * Loads the reader model a page names (reader-model): the GGUF runtime is imported only here, so a
 * page without a reader never downloads it.
 */
import type { ReaderLoader } from './reader-slot.ts';

export function createReaderLoader(url: string): ReaderLoader {
  return async ({ signal, onProgress }) => {
    const { GgufReader } = await import('../engines/gguf/gguf-reader.ts');
    return GgufReader.load({ url, signal, onProgress });
  };
}
