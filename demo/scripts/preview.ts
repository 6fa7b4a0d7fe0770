/**
 * `npm run preview [-- --dir <folder>] [--host <host>]`: serves the production build (default
 * dist/) on $PORT (default 4173) — or any folder, such as a site with the widget copied in — with
 * the project's static server (tools/static-server.ts: the types the widget needs, CORS, byte
 * ranges), cross-origin isolated as the demo is (COOP/COEP: llama.cpp runs multi-threaded).
 */
import { existsSync } from 'node:fs';
import { resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseScriptArgs } from '../../tools/script-args.ts';
import { CROSS_ORIGIN_ISOLATION_HEADERS, startStaticServer } from '../../tools/static-server.ts';

const USAGE = `usage: npm run preview [-- --dir <folder>] [--host <host>]
  Serves a folder as a static host would (.wasm, .mjs and the index's .gz files typed for the
  widget, CORS on everything, byte ranges, cross-origin isolated) on $PORT (default 4173).
  --dir <folder>   the folder to serve (default dist/, what npm run build writes)
  --host <host>    the interface to listen on (default localhost)
  --help           this text`;

if (process.argv[1] && fileURLToPath(import.meta.url) === resolve(process.argv[1])) {
  const { values } = parseScriptArgs(USAGE, { options: { dir: { type: 'string' }, host: { type: 'string' } } });
  // A relative --dir is the user's: npm runs the script from the project's root, and says where it was called from in INIT_CWD.
  const root = values.dir ? resolve(process.env.INIT_CWD ?? '.', values.dir) : resolve('dist');
  if (!existsSync(root)) {
    process.stderr.write(`${root} does not exist: run npm run build first (or pass --dir <folder>).\n`);
    process.exit(1);
  }
  const { origin } = await startStaticServer({ root, port: Number(process.env.PORT ?? 4173), host: values.host ?? 'localhost', headers: { ...CROSS_ORIGIN_ISOLATION_HEADERS } });
  process.stderr.write(`serving ${root} at ${origin}/\n`);
}
