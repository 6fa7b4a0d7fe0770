/**
 * One queued URL to an outcome: follow its redirects (each hop checked against scope and
 * robots.txt, loops caught), ask only for what changed since the last crawl, render pages in
 * Chromium, and save the result under a readable name, once per distinct content.
 */
import { createHash } from 'node:crypto';
import { access, mkdir, rename, writeFile } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { createError, isHarelError } from '../errors.ts';
import { isRetryableStatus } from './backoff.ts';
import type { QueueItem, SavedRecord, UrlOutcome } from './crawl-record.ts';
import { DEFAULT_DOMAIN, domainFor, type DomainRule } from './domain-map.ts';
import type { SavedKind, SavedPathRegistry } from './file-names.ts';
import type { HttpResponse } from './http-fetch.ts';
import { normalizeUrl } from './normalize-url.ts';
import type { PageRenderer } from './page-renderer.ts';
import type { PoliteFetcher } from './polite-fetcher.ts';
import type { Scope } from './scope.ts';
import { staticLinks } from './static-links.ts';

/** More hops than this and the chain is abandoned (browsers stop at 20; sites rarely need 3). */
export const MAX_REDIRECTS = 10;

export interface ItemContext {
  outDir: string;
  fetcher: PoliteFetcher;
  renderer: PageRenderer | null;
  scope: Scope;
  domainRules: readonly DomainRule[];
  paths: SavedPathRegistry;
  /** The previous crawl's records by URL and final URL, and its pages' links. */
  prior: { records: Map<string, SavedRecord>; links: Map<string, string[]> };
  /** Final URL of every URL this crawl has already saved (hops included). */
  covered: Map<string, string>;
  /** Saved path of every content hash this crawl has saved. */
  savedHashes: Map<string, string>;
  signal?: AbortSignal;
}

const DOCUMENT_EXTENSION = /\.(pdf|txt|md|markdown)$/i;

export function kindOfUrl(url: string): 'page' | 'document' {
  return DOCUMENT_EXTENSION.test(new URL(url).pathname) ? 'document' : 'page';
}

function savedKindOf(contentType: string, url: string, body: Uint8Array): SavedKind | null {
  const type = contentType.split(';')[0].trim();
  const path = new URL(url).pathname.toLowerCase();
  if (type === 'text/html' || type === 'application/xhtml+xml') return 'html';
  // Servers often label PDFs as octet-stream or a download; the file's magic bytes decide.
  if (type === 'application/pdf' || (body[0] === 0x25 && body[1] === 0x50 && body[2] === 0x44 && body[3] === 0x46)) return 'pdf';
  if (type === 'text/markdown' || type === 'text/x-markdown' || (type === 'text/plain' && /\.(md|markdown)$/.test(path))) return 'md';
  if (type === 'text/plain') return 'txt';
  return null;
}

/** Whether a 200's body is worth downloading: what `build` can index, or a PDF by its URL. */
export function wantsBody(contentType: string, url: string): boolean {
  const type = contentType.split(';')[0].trim();
  if (/^(text\/(html|plain|markdown|x-markdown)|application\/(xhtml\+xml|pdf|x-pdf))$/.test(type)) return true;
  return /^(application\/(octet-stream|x-download|force-download|binary))$/.test(type) && /\.pdf$/i.test(new URL(url).pathname);
}

function sha256(bytes: Uint8Array): string {
  return createHash('sha256').update(bytes).digest('hex');
}

async function exists(path: string): Promise<boolean> {
  return access(path).then(
    () => true,
    () => false,
  );
}

async function writeAtomically(path: string, bytes: Uint8Array): Promise<void> {
  await mkdir(dirname(path), { recursive: true });
  const temporary = `${path}.${process.pid}.tmp`;
  await writeFile(temporary, bytes);
  await rename(temporary, path);
}

function failed(code: string, message: string, options: { httpStatus?: number; permanent: boolean; redirects?: string[] }): UrlOutcome {
  return { status: 'failed', code, message, ...options };
}

/** The validators of the previous crawl's copy of `url`, when that copy is still on disk. */
async function conditionalHeaders(context: ItemContext, url: string): Promise<Record<string, string>> {
  const prior = context.prior.records.get(url);
  if (!prior || prior.finalUrl !== url || !(await exists(join(context.outDir, prior.path)))) return {};
  const headers: Record<string, string> = {};
  if (prior.etag) headers['if-none-match'] = prior.etag;
  if (prior.lastModified) headers['if-modified-since'] = prior.lastModified;
  return headers;
}

type Followed = { response: HttpResponse; chain: string[] } | { outcome: UrlOutcome };

async function followRedirects(item: QueueItem, context: ItemContext): Promise<Followed> {
  const chain = [item.url];
  for (;;) {
    const current = chain[chain.length - 1];
    const response = await context.fetcher.get(current, {
      headers: await conditionalHeaders(context, current),
      wantsBody: (contentType) => wantsBody(contentType, current),
    });
    if (response.kind !== 'redirect') return { response, chain };
    const next = normalizeUrl(response.location, current);
    if (!next) return { outcome: { status: 'skipped', reason: `redirects to "${response.location}", not an http(s) URL` } };
    if (chain.includes(next)) {
      const loop = [...chain, next].join(' → ');
      return { outcome: failed('CRAWL_REDIRECT_LOOP', createError('CRAWL_REDIRECT_LOOP', item.url, loop).message, { permanent: true, redirects: chain }) };
    }
    if (chain.length > MAX_REDIRECTS) {
      return { outcome: failed('CRAWL_TOO_MANY_REDIRECTS', createError('CRAWL_TOO_MANY_REDIRECTS', item.url, MAX_REDIRECTS).message, { permanent: true, redirects: chain }) };
    }
    let outOfScope = context.scope.check(next, item.kind);
    if (outOfScope && item.referrer === 'start') {
      // A start URL that redirects (http → https, the bare domain → www) says where the site is.
      context.scope.addStart(next);
      outOfScope = context.scope.check(next, item.kind);
    }
    if (outOfScope) return { outcome: { status: 'skipped', reason: `redirects to ${next} (${outOfScope})` } };
    const robots = await context.fetcher.robots(new URL(next).origin);
    if (!robots.isAllowed(next)) return { outcome: { status: 'skipped', reason: `redirects to ${next}, disallowed by robots.txt` } };
    const known = context.covered.get(next);
    if (known !== undefined) return { outcome: { status: 'alias', finalUrl: known, redirects: chain } };
    chain.push(next);
  }
}

function domainOf(item: QueueItem, finalUrl: string, rules: readonly DomainRule[]): string {
  const own = domainFor(finalUrl, rules) ?? domainFor(item.url, rules);
  if (own) return own;
  return (item.kind === 'document' ? item.referrerDomain : undefined) ?? DEFAULT_DOMAIN;
}

async function unchanged(item: QueueItem, finalUrl: string, chain: string[], context: ItemContext): Promise<UrlOutcome> {
  const prior = context.prior.records.get(finalUrl);
  if (!prior) return failed('CRAWL_HTTP_STATUS', createError('CRAWL_HTTP_STATUS', finalUrl, 304).message, { httpStatus: 304, permanent: false });
  const record: SavedRecord = {
    ...prior,
    url: item.url,
    domain: domainOf(item, finalUrl, context.domainRules),
    checkedAt: new Date().toISOString(),
    redirects: chain.length > 1 ? chain.slice(0, -1) : undefined,
  };
  context.paths.claim(finalUrl, prior.path.slice(prior.path.lastIndexOf('.') + 1) as SavedKind, prior.path);
  return { status: 'unchanged', record, links: context.prior.links.get(finalUrl) ?? [] };
}

async function readPage(finalUrl: string, body: Uint8Array, contentType: string, context: ItemContext): Promise<{ bytes: Uint8Array; links: string[] }> {
  if (!context.renderer) {
    const html = new TextDecoder().decode(body);
    return { bytes: body, links: staticLinks(html, finalUrl).map((link) => link.href) };
  }
  const page = await context.renderer.render({ url: finalUrl, body, contentType, signal: context.signal });
  return { bytes: new TextEncoder().encode(page.html), links: page.links.map((link) => link.href) };
}

/** Fetches, renders and saves one URL. Throws only ABORTED; every other failure is an outcome. */
export async function fetchItem(item: QueueItem, context: ItemContext): Promise<UrlOutcome> {
  try {
    const followed = await followRedirects(item, context);
    if ('outcome' in followed) return followed.outcome;
    const { response, chain } = followed;
    const finalUrl = chain[chain.length - 1];
    const redirects = chain.length > 1 ? chain.slice(0, -1) : undefined;
    if (response.kind === 'not-modified') return await unchanged(item, finalUrl, chain, context);
    if (response.kind === 'error') {
      const message = createError('CRAWL_HTTP_STATUS', finalUrl, response.status).message;
      return failed('CRAWL_HTTP_STATUS', message, { httpStatus: response.status, permanent: !isRetryableStatus(response.status), redirects });
    }
    if (response.kind === 'unwanted') {
      return { status: 'skipped', code: 'CRAWL_UNSUPPORTED_TYPE', reason: createError('CRAWL_UNSUPPORTED_TYPE', finalUrl, response.contentType).message };
    }
    if (response.kind === 'redirect') throw new Error('unreachable: redirects are followed above');
    const kind = savedKindOf(response.contentType, finalUrl, response.body);
    if (!kind) return { status: 'skipped', code: 'CRAWL_UNSUPPORTED_TYPE', reason: createError('CRAWL_UNSUPPORTED_TYPE', finalUrl, response.contentType).message };
    const { bytes, links } = kind === 'html' ? await readPage(finalUrl, response.body, response.contentType, context) : { bytes: response.body, links: [] };
    const hash = sha256(bytes);
    const twin = context.savedHashes.get(hash);
    if (twin !== undefined) return { status: 'duplicate', finalUrl, duplicateOf: twin, redirects, links };
    const prior = context.prior.records.get(finalUrl);
    const path = context.paths.claim(finalUrl, kind, prior?.path);
    // Claimed before the write's await, so a page with the same content finishing meanwhile is
    // a duplicate of this one rather than a second copy.
    context.savedHashes.set(hash, path);
    try {
      await writeAtomically(join(context.outDir, path), bytes);
    } catch (error) {
      context.savedHashes.delete(hash);
      throw error;
    }
    const now = new Date().toISOString();
    const record: SavedRecord = {
      path,
      url: item.url,
      finalUrl,
      domain: domainOf(item, finalUrl, context.domainRules),
      contentType: response.contentType,
      fetchedAt: now,
      checkedAt: now,
      etag: response.validators.etag,
      lastModified: response.validators.lastModified,
      sha256: hash,
      bytes: bytes.byteLength,
      redirects,
    };
    const change = !prior ? 'new' : prior.sha256 === hash ? 'same' : 'changed';
    return { status: 'saved', change, record, links };
  } catch (error) {
    if (isHarelError(error, 'ABORTED') || context.signal?.aborted) throw createError('ABORTED');
    if (isHarelError(error)) {
      // Without a browser no page can be read: stop the crawl and say how to get one.
      if (error.code === 'CRAWL_BROWSER_MISSING') throw error;
      return failed(error.code, error.message, { permanent: error.code === 'CRAWL_TOO_LARGE' });
    }
    return failed('UNEXPECTED', createError('UNEXPECTED', error instanceof Error ? error.message : String(error)).message, { permanent: false });
  }
}
