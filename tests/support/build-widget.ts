/** Builds the widget bundle from inside a test process, as `npm run build:widget` does. */
import { resolve } from 'node:path';
import { build } from 'vite';
import { withNodeEnv } from '../../builder/node-env.ts';

export async function buildWidgetBundle(outDir: string): Promise<void> {
  await withNodeEnv('production', () => build({ configFile: resolve('vite.widget.config.ts'), logLevel: 'warn', build: { outDir } }));
}
