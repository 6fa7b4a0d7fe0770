/**
 * `npm run bench:crawl -- [--pages 200] [--concurrency 2] [--delay 0] [--no-render]`: how fast
 * `crawl` gets through a site when politeness does not hold it back, to tell site owners whether
 * rendering or the per-host delay bounds their crawl. The site is generated and served here on
 * 127.0.0.1: a hub linking `--pages` JavaScript-rendered pages, every fifth linking a PDF.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { buildPdf } from '../../tools/demo-pdf.ts';
import { parseScriptArgs } from '../../tools/script-args.ts';
import { crawl } from '../crawl/crawler.ts';

const APP_JS = `fetch('/api' + location.pathname).then(function (r) { return r.json(); }).then(function (d) {
  document.getElementById('app').innerHTML = d.html;
});`;

function pagePdf(i: number): Uint8Array {
  const stream = `BT /F1 12 Tf 72 720 Td (Policy ${i}: clause ${i}.1 covers towing up to ${i} km.) Tj ET`;
  return buildPdf([
    '<< /Type /Catalog /Pages 2 0 R >>',
    '<< /Type /Pages /Kids [3 0 R] /Count 1 >>',
    '<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] /Resources << /Font << /F1 4 0 R >> >> /Contents 5 0 R >>',
    '<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica /Encoding /WinAnsiEncoding >>',
    `<< /Length ${stream.length} >>\nstream\n${stream}\nendstream`,
  ]);
}

function pageContent(i: number): string {
  const paragraphs = Array.from({ length: 6 }, (_, k) => `<p>סעיף ${i}.${k + 1}: הכיסוי בפוליסה מספר ${i} כולל שירותי גרירה, רכב חלופי והשתתפות עצמית של ${500 + k * 100} ש״ח.</p>`);
  const pdf = i % 5 === 0 ? `<p><a href="/docs/policy-${i}.pdf">פוליסה ${i} (PDF)</a></p>` : '';
  return `<h1>פוליסה ${i}</h1>${paragraphs.join('')}${pdf}<p><a href="/p/${(i % 50) + 1}">פוליסה קשורה</a></p>`;
}

async function startSite(pages: number): Promise<{ origin: string; close(): Promise<void> }> {
  const server = createServer((req, res) => {
    const path = decodeURIComponent((req.url ?? '/').split('?')[0]);
    const send = (status: number, type: string, body: string | Uint8Array) => {
      res.writeHead(status, { 'content-type': type });
      res.end(body);
    };
    if (path === '/robots.txt') return send(200, 'text/plain', 'User-agent: *\nAllow: /\n');
    if (path === '/app.js') return send(200, 'application/javascript', APP_JS);
    if (path === '/') {
      const links = Array.from({ length: pages }, (_, i) => `<li><a href="/p/${i + 1}">פוליסה ${i + 1}</a></li>`).join('');
      return send(200, 'text/html; charset=utf-8', `<!doctype html><html lang="he" dir="rtl"><title>פוליסות</title><main><h1>פוליסות</h1><ul>${links}</ul></main></html>`);
    }
    let match = /^\/p\/(\d+)$/.exec(path);
    if (match) {
      return send(200, 'text/html; charset=utf-8', `<!doctype html><html lang="he" dir="rtl"><title>פוליסה ${match[1]}</title><main id="app"></main><script src="/app.js"></script></html>`);
    }
    match = /^\/api\/p\/(\d+)$/.exec(path);
    if (match) return send(200, 'application/json', JSON.stringify({ html: pageContent(Number(match[1])) }));
    match = /^\/docs\/policy-(\d+)\.pdf$/.exec(path);
    if (match) return send(200, 'application/pdf', pagePdf(Number(match[1])));
    send(404, 'text/plain', 'not found');
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    origin: `http://127.0.0.1:${port}`,
    close: () => new Promise((resolve) => server.close(() => resolve())),
  };
}

const USAGE = `usage: npm run bench:crawl [-- options]
  Crawls a site generated and served on 127.0.0.1 (a hub linking JavaScript-rendered pages, every
  fifth linking a PDF) twice, and prints files per minute.
  --pages <n>         pages in the site (default 200)
  --concurrency <n>   requests at a time (default 2)
  --delay <s>         seconds between requests to the host (default 0)
  --no-render         save HTML as served instead of rendering it in Chromium
  --help              this text`;

async function main(): Promise<void> {
  const { values } = parseScriptArgs(USAGE, {
    options: { pages: { type: 'string' }, concurrency: { type: 'string' }, delay: { type: 'string' }, 'no-render': { type: 'boolean' } },
  });
  const pages = Number(values.pages ?? 200);
  const concurrency = Number(values.concurrency ?? 2);
  const delayMs = Number(values.delay ?? 0) * 1000;
  const site = await startSite(pages);
  const out = mkdtempSync(join(tmpdir(), 'harel-crawl-bench-'));
  try {
    const first = await crawl({ startUrls: [`${site.origin}/`], outDir: out, concurrency, delayMs, render: !values['no-render'], sitemaps: false });
    const files = first.files;
    const perMinute = (files / first.ms) * 60_000;
    console.log(`crawl of ${pages} pages + ${Math.floor(pages / 5)} PDFs, concurrency ${concurrency}, delay ${delayMs} ms, ${values['no-render'] ? 'no rendering' : 'rendered in Chromium'}`);
    console.log(
      `  first crawl: ${files} files in ${(first.ms / 1000).toFixed(1)} s = ${perMinute.toFixed(0)} files/min (${(first.ms / files).toFixed(0)} ms each), ${first.requests} requests by the crawler`,
    );
    const again = await crawl({ startUrls: [`${site.origin}/`], outDir: out, concurrency, delayMs, render: !values['no-render'], sitemaps: false });
    console.log(`  re-crawl (no validators here, so every file is fetched and rendered again): ${(again.ms / 1000).toFixed(1)} s, ${again.counts.same} unchanged by content`);
  } finally {
    rmSync(out, { recursive: true, force: true });
    await site.close();
  }
}

await main();
