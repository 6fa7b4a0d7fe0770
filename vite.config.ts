import { createReadStream, existsSync, statSync } from 'node:fs';
import { extname, join, resolve, sep } from 'node:path';
import { defineConfig, type Plugin } from 'vite';

const CONTENT_TYPES: Record<string, string> = {
  '.json': 'application/json',
  '.gz': 'application/octet-stream',
};

/**
 * Serves an index folder at /index/ (the demo's default `index` attribute). The folder comes
 * from HAREL_INDEX_DIR so `npm run demo -- --index <dir>` can serve any build. Files are sent
 * as stored (gzip bytes, no Content-Encoding): the reader verifies their sha256 before inflating.
 */
function serveIndex(): Plugin {
  return {
    name: 'harel-serve-index',
    configureServer(server) {
      server.middlewares.use('/index/', (req, res, next) => {
        const dir = resolve(process.env.HAREL_INDEX_DIR ?? 'demo/.generated/index');
        const path = resolve(join(dir, decodeURIComponent((req.url ?? '/').split('?')[0])));
        if (!path.startsWith(dir + sep) || !existsSync(path) || !statSync(path).isFile()) return next();
        res.setHeader('Content-Type', CONTENT_TYPES[extname(path)] ?? 'application/octet-stream');
        res.setHeader('Cache-Control', 'no-cache');
        createReadStream(path).pipe(res);
      });
    },
  };
}

export default defineConfig({
  root: 'demo',
  plugins: [serveIndex()],
  server: { fs: { allow: [resolve('.')] } },
  optimizeDeps: { exclude: ['@huggingface/transformers', 'onnxruntime-web'] },
});
