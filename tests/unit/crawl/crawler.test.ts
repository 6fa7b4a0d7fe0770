/**
 * The whole crawl, end to end, against a local site the test serves itself on 127.0.0.1
 * (tests/fixtures/crawl-site): the CLI in a child process, real Chromium rendering the pages,
 * then `build` on the output. Nothing here touches the network beyond loopback.
 */
import { spawn } from 'node:child_process';
import { createHash } from 'node:crypto';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildIndex } from '../../../builder/pipeline/build-index.ts';
import type { CrawlManifest } from '../../../builder/crawl/crawl-manifest.ts';
import type { CrawlOptions } from '../../../builder/crawl/crawl-options.ts';
import { crawl } from '../../../builder/crawl/crawler.ts';
import { parseDomainRules } from '../../../builder/crawl/domain-map.ts';
import { readIndexFolder } from '../../../builder/read-index-folder.ts';
import { startCrawlSite, type CrawlSite } from '../../fixtures/crawl-site/site.ts';

const CLI = join(import.meta.dirname, '../../../builder/bin/harel-builder.mjs');

/** The defaults of a real crawl, shortened so that the traps (a stalled document, a page that never goes idle) cost seconds. */
const FAST = { delayMs: 0, timeoutMs: 2500, renderTimeoutMs: 2500, retries: 1, retryBaseMs: 100, maxBytes: 5_000_000 } satisfies Partial<CrawlOptions>;
const DOMAIN_MAP = ['/ביטוח/רכב/=car', '/ביטוח/דירה/=home'];

function pathOf(url: string): string {
  return decodeURIComponent(new URL(url).pathname);
}

function readManifest(dir: string): CrawlManifest {
  return JSON.parse(readFileSync(join(dir, 'manifest.json'), 'utf8')) as CrawlManifest;
}

/** Decoded path of each saved file's final URL → its manifest path and entry. */
function savedByPath(dir: string): Map<string, { file: string; entry: CrawlManifest['files'][string] }> {
  const out = new Map<string, { file: string; entry: CrawlManifest['files'][string] }>();
  for (const [file, entry] of Object.entries(readManifest(dir).files)) out.set(pathOf(entry.finalUrl), { file, entry });
  return out;
}

/** Decoded paths (query dropped) of the requests the site answered with `status`. */
function requested(site: CrawlSite, status?: number): string[] {
  return site.requests.filter((r) => status === undefined || r.status === status).map((r) => decodeURIComponent(r.path.split('?')[0]));
}

function runCli(args: string[]): Promise<{ code: number | null; stdout: string; stderr: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [CLI, ...args], { stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d: Buffer) => (stdout += d.toString()));
    child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
    child.on('error', reject);
    child.on('close', (code) => resolve({ code, stdout, stderr }));
  });
}

describe('harel-builder crawl', () => {
  let site: CrawlSite;
  let root: string;

  beforeAll(async () => {
    site = await startCrawlSite();
    root = mkdtempSync(join(tmpdir(), 'harel-crawl-'));
  });

  afterAll(async () => {
    await site?.close();
    rmSync(root, { recursive: true, force: true });
  });

  describe('a full crawl from the CLI, re-crawled incrementally, then built', () => {
    let out: string;

    beforeAll(async () => {
      out = join(root, 'site');
      const args = ['crawl', `${site.origin}/`, '--out', out, '--delay', '0', '--timeout', '2.5', '--render-timeout', '2.5', '--retries', '1', '--max-bytes', '5000000'];
      for (const rule of DOMAIN_MAP) args.push('--domain-map', rule);
      const result = await runCli(args);
      expect(result.stderr).not.toMatch(/error/i);
      expect(result.code).toBe(0);
      expect(result.stdout).toMatch(/^crawl finished in .* \d+ requests/);
      expect(result.stdout).toContain(`${site.expected.saved.length} files in`);
      // The progress display's last line: pages done of all known, queued, failed, rate.
      expect(result.stderr).toMatch(/crawl .* \d+\/\d+ 100% in .*/);
    }, 120_000);

    it('saves exactly the pages and documents it should, each under its final URL', () => {
      const saved = savedByPath(out);
      expect([...saved.keys()].sort()).toEqual([...site.expected.saved].sort());
      for (const path of site.expected.notSaved) expect(saved.has(path), path).toBe(false);
      expect(readManifest(out).complete).toBe(true);
    });

    it('keeps JavaScript-rendered text that a plain fetch of the page does not contain', async () => {
      const saved = savedByPath(out);
      const home = readFileSync(join(out, saved.get('/')!.file), 'utf8');
      const car = readFileSync(join(out, saved.get('/ביטוח/רכב')!.file), 'utf8');
      expect(home).toContain('סימן-JS-בית');
      expect(car).toContain('סימן-JS-רכב');
      expect(home).not.toContain('<script');
      const shell = await (await fetch(`${site.origin}/`)).text();
      expect(shell).not.toContain('סימן-JS-בית');
    });

    it('respects robots.txt, and fetches a URL once whatever tracking parameters or fragments it carries', () => {
      expect(requested(site).filter((p) => p.startsWith('/private'))).toEqual([]);
      expect(requested(site).filter((p) => p === '/ביטוח/דירה')).toHaveLength(1);
      expect(site.requests.filter((r) => r.path.includes('utm_') || r.path.includes('gclid'))).toEqual([]);
      // Found only through the sitemap index and its gzipped child sitemap.
      expect(savedByPath(out).has('/about')).toBe(true);
      expect(savedByPath(out).has('/docs/guide.pdf')).toBe(true);
      // Reached only through a script's location.replace() on /moved.
      expect(readFileSync(join(out, savedByPath(out).get('/js-target')!.file), 'utf8')).toContain('סימן-הפניית-JS');
    });

    it('follows and records redirects, retries a 500, reads a page that never goes idle, and records permanent failures', () => {
      const saved = savedByPath(out);
      const life = saved.get('/ביטוח/חיים')!.entry;
      expect(pathOf(life.url)).toBe('/old-page');
      expect(life.redirects?.map(pathOf)).toEqual(['/old-page', '/older-page']);
      expect(readManifest(out).redirects[life.url]).toBe(life.finalUrl);

      expect(site.requests.filter((r) => r.path === '/flaky').map((r) => r.status)).toEqual([500, 200]);
      expect(readFileSync(join(out, saved.get('/flaky')!.file), 'utf8')).toContain('סימן-התאוששות');
      expect(readFileSync(join(out, saved.get('/slow')!.file), 'utf8')).toContain('סימן-איטי');

      const failures = new Map(readManifest(out).failures.map((f) => [pathOf(f.url), f]));
      expect(failures.get('/loop-a')?.code).toBe('CRAWL_REDIRECT_LOOP');
      expect(failures.get('/missing')).toMatchObject({ code: 'CRAWL_HTTP_STATUS', httpStatus: 404 });
      expect(failures.get('/stall')?.code).toBe('CRAWL_TIMEOUT');
      expect(failures.get('/docs/huge.pdf')?.code).toBe('CRAWL_TOO_LARGE');
      // The stalled document was tried again (once, as --retries 1 says), the 404 was not.
      expect(requested(site).filter((p) => p === '/stall')).toHaveLength(2);
      expect(requested(site).filter((p) => p === '/missing')).toHaveLength(1);
    });

    it('writes a manifest entry per file with its hash, type, validators and domain', () => {
      for (const { file, entry } of savedByPath(out).values()) {
        const bytes = readFileSync(join(out, file));
        expect(entry.sha256, file).toBe(createHash('sha256').update(bytes).digest('hex'));
        expect(entry.bytes).toBe(bytes.byteLength);
        expect(entry.contentType).toMatch(file.endsWith('.pdf') ? /^application\/pdf/ : /^text\/html/);
        expect(entry.etag).toMatch(/^"/);
        expect(Date.parse(entry.lastModified ?? '')).not.toBeNaN();
        expect(Date.parse(entry.fetchedAt)).not.toBeNaN();
      }
      const saved = savedByPath(out);
      expect(saved.get('/ביטוח/רכב')!.entry.domain).toBe('car');
      expect(saved.get('/ביטוח/דירה')!.entry.domain).toBe('home');
      // A PDF outside the page tree takes the domain of the page that links to it.
      expect(saved.get('/docs/policy-home.pdf')!.entry.domain).toBe('home');
      expect(saved.get('/about')!.entry.domain).toBe('general');
      expect(saved.get('/ביטוח/רכב')!.file).toMatch(/\/ביטוח\/רכב\.html$/);
    });

    it('re-crawls an unchanged site with conditional requests only, then fetches just what changed', async () => {
      const before = readManifest(out);
      site.resetLog();
      const again = await crawl({ startUrls: [`${site.origin}/`], outDir: out, ...FAST, domainRules: parseDomainRules(DOMAIN_MAP) });
      expect(again.resumed).toBe(false);
      expect(again.counts).toMatchObject({ new: 0, changed: 0, same: 0, unchanged: site.expected.saved.length });
      const savedPaths = new Set(site.expected.saved);
      const refetched = requested(site, 200).filter((p) => savedPaths.has(p));
      expect(refetched).toEqual([]);
      expect(
        requested(site, 304)
          .filter((p) => savedPaths.has(p))
          .sort(),
      ).toEqual([...savedPaths].sort());
      expect(site.requests.filter((r) => savedPaths.has(decodeURIComponent(r.path)) && !r.headers['if-none-match'])).toEqual([]);
      const after = readManifest(out);
      expect(Object.keys(after.files).sort()).toEqual(Object.keys(before.files).sort());
      for (const [file, entry] of Object.entries(after.files)) expect(entry.sha256).toBe(before.files[file].sha256);

      site.touch('/ביטוח/דירה');
      site.resetLog();
      const third = await crawl({ startUrls: [`${site.origin}/`], outDir: out, ...FAST, domainRules: parseDomainRules(DOMAIN_MAP) });
      expect(third.counts).toMatchObject({ new: 0, changed: 1, unchanged: site.expected.saved.length - 1 });
      expect(requested(site, 200).filter((p) => savedPaths.has(p))).toEqual(['/ביטוח/דירה']);
      expect(readFileSync(join(out, savedByPath(out).get('/ביטוח/דירה')!.file), 'utf8')).toMatch(/עדכון מספר 1/);
    }, 120_000);

    it('hands build a folder whose index cites the original URLs and domains', async () => {
      const index = join(root, 'index');
      await buildIndex({ inputs: [out], outDir: index, embed: false, embedder: 'none', allowRemote: false, dtype: 'q8', maxTokens: 350, overlap: 0.15 });
      const { documents } = await readIndexFolder(index);
      const manifest = readManifest(out);
      expect(documents).toHaveLength(Object.keys(manifest.files).length);
      for (const document of documents) {
        const entry = manifest.files[document.file];
        expect(entry, document.file).toBeDefined();
        expect(document.url).toBe(entry.finalUrl);
        expect(document.domain).toBe(entry.domain);
      }
      const car = documents.find((d) => d.url !== null && pathOf(d.url) === '/ביטוח/רכב');
      expect(car?.url).toBe(`${site.origin}/%D7%91%D7%99%D7%98%D7%95%D7%97/%D7%A8%D7%9B%D7%91`);
    }, 60_000);

    it('with --fresh refetches everything unconditionally, and deletes the file of a page no longer crawled', async () => {
      // /about was the only way to /stall and /moved, and through /moved to /js-target.
      const unreached = ['/about', '/moved', '/js-target'];
      const files = unreached.map((path) => savedByPath(out).get(path)!.file);
      site.resetLog();
      const fresh = await crawl({ startUrls: [`${site.origin}/`], outDir: out, ...FAST, fresh: true, exclude: ['/about'], domainRules: parseDomainRules(DOMAIN_MAP) });
      expect(fresh.counts.removed).toBe(unreached.length);
      expect(fresh.counts.unchanged).toBe(0);
      expect(site.requests.filter((r) => r.headers['if-none-match'] || r.headers['if-modified-since'])).toEqual([]);
      for (const file of files) expect(existsSync(join(out, file)), file).toBe(false);
      expect([...savedByPath(out).keys()].sort()).toEqual(site.expected.saved.filter((p) => !unreached.includes(p)).sort());
    }, 120_000);
  });

  it('resumes an interrupted crawl without fetching again what it already has', async () => {
    const out = join(root, 'resumed');
    const controller = new AbortController();
    let savedCount = 0;
    site.resetLog();
    const first = await crawl({
      startUrls: [`${site.origin}/`],
      outDir: out,
      ...FAST,
      signal: controller.signal,
      onOutcome: (_url, outcome) => {
        if (outcome.status === 'saved' && ++savedCount === 4) controller.abort();
      },
    });
    expect(first.end).toBe('interrupted');
    const partial = savedByPath(out);
    expect(readManifest(out).complete).toBe(false);
    expect(partial.size).toBeGreaterThanOrEqual(4);
    expect(partial.size).toBeLessThan(site.expected.saved.length);

    site.resetLog();
    const second = await crawl({ startUrls: [`${site.origin}/`], outDir: out, ...FAST });
    expect(second.resumed).toBe(true);
    expect(second.end).toBe('finished');
    const refetched = requested(site).filter((p) => partial.has(p));
    expect(refetched).toEqual([]);
    // Sitemaps were read in the first run; the resumed run does not read them again.
    expect(requested(site).filter((p) => p.startsWith('/sitemap'))).toEqual([]);
    expect([...savedByPath(out).keys()].sort()).toEqual([...site.expected.saved].sort());
    expect(readManifest(out).complete).toBe(true);
  }, 120_000);

  it('stops cleanly on Ctrl-C from the CLI, and the same command resumes', async () => {
    const out = join(root, 'interrupted');
    const args = ['crawl', `${site.origin}/`, '--out', out, '--delay', '0', '--timeout', '2.5', '--render-timeout', '2.5', '--retries', '1', '--quiet'];
    const child = spawn(process.execPath, [CLI, ...args], { stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    child.stdout.on('data', (d: Buffer) => (stdout += d.toString()));
    const exited = new Promise<number | null>((resolve) => child.on('close', resolve));
    const journal = join(out, '.crawl', 'journal.jsonl');
    const savedInJournal = (): string[] => {
      const text = (() => {
        try {
          return readFileSync(journal, 'utf8');
        } catch {
          return '';
        }
      })();
      return text
        .split('\n')
        .filter((line) => line.includes('"t":"done"') && line.includes('"status":"saved"'))
        .map((line) => pathOf((JSON.parse(line) as { outcome: { record: { finalUrl: string } } }).outcome.record.finalUrl));
    };
    let running = true;
    void exited.then(() => (running = false));
    while (running && savedInJournal().length < 3) await new Promise((r) => setTimeout(r, 25));
    expect(running).toBe(true);
    child.kill('SIGINT');
    expect(await exited).toBe(130);
    expect(stdout).toMatch(/^crawl interrupted: run the same command again to resume/);
    const had = savedInJournal();
    expect(had.length).toBeLessThan(site.expected.saved.length);
    expect(readManifest(out).complete).toBe(false);

    site.resetLog();
    const result = await runCli(args);
    expect(result.code).toBe(0);
    expect(result.stdout).toMatch(/^crawl finished \(resumed\)/);
    expect(requested(site).filter((p) => had.includes(p))).toEqual([]);
    expect([...savedByPath(out).keys()].sort()).toEqual([...site.expected.saved].sort());
  }, 120_000);

  it('counts --max-pages over the whole crawl, across a resume', async () => {
    const out = join(root, 'limit-resumed');
    const controller = new AbortController();
    const options = { startUrls: [`${site.origin}/`], outDir: out, ...FAST, render: false, maxPages: 3 };
    const first = await crawl({ ...options, signal: controller.signal, onOutcome: (_url, outcome) => outcome.status === 'saved' && controller.abort() });
    expect(first.end).toBe('interrupted');
    const second = await crawl(options);
    expect(second.resumed).toBe(true);
    expect(second.end).toBe('limit');
    const manifest = readManifest(out);
    expect(Object.keys(manifest.files).length + manifest.failures.length).toBe(3);
  }, 60_000);

  it('follows a start URL that redirects to another origin (the bare domain to www) and crawls there', async () => {
    // Another origin on loopback that sends everything to the site, as example.co.il does to www.
    const bare = createServer((req, res) => {
      res.writeHead(301, { location: `${site.origin}${req.url ?? '/'}` });
      res.end();
    });
    await new Promise<void>((resolve) => bare.listen(0, '127.0.0.1', resolve));
    const bareOrigin = `http://127.0.0.1:${(bare.address() as AddressInfo).port}`;
    try {
      const out = join(root, 'bare');
      const summary = await crawl({ startUrls: [`${bareOrigin}/`], outDir: out, ...FAST, render: false });
      expect(summary.end).toBe('finished');
      const saved = savedByPath(out);
      expect(saved.get('/')?.entry).toMatchObject({ url: `${bareOrigin}/`, finalUrl: `${site.origin}/` });
      // Listed only in the sitemap of the origin the start URL redirected to.
      expect(saved.has('/about')).toBe(true);
      expect(saved.has('/docs/guide.pdf')).toBe(true);
      expect(requested(site).filter((p) => p.startsWith('/private'))).toEqual([]);
    } finally {
      await new Promise((resolve) => bare.close(resolve));
    }
  }, 60_000);

  it('stops at --max-pages, honours --exclude, and without rendering saves the HTML as served', async () => {
    const out = join(root, 'limited');
    site.resetLog();
    const summary = await crawl({ startUrls: [`${site.origin}/`], outDir: out, ...FAST, render: false, maxPages: 2, exclude: ['/ביטוח/רכב'] });
    expect(summary.end).toBe('limit');
    const fetched = requested(site).filter((p) => p !== '/robots.txt' && !p.startsWith('/sitemap'));
    expect(fetched).toHaveLength(2);
    expect(requested(site).filter((p) => p.startsWith('/ביטוח/רכב'))).toEqual([]);
    // Unrendered, the home page is the empty shell: its links are added by JavaScript, so only
    // the sitemap leads anywhere.
    const home = readFileSync(join(out, savedByPath(out).get('/')!.file), 'utf8');
    expect(home).not.toContain('סימן-JS-בית');
    expect(home).toContain('<div id="app">');
  }, 60_000);
});
