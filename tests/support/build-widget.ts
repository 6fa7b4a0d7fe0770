/**
 * Builds the widget bundle from inside a test process. Vite's build() sets
 * process.env.NODE_ENV = 'production' for the whole process, and a dev server started later in the
 * same Playwright worker would then compile the widget as production code (import.meta.env.DEV
 * false: the wrong ort/ location, BM25 only): the variable is put back as it was.
 */
import { resolve } from 'node:path';
import { build } from 'vite';

export async function buildWidgetBundle(outDir: string): Promise<void> {
  const previous = process.env.NODE_ENV;
  try {
    await build({ configFile: resolve('vite.widget.config.ts'), logLevel: 'warn', build: { outDir } });
  } finally {
    if (previous === undefined) delete process.env.NODE_ENV;
    else process.env.NODE_ENV = previous;
  }
}
