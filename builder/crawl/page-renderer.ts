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
import { createError, isHarelError } from '../../widget/core/errors.ts';
import { locateChromium } from '../browser/chromium.ts';
import { PAGE_SNAPSHOT_SCRIPT, type PageSnapshot } from './page-snapshot.ts';

export interface RenderInput {
  url: string;
  body: Uint8Array;
  contentType: string;
  signal?: AbortSignal;
}

export interface RenderedPage extends PageSnapshot {
  /** False when the network never went quiet and the page was read at the render timeout. */
  settled: boolean;
}

export interface PageRenderer {
  render(input: RenderInput): Promise<RenderedPage>;
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

/** A page busy in an endless script never answers `evaluate`; the crawl must not wait on it forever. */
async function withDeadline<T>(work: Promise<T>, ms: number, url: string): Promise<T> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  const deadline = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(createError('CRAWL_RENDER_FAILED', url, `the page did not answer within ${ms} ms`)), ms);
  });
  try {
    return await Promise.race([work, deadline]);
  } finally {
    clearTimeout(timer);
  }
}

/** Starts Chromium lazily, on the first page that needs it: a crawl of PDFs alone never does. */
export function createPageRenderer(options: RendererOptions): PageRenderer {
  let started: Promise<{ browser: Browser; context: BrowserContext }> | null = null;

  return {
    async render(input) {
      started ??= launch(options);
      const { context } = await started;
      const page = await context.newPage();
      const onAbort = (): void => void page.close().catch(() => undefined);
      input.signal?.addEventListener('abort', onAbort, { once: true });
      let documentServed = false;
      try {
        await page.route('**/*', async (route: Route) => {
          const request = route.request();
          if (request.isNavigationRequest() && request.frame() === page.mainFrame()) {
            // The first main-frame navigation is the page itself; later ones are scripts sending
            // the browser elsewhere, which would throw away the page being read.
            if (documentServed) return route.abort('aborted');
            documentServed = true;
            return route.fulfill({ status: 200, contentType: input.contentType, body: Buffer.from(input.body) });
          }
          if (REFUSED_RESOURCES.has(request.resourceType())) return route.abort('blockedbyclient');
          return route.continue();
        });
        await page.goto(input.url, { waitUntil: 'commit', timeout: options.renderTimeoutMs });
        let settled = true;
        try {
          await page.waitForLoadState('networkidle', { timeout: options.renderTimeoutMs });
        } catch {
          settled = false;
        }
        if (input.signal?.aborted) throw createError('ABORTED');
        const snapshot = await withDeadline(page.evaluate(PAGE_SNAPSHOT_SCRIPT) as Promise<PageSnapshot>, options.renderTimeoutMs, input.url);
        return { ...snapshot, settled };
      } catch (error) {
        if (input.signal?.aborted) throw createError('ABORTED');
        if (isHarelError(error)) throw error;
        throw createError('CRAWL_RENDER_FAILED', input.url, error instanceof Error ? error.message.split('\n')[0] : String(error));
      } finally {
        input.signal?.removeEventListener('abort', onAbort);
        await page.close().catch(() => undefined);
      }
    },
    async close() {
      if (!started) return;
      const { browser } = await started.catch(() => ({ browser: null }));
      await browser?.close().catch(() => undefined);
    },
  };
}
