/**
 * The element's header: the title bar (title, the (i) details button, "clear"), the one sentence
 * on how answers are written here, the offer to load the language model (and its download), and
 * the technical details a site owner or support engineer needs (engine, search mode, index size,
 * storage, the model's and the reader's state), always in the page and shown by (i) or `debug`.
 */
import { html, nothing, type TemplateResult } from 'lit';
import type { AnswerMode } from '../answer/types.ts';
import type { Lang } from '../core/schema.ts';
import type { ChatSession } from '../session/chat-session.ts';
import type { LlmSupport } from '../session/llm-loader.ts';
import type { ChatConfig } from './config.ts';
import { formatBytes } from './load-progress.ts';
import { renderSearchInfo } from './search-details.ts';
import type { StorageUsage } from './session-controller.ts';
import { UI_STRINGS } from './strings.ts';

export type ActiveEngine = 'webllm' | 'gguf' | 'extractive';

/** What the header shows. */
export interface HeaderModel {
  ui: Lang;
  title: string;
  session: ChatSession | null;
  config: ChatConfig;
  detailsOpen: boolean;
  llmSupport: LlmSupport | null;
  activeMode: AnswerMode;
  activeEngine: ActiveEngine;
  storageUsage: StorageUsage | null;
  /** Whether there is anything for "clear" to empty. */
  canClear: boolean;
}

export interface HeaderHandlers {
  toggleDetails(): void;
  clear(): void;
  loadModel(): void;
}

export function renderHeader(m: HeaderModel, handlers: HeaderHandlers): TemplateResult {
  const s = UI_STRINGS[m.ui];
  const showDetails = m.detailsOpen || m.config.debug;
  return html`<header part="header">
        <div class="titlebar">
          <h2 part="title"><bdi>${m.title}</bdi></h2>
          ${
            m.config.debug
              ? nothing
              : html`<button type="button" class="info" part="details-button" aria-controls="tech" aria-expanded=${showDetails ? 'true' : 'false'}
                title=${s.techDetails} aria-label=${s.techDetails} @click=${() => handlers.toggleDetails()}>i</button>`
          }
          <button type="button" part="clear-button" @click=${() => handlers.clear()} ?disabled=${!m.canClear}>${s.clear}</button>
        </div>
        <p class="subtitle" part="subtitle">${aboutText(m)}</p>
        ${renderModelOffer(m, handlers)}
        ${renderDetails(m, showDetails)}
      </header>`;
}

/** The one plain sentence under the title: how answers are written on this device. */
function aboutText(m: HeaderModel): string {
  const about = UI_STRINGS[m.ui].about;
  if (m.activeMode === 'llm') return about.llm;
  if (m.config.mode === 'extractive') return about.quote;
  const model = m.session?.model;
  if (model?.status === 'loading') return about.modelLoading;
  if (model?.status === 'unavailable' || model?.status === 'error') return about.quoteNoModel;
  if (model?.status === 'none' && m.llmSupport?.ok) return about.quoteModelOffer;
  return about.quote;
}

/**
 * What a site owner or a support engineer needs and a customer does not: the engine and search
 * mode, the index's size, storage, and why the language model is not offered, in full. Always in
 * the page (its parts keep their data attributes), shown by the (i) button or `debug`.
 */
function renderDetails(m: HeaderModel, show: boolean): TemplateResult {
  const s = UI_STRINGS[m.ui];
  const session = m.session;
  const info = session?.indexStatus === 'ready' ? (session.indexInfo ?? null) : null;
  const storage = m.storageUsage;
  return html`<div class="tech" id="tech" part="details" ?hidden=${!show}>
      <div class="row">
        <span class="badge mode" part="mode-badge" data-mode=${m.activeMode} data-engine=${m.activeEngine}
          title=${m.activeMode === 'llm' ? `${s.modeLlm}: ${session?.model.modelId ?? ''}` : s.modeExtractive}>
          ${m.activeMode === 'llm' ? s.modeLlmShort : s.modeExtractiveShort}</span>
        ${session?.indexInfo ? html`<span class="badge" part="search-badge" data-search=${session.indexInfo.searchMode}>${session.indexInfo.searchMode === 'hybrid' ? s.searchHybrid : s.searchBm25}</span>` : nothing}
      </div>
      ${info ? html`<div part="index-info" data-build=${info.buildId}>${s.indexReady(info.documentCount, info.chunkCount)}${info.fromCache ? ` · ${s.fromCache}` : ''}</div>` : nothing}
      ${info?.indexError ? html`<div class="detail" dir="ltr" data-code=${info.indexError.code}>[${info.indexError.code}] ${info.indexError.message}</div>` : nothing}
      ${info ? renderSearchInfo(info, m.ui) : nothing}
      ${
        storage?.quota
          ? html`<div part="storage" data-persisted=${storage.persisted}>${s.storage(formatBytes(storage.used, m.ui), formatBytes(storage.quota, m.ui))}${storage.persisted ? ` · ${s.storagePersisted}` : ''}</div>`
          : nothing
      }
      ${session?.model.status === 'ready' ? html`<div part="model-info" dir="ltr" data-engine=${m.activeEngine}>${s.modeLlm}: ${session.model.modelId}</div>` : nothing}
      ${renderModelReason(m)}
      ${renderReaderInfo(m)}
    </div>`;
}

/** The reader model's state (in the details), where the page has one: loading with its progress, ready, or why not. */
function renderReaderInfo(m: HeaderModel): TemplateResult | typeof nothing {
  const state = m.session?.reader.state;
  if (!m.config.reader || !state) return nothing;
  const s = UI_STRINGS[m.ui];
  const progress = state.progress?.total ? ` ${Math.round((100 * state.progress.done) / state.progress.total)}%` : '';
  const text = state.status === 'ready' ? state.modelId : state.status === 'loading' ? `${s.readerLoading}${progress}` : state.status === 'error' ? `${s.readerFailed}: ${state.reason}` : s.readerOff;
  return html`<div part="reader-info" data-state=${state.status} dir="ltr">${s.reader}: ${text}</div>`;
}

/** Why there is no language model, in full (in the details). */
function renderModelReason(m: HeaderModel): TemplateResult | typeof nothing {
  const s = UI_STRINGS[m.ui];
  const model = m.session?.model;
  if (m.config.mode === 'extractive' || !model) return nothing;
  if (model.status === 'unavailable' || model.status === 'error') {
    const why = model.status === 'error' ? s.modelFailed : s.modelWhy[model.unavailable ?? 'incompatible'];
    return html`<div class="model" part="model-status" data-state=${model.status} data-reason=${model.unavailable ?? model.code ?? 'error'}>
        <span>${s.modelUnavailable} · ${why}</span><div class="detail" dir="ltr">${model.reason}</div></div>`;
  }
  if (model.status === 'none' && m.llmSupport?.ok && m.llmSupport.note) return html`<div class="detail" dir="ltr">${m.llmSupport.note}</div>`;
  return nothing;
}

/** The customer's choices about the model: the offer to load it, and its download while it loads. */
function renderModelOffer(m: HeaderModel, handlers: HeaderHandlers): TemplateResult | typeof nothing {
  const s = UI_STRINGS[m.ui];
  const session = m.session;
  const model = session?.model;
  if (m.config.mode === 'extractive' || !model) return nothing;
  if (model.status === 'loading') {
    const p = model.progress;
    return html`<div class="model" part="model-status" data-state="loading">${s.modelLoading}
        ${p?.total ? html`<progress max=${p.total} value=${p.done} aria-label=${s.modelLoading}></progress>` : nothing}
        <button type="button" @click=${() => session?.cancelModelLoad()}>${s.stop}</button></div>`;
  }
  if (model.status === 'none' && m.llmSupport?.ok) {
    return html`<div class="model" part="model-status" data-state="available">
        <button type="button" part="load-model-button" @click=${() => handlers.loadModel()}>${s.loadModel(formatBytes(m.llmSupport.downloadBytes, m.ui))}</button></div>`;
  }
  return nothing;
}
