/**
 * The static server as a real host behaves: a file's gzip copy (`<file>.gz`) sent as nginx's
 * gzip_static does (compressed to a client that accepts it, whole and plain otherwise), and a
 * validator, so a revalidated file is answered 304 and the browser keeps its copy.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { request } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { gunzipSync, gzipSync } from 'node:zlib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startStaticServer } from '../../../tools/static-server.ts';

const body = Buffer.from('{"model":"tokenizer"}'.repeat(200));
let dir: string;
let server: Awaited<ReturnType<typeof startStaticServer>>;

function get(path: string, headers: Record<string, string>): Promise<{ status: number; headers: Record<string, string | string[] | undefined>; body: Buffer }> {
  return new Promise((done, fail) => {
    const req = request(`${server.origin}${path}`, { headers }, (res) => {
      const parts: Buffer[] = [];
      res.on('data', (d: Buffer) => parts.push(d));
      res.on('end', () => done({ status: res.statusCode ?? 0, headers: res.headers, body: Buffer.concat(parts) }));
    });
    req.on('error', fail);
    req.end();
  });
}

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'precompressed-'));
  writeFileSync(join(dir, 'tokenizer.json'), body);
  writeFileSync(join(dir, 'tokenizer.json.gz'), gzipSync(body));
  writeFileSync(join(dir, 'plain.json'), body);
  server = await startStaticServer({ root: dir, port: 0 });
});
afterAll(async () => {
  await server?.close();
  rmSync(dir, { recursive: true, force: true });
});

describe('precompressed files', () => {
  it('sends the gzip copy, with its encoding and the original type, to a client that accepts gzip', async () => {
    const res = await get('/tokenizer.json', { 'accept-encoding': 'gzip, deflate, br' });
    expect(res.headers['content-encoding']).toBe('gzip');
    expect(res.headers['content-type']).toBe('application/json');
    expect(Number(res.headers['content-length'])).toBe(res.body.length);
    expect(res.body.length).toBeLessThan(body.length);
    expect(gunzipSync(res.body).equals(body)).toBe(true);
  });

  it('sends the plain file to a client that does not, for a byte range, and where there is no copy', async () => {
    const plain = await get('/tokenizer.json', {});
    expect(plain.headers['content-encoding']).toBeUndefined();
    expect(plain.body.equals(body)).toBe(true);
    const range = await get('/tokenizer.json', { 'accept-encoding': 'gzip', range: 'bytes=0-9' });
    expect(range.status).toBe(206);
    expect(range.body.equals(body.subarray(0, 10))).toBe(true);
    const none = await get('/plain.json', { 'accept-encoding': 'gzip' });
    expect(none.headers['content-encoding']).toBeUndefined();
    expect(none.body.equals(body)).toBe(true);
  });

  it('answers a revalidation with 304 while the file is unchanged, and sends it again once it changes', async () => {
    const first = await get('/plain.json', {});
    const etag = String(first.headers.etag);
    expect(etag).toMatch(/^W\/".+"$/);
    const again = await get('/plain.json', { 'if-none-match': etag });
    expect(again.status).toBe(304);
    expect(again.body.length).toBe(0);
    writeFileSync(join(dir, 'plain.json'), Buffer.concat([body, Buffer.from(' ')]));
    const changed = await get('/plain.json', { 'if-none-match': etag });
    expect(changed.status).toBe(200);
    expect(changed.body.length).toBe(body.length + 1);
  });
});
