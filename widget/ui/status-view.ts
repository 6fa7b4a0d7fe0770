/**
 * The status line under the header: one polite live region for the index's whole life (loading,
 * ready, failed). It stays in the page and only its words change, since a region inserted with its
 * text already in it is often not read. While loading it speaks when the step changes, not on
 * every byte: the counter is hidden from it and read on demand as the bar's value text.
 */
import { html, nothing, type TemplateResult } from 'lit';
import type { Lang } from '../core/schema.ts';
import type { IndexInfo } from '../search/search-service.ts';
import type { ChatSession } from '../session/chat-session.ts';
import { describeLoadProgress, type LoadProgressView } from './load-progress.ts';
import { UI_STRINGS } from './strings.ts';

export function renderStatus(session: ChatSession | null, ui: Lang): TemplateResult {
  const status = session?.indexStatus;
  const failed = status === 'error' ? (session?.indexError ?? null) : null;
  const info = status === 'ready' ? (session?.indexInfo ?? null) : null;
  const state = failed ? 'error' : status === 'loading' ? 'loading' : info ? 'ready' : nothing;
  return html`<div class=${failed ? 'status error' : 'status'} role="status" part="status" data-state=${state}
      data-code=${failed?.code ?? nothing} data-build=${info?.buildId ?? nothing}
      data-step=${status === 'loading' ? (session?.indexProgress?.step ?? nothing) : nothing}>${
        failed
          ? html`<span role="alert">${UI_STRINGS[ui].error} [${failed.code}]: ${failed.message}</span>`
          : status === 'loading' && session
            ? renderLoading(describeLoadProgress(session.indexProgress, ui))
            : info
              ? renderReady(info, ui)
              : nothing
      }</div>`;
}

function renderLoading(view: LoadProgressView): TemplateResult {
  return html`<span class="label">${view.label}${view.amount ? ':' : ''}</span>${view.amount ? html` <span class="amount" aria-hidden="true">${view.amount}</span>` : nothing}
      ${renderProgressBar(view)}`;
}

/** Ready: nothing to say, unless answers come from an older stored build or the index cannot be kept offline. */
function renderReady(info: IndexInfo, ui: Lang): TemplateResult | typeof nothing {
  if (!info.indexError && !info.storageWarning) return nothing;
  return html`${info.indexError ? html`<div class="stale" data-code=${info.indexError.code}>${UI_STRINGS[ui].staleIndex}</div>` : nothing}${info.storageWarning ? html`<div dir="auto">${info.storageWarning}</div>` : nothing}`;
}

/** The index's progress as a labelled bar; `<progress>` with no value is the indeterminate one. */
export function renderProgressBar(view: LoadProgressView): TemplateResult {
  return view.max
    ? html`<progress max=${view.max} .value=${view.value ?? 0} aria-label=${view.label} aria-valuetext=${view.amount ?? nothing}></progress>`
    : html`<progress aria-label=${view.label}></progress>`;
}
