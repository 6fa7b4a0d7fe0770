/**
 * The demo's service worker: Workbox's modules, bundled by demo/scripts/build-site.ts, which also
 * writes the precache list of the build in place of self.__WB_MANIFEST (the injectManifest way).
 * Not generateSW: it registers the precache route first, so a precached index file would always
 * win over the network and a new index build would be checked against the old files. Here the
 * index's routes come first and the precache is only their offline fallback.
 *
 * What is cached where (one owner per file; tests/e2e/pwa.spec.ts checks that no URL is stored twice):
 * - precache (revisioned at build time): the pages, the widget's code, its workers, onnxruntime's
 *   .wasm and .mjs (only when the index has vectors), the icons and this build's index manifest.
 *   The precache owns onnxruntime's runtime (14 MB of wasm): it is code, replaced with the build
 *   by its revision;
 * - the index's data files are NOT cached here: the widget keeps the verified build in IndexedDB
 *   and starts from it offline (demo/scripts/build-site.ts says why they left the precache);
 * - `harel-index-manifest`: the index's manifest.json, network first, so a new build is seen the
 *   moment it is published and the last one seen is used offline. The one URL in two caches, on
 *   purpose: the precache holds this build's manifest, this cache the newest one seen;
 * - the embedder's files under /models/ are NOT cached here: the widget already keeps every
 *   model file it fetches in its own Cache Storage (`transformers-cache`, cache first:
 *   widget/embed/model-files.ts, measured in tests/e2e/pwa.spec.ts), on any site, with or
 *   without a service worker; a route here would store a second copy (43 MB for E5);
 * - `harel-llm-code`: the web-llm library chunks and llama.cpp's wasm (the GGUF engine), cache
 *   first, and only once a model is loaded.
 * The language model's weights are not touched either: web-llm keeps them in its own cache, and a second
 * copy here would double the largest download on the device.
 */
/// <reference lib="webworker" />
import { clientsClaim } from 'workbox-core';
import { cleanupOutdatedCaches, createHandlerBoundToURL, matchPrecache, precacheAndRoute } from 'workbox-precaching';
import { NavigationRoute, registerRoute } from 'workbox-routing';
import { CacheFirst, NetworkFirst } from 'workbox-strategies';
import type { WorkboxPlugin } from 'workbox-core/types.js';

declare const self: ServiceWorkerGlobalScope & { __WB_MANIFEST: Array<{ url: string; revision: string | null } | string> };

const sameOrigin = (url: URL) => url.origin === self.location.origin;
const isIndexFile = (url: URL) => sameOrigin(url) && url.pathname.startsWith('/index/');

/** When the network fails, answer from this build's precached copy. */
const precacheFallback: WorkboxPlugin = {
  handlerDidError: async ({ request }) => (await matchPrecache(request.url)) ?? undefined,
};

// The manifest decides which build the widget loads: always asked of the network first (a slow
// network gives up after 4 s, e.g. on a train), then the last one seen, then this build's.
registerRoute(({ url }) => isIndexFile(url) && url.pathname.endsWith('/manifest.json'), new NetworkFirst({ cacheName: 'harel-index-manifest', networkTimeoutSeconds: 4, plugins: [precacheFallback] }));
registerRoute(
  ({ url }) => sameOrigin(url) && (/^\/assets\/(web-llm|llm-worker)-[^/]+\.js$/.test(url.pathname) || /^\/assets\/wllama-[^/]+\.wasm$/.test(url.pathname)),
  new CacheFirst({ cacheName: 'harel-llm-code' }),
);

precacheAndRoute(self.__WB_MANIFEST);
cleanupOutdatedCaches();
// The page with any query (?lang=en, ?mode=…) is the same precached page.
registerRoute(new NavigationRoute(createHandlerBoundToURL('/index.html'), { allowlist: [/^\/(index\.html)?$/] }));

// A new version waits until the page asks (the "reload" button, workbox-window's
// messageSkipWaiting): the open page keeps the code and index it started with.
self.addEventListener('message', (event) => {
  if ((event.data as { type?: string } | null)?.type === 'SKIP_WAITING') void self.skipWaiting();
});
// The first install takes the open page at once, so it works offline without a reload.
clientsClaim();
