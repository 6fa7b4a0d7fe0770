/** Drives WorkerSearchService for tests/e2e/index-store.spec.ts; the state is on window.storeCheck. */
import { isHarelError } from '../../widget/core/errors.ts';
import type { Progress } from '../../widget/core/schema.ts';
import { searchSettled, type SearchResponse } from '../../widget/search/search-service.ts';
import { WorkerSearchService } from '../../widget/search/worker-search-service.ts';
import type { IndexLoadInfo } from '../../widget/workers/search-protocol.ts';

type Outcome = { info: IndexLoadInfo } | { error: { code: string; message: string } };

export interface StoreCheck {
  /** The load's outcome once search is settled: the query model in (hybrid) or failed (BM25, and why). */
  ready: Promise<Outcome>;
  /** The info as the index first answered (BM25 while the query model loads). */
  indexReady: Promise<Outcome>;
  progress: Progress[];
  search(query: string, k?: number): Promise<SearchResponse>;
}

const params = new URLSearchParams(location.search);
const service = new WorkerSearchService();
const progress: Progress[] = [];
const status = document.getElementById('status')!;

let settle: (info: IndexLoadInfo) => void = () => undefined;
const settled = new Promise<IndexLoadInfo>((resolve) => (settle = resolve));

const indexReady: Promise<Outcome> = service
  .load({
    manifestUrl: params.get('index') ?? '/index/manifest.json',
    // Default: the app's own /models/ folder (the test embedder); `?modelBase=` (empty) for none.
    modelBase: params.has('modelBase') ? params.get('modelBase') || null : '/models/',
    embedder: params.get('embedder'),
    onProgress: (p) => progress.push(p),
    onInfo: (info) => {
      if (searchSettled(info)) settle(info as IndexLoadInfo);
    },
  })
  .then(
    (info) => {
      if (searchSettled(info)) settle(info);
      status.dataset.state = 'ready';
      status.textContent = `build ${info.buildId}: ${info.chunkCount} chunks, ${info.searchMode}${info.fromCache ? ', from IndexedDB' : ''}`;
      return { info };
    },
    (error: unknown) => {
      status.dataset.state = 'error';
      const e = isHarelError(error) ? { code: error.code, message: error.message } : { code: 'UNKNOWN', message: String(error) };
      status.textContent = `[${e.code}] ${e.message}`;
      return { error: e };
    },
  );

const ready: Promise<Outcome> = indexReady.then(async (outcome) => ('error' in outcome ? outcome : { info: await settled }));

(window as unknown as { storeCheck: StoreCheck }).storeCheck = {
  ready,
  indexReady,
  progress,
  search: (query, k = 5) => service.search({ query, k }),
};
