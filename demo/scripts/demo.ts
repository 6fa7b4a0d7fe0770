/**
 * `npm run demo [-- --index <dir>]`: builds the demo index (unless an index is given) and serves
 * the demo site on $PORT (default 5173).
 */
import { resolve } from 'node:path';
import { parseArgs } from 'node:util';
import { createServer } from 'vite';
import { prepareDemo } from './prepare-demo.ts';

const { values } = parseArgs({ args: process.argv.slice(2), options: { index: { type: 'string' } } });
const indexDir = values.index ? resolve(values.index) : await prepareDemo();
process.env.HAREL_INDEX_DIR = indexDir;
const port = Number(process.env.PORT ?? 5173);
const server = await createServer({ configFile: resolve('vite.config.ts'), server: { port, strictPort: true } });
await server.listen();
server.printUrls();
process.stderr.write(`serving the index in ${indexDir} at /index/manifest.json\n`);
