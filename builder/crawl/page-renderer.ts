/**
 * Renders HTML pages in headless Chromium (Playwright), because insurers' sites build their
 * content with JavaScript and a plain fetch returns an empty shell.
 *
 * The crawler has already fetched the page's HTML (following redirects, sending conditional
 * headers, retrying); the browser is handed those bytes for the main document instead of asking
 * the server again, and fetches only the scripts and data the page needs. Images, media and fonts
 * are refused: they cost the site bandwidth and add no text.
 */
import type { Browser, BrowserContext, Route } from 'playwright-core';
import { createError, isHarelError } from '../errors.ts';
import { locateChromium } from '../browser/chromium.ts';
import { PAGE_SNAPSHOT_SCRIPT, type PageSnapshot } from './page-snapshot.ts';

export interface RenderInput {
  url: string;
  body: Uint8Array;
  contentType: string;
  signal?: AbortSignal;
}

export interface PageRenderer {
  render(input: RenderInput): Promise<PageSnapshot>;
  close(): Promise<void>;
}

export interface RendererOptions {
  browserPath?: string;
  userAgent: string;
  /** How long to wait for the network to go idle before reading the page anyway. */
  renderTimeoutMs: number;
}

const REFUSED_RESOURCES = new Set(['image', 'media', 'font', 'websocket', 'eventsource', 'manifest']);

async function launch(options: RendererOptions): Promise<{ browser: Browser; context: BrowserContext }> {
  const { chromium } = await import('playwright-core');
  let playwrightPath: string | undefined;
  try {
    playwrightPath = chromium.executablePath();
  } catch {
    playwrightPath = undefined;
  }
  const executablePath = locateChromium({ explicit: options.browserPath, playwrightPath });
  if (!executablePath) throw createError('CRAWL_BROWSER_MISSING', 'none found on this machine');
  let browser: Browser;
  try {
    browser = await chromium.launch({
      executablePath,
      // Ctrl-C stops the crawl gracefully (the state is saved, then the browser closed); Playwright
      // would otherwise kill the browser and exit the process at once.
      handleSIGINT: false,
      args: ['--disable-background-networking', '--disable-component-update', '--disable-sync', '--no-first-run'],
    });
  } catch (error) {
    throw createError('CRAWL_BROWSER_MISSING', `${executablePath} did not start: ${error instanceof Error ? error.message.split('\n')[0] : String(error)}`);
  }
  const context = await browser.newContext({ userAgent: options.userAgent, serviceWorkers: 'block', acceptDownloads: false });
  return { browser, context };
}

/**
 * `work`, unless `ms` pass first (a page busy in an endless script never answers `evaluate`) or
 * the signal fires: the crawl must neither wait on a page forever nor keep Ctrl-C waiting.
 */
async function bounded<T>(work: Promise<T>, ms: number, url: string, signal?: AbortSignal): Promise<T> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  let onAbort: (() => void) | undefined;
  const stop = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(createError('CRAWL_RENDER_FAILED', url, `the page did not answer within ${ms} ms`)), ms);
    onAbort = () => reject(createError('ABORTED'));
    if (signal?.aborted) onAbort();
    signal?.addEventListener('abort', onAbort, { once: true });
  });
  work.catch(() => undefined);
  try {
    return await Promise.race([work, stop]);
  } finally {
    clearTimeout(timer);
    if (onAbort) signal?.removeEventListener('abort', onAbort);
  }
}

/** Starts Chromium lazily, on the first page that needs it: a crawl of PDFs alone never does. */
export function createPageRenderer(options: RendererOptions): PageRenderer {
  let started: Promise<{ browser: Browser; context: BrowserContext }> | null = null;

  return {
    async render(input) {
      started ??= launch(options);
      const { context } = await started;
      const { signal } = input;
      const limit = options.renderTimeoutMs;
      const page = await context.newPage();
      let documentServed = false;
      const navigations: string[] = [];
      try {
        await page.route('**/*', async (route: Route) => {
          const request = route.request();
          if (request.isNavigationRequest() && request.frame() === page.mainFrame()) {
            // The first main-frame navigation is the page itself; later ones are scripts sending
            // the browser elsewhere, which would throw away the page being read.
            // Its target is kept as a link: it is often the only way to the page's new address.
            if (documentServed) {
              navigations.push(request.url());
              return route.abort('aborted');
            }
            documentServed = true;
            return route.fulfill({ status: 200, contentType: input.contentType, body: Buffer.from(input.body) });
          }
          if (REFUSED_RESOURCES.has(request.resourceType())) return route.abort('blockedbyclient');
          return route.continue();
        });
        await bounded(page.goto(input.url, { waitUntil: 'commit', timeout: limit }), limit + 1000, input.url, signal);
        try {
          await bounded(page.waitForLoadState('networkidle', { timeout: limit }), limit + 1000, input.url, signal);
        } catch (error) {
          // A page whose network never goes quiet (polling, a stuck request) is read as it is now.
          if (isHarelError(error, 'ABORTED')) throw error;
        }
        const snapshot = await bounded(page.evaluate(PAGE_SNAPSHOT_SCRIPT) as Promise<PageSnapshot>, limit, input.url, signal);
        const links = [...snapshot.links, ...navigations.map((href) => ({ href, text: '' }))];
        return { ...snapshot, links };
      } catch (error) {
        if (signal?.aborted) throw createError('ABORTED');
        if (isHarelError(error)) throw error;
        throw createError('CRAWL_RENDER_FAILED', input.url, error instanceof Error ? error.message.split('\n')[0] : String(error));
      } finally {
        // Measured here: closing a page while its route handlers are busy can hang for good, so
        // the close is awaited only for a while; closing the browser at the end cleans up.
        await bounded(page.close(), 5000, input.url).catch(() => undefined);
      }
    },
    async close() {
      if (!started) return;
      const { browser } = await started.catch(() => ({ browser: null }));
      await browser?.close().catch(() => undefined);
    },
  };
}
