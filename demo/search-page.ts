/**
 * A debugging page beside the demo (/search.html): loads the index through the shared core
 * (fetch → sha256 check → DecompressionStream → Orama restore with the project's tokenizer) and
 * shows ranked passages. BM25 only: query embedding in the browser comes with the widget.
 */
import { readIndex, type IndexFileSource } from '../widget/core/format/read-index.ts';
import { Retriever } from '../widget/core/retrieval/retriever.ts';

const INDEX_BASE = new URL(new URLSearchParams(location.search).get('index') ?? '/index/', location.href);

const source: IndexFileSource = {
  async read(path, signal) {
    const response = await fetch(new URL(path, INDEX_BASE), { signal });
    if (!response.ok) throw new Error(`${path}: HTTP ${response.status}`);
    return new Uint8Array(await response.arrayBuffer());
  },
};

const $ = <T extends HTMLElement>(id: string) => document.getElementById(id) as T;
const status = $<HTMLParagraphElement>('status');

function render(retriever: Retriever, query: string): void {
  const result = retriever.search(query, { mode: 'bm25', k: 5 });
  const route = result.route;
  $('route').textContent = route?.domain ? `domain: ${route.domain} (${route.confidence.toFixed(2)})${result.domainFilter ? ' — filtered' : ''}` : '';
  const list = $<HTMLOListElement>('results');
  list.replaceChildren(
    ...result.hits.map((hit) => {
      const li = document.createElement('li');
      li.dataset.file = hit.file;
      li.dataset.page = String(hit.page);
      const where = document.createElement('div');
      where.className = 'where';
      where.dir = 'auto';
      where.textContent = `${hit.title} · ${[...hit.sectionPath].join(' › ')} · p. ${hit.page}`;
      const text = document.createElement('div');
      text.className = 'text';
      text.dir = 'auto';
      // textContent, never innerHTML: document text is data, not markup.
      text.textContent = hit.text.slice(0, 400);
      li.append(where, text);
      return li;
    }),
  );
  if (result.hits.length === 0) list.textContent = 'No passage matched.';
}

async function start(): Promise<void> {
  try {
    const index = await readIndex(source, {
      onProgress: (p) => (status.textContent = `Loading the index… ${p.done}/${p.total ?? '?'} bytes`),
    });
    const retriever = new Retriever(index);
    status.textContent = `Index ${index.manifest.buildId} ready: ${index.manifest.counts.documents} documents, ${index.manifest.counts.chunks} chunks (BM25 search).`;
    status.dataset.state = 'ready';
    $<HTMLFormElement>('search').addEventListener('submit', (event) => {
      event.preventDefault();
      render(retriever, $<HTMLInputElement>('q').value);
    });
  } catch (error) {
    status.dataset.state = 'error';
    const code = (error as { code?: string }).code;
    status.textContent = `${code ? `[${code}] ` : ''}${error instanceof Error ? error.message : String(error)}`;
  }
}

void start();
