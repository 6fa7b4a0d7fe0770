/**
 * "Add your policy" (issue 36), as the element shows it: the button and its hidden file input,
 * the whole panel as a drop target, errors in the panel's language (first, under the button, so a
 * long list never hides them), the privacy line, the list of the customer's documents (name, pages,
 * status, remove) and "remove all", and one polite live region that says what happens (reading,
 * added, meaning search progress, ready, removed). Also the pages a device citation opens
 * (`pages`, passed to the message view). A Lit reactive controller: the element wires it in and
 * forwards its public methods here.
 *
 * Every control is a real <button> whose accessible name says which document it acts on; focus
 * goes back to the add button when the document it was on is removed. The section follows the
 * panel's direction; names are isolated (device-documents.ts), and the page text a citation opens
 * is plain text in its own direction (dir="auto"), never HTML.
 */
import { html, nothing, type LitElement, type ReactiveController, type TemplateResult } from 'lit';
import { repeat } from 'lit/directives/repeat.js';
import type { Citation } from '../answer/types.ts';
import type { DeviceDocumentInfo } from '../core/device/device-document.ts';
import { asHarelError, createError, type HarelError, isHarelError } from '../core/errors.ts';
import type { Lang } from '../core/schema.ts';
import type { ChatSession } from '../session/chat-session.ts';
import { type DocumentAddition, documentName } from '../session/device-documents.ts';
import { additionText, type DevicePages, type DevicePageState, devicePageKey, documentErrorText, documentStatus, embeddedPercent, isFileDrag, isolatedName } from './device-documents.ts';
import { UI_STRINGS } from './strings.ts';

/** `harel-chat:documents`: the customer's documents, whenever one is added or removed or its embedding's status changes. */
export interface HarelChatDocumentsDetail {
  documents: DeviceDocumentInfo[];
}

/** What the controller reads from the element. */
export interface DeviceDocumentsSource {
  session(): ChatSession | null;
  lang(): Lang;
  /** How many questions the conversation holds (asked, answered or waiting): the section folds once there is one. */
  questionCount(): number;
  /** Reports a failure through the element's error path (harel-chat:error). */
  emitError(error: HarelError): void;
}

/** A failure shown in the section until dismissed or the next addition. */
interface Notice {
  key: number;
  name: string;
  code: string;
  message: string;
}

/** The most failures shown at once (the latest). */
const MAX_NOTICES = 3;

/** What one listed document's embedding was when last seen: for the announcements and the event. */
interface Seen {
  status: DeviceDocumentInfo['embedding']['status'];
  quarter: number;
}

/** The section's templates, as pure functions of what they show (the unit tests render them). */
export interface DocumentListHandlers {
  onCancel(key: number, name: string): void;
  onRemove(info: DeviceDocumentInfo): void;
  onRemoveAll(): void;
}

/** The list: additions under way, then the documents on this device; "remove all" under it. Nothing when both are empty. */
export function renderDocumentList(documents: readonly DeviceDocumentInfo[], additions: readonly DocumentAddition[], ui: Lang, handlers: DocumentListHandlers): TemplateResult | typeof nothing {
  if (!documents.length && !additions.length) return nothing;
  const s = UI_STRINGS[ui].documents;
  return html`<ul class="documents-list" part="documents-list" aria-labelledby="documents-title">
      ${repeat(
        additions,
        (a) => `a${a.key}`,
        (a) => html`<li class="document adding" part="document-addition" data-state=${a.step === 'index' ? 'indexing' : 'reading'}>
          <span class="doc-status">${additionText(a, ui)}</span>
          ${a.progress?.total ? html`<progress max=${a.progress.total} .value=${Math.min(a.progress.done, a.progress.total)} aria-label=${additionText(a, ui)}></progress>` : html`<progress aria-label=${additionText(a, ui)}></progress>`}
          <button type="button" part="document-cancel" aria-label=${s.cancelLabel(isolatedName(a.name))} @click=${() => handlers.onCancel(a.key, a.name)}>${s.cancel}</button>
        </li>`,
      )}
      ${repeat(
        documents,
        (d) => d.id,
        (d) => renderDocument(d, ui, handlers),
      )}
    </ul>
    ${documents.length > 1 ? html`<button type="button" class="remove-all" part="documents-remove-all" @click=${() => handlers.onRemoveAll()}>${s.removeAll}</button>` : nothing}`;
}

function renderDocument(info: DeviceDocumentInfo, ui: Lang, handlers: DocumentListHandlers): TemplateResult {
  const s = UI_STRINGS[ui].documents;
  const status = documentStatus(info, ui);
  const name = isolatedName(info.name);
  const embedding = status.percent !== null;
  return html`<li class="document" part="document" data-id=${info.id} data-state=${status.state} data-embedding=${info.embedding.status}>
    <span class="name"><bdi dir="auto" part="document-name">${info.name}</bdi> <span class="pages">· ${s.pages(info.pages)}</span></span>
    <span class="doc-status" part="document-status" title=${info.embedding.error ?? nothing}>${status.text}</span>
    ${embedding ? html`<progress max="100" .value=${status.percent ?? 0} aria-label=${s.meaningProgress(name)} aria-valuetext=${`${status.percent}%`}></progress>` : nothing}
    <button type="button" part="document-remove" data-id=${info.id} aria-label=${embedding ? s.stopAndRemoveLabel(name) : s.removeLabel(name)}
      @click=${() => handlers.onRemove(info)}>${embedding ? s.stopAndRemove : s.remove}</button>
  </li>`;
}

/** One failure: what happened in the panel's words, the code and its English message as the detail. */
export function renderDocumentNotice(notice: Notice, ui: Lang, onDismiss: (key: number) => void): TemplateResult {
  const s = UI_STRINGS[ui].documents;
  return html`<div class="document-error" part="document-error" data-code=${notice.code}>
    <span>${documentErrorText(notice, notice.name, ui)}</span>
    <div class="detail" dir="ltr">[${notice.code}] ${notice.message}</div>
    <button type="button" part="document-error-dismiss" @click=${() => onDismiss(notice.key)}>${s.dismiss}</button>
  </div>`;
}

/** A device page opened from a citation card: loading, its text (plain, in its own direction), or why not. */
export function renderDevicePage(state: DevicePageState, id: string, name: string, page: number, ui: Lang): TemplateResult {
  const s = UI_STRINGS[ui].documents;
  if (state.status === 'loading') return html`<div class="device-page" id=${id} part="device-page" data-state="loading" role="status">${s.pageLoading}</div>`;
  if (state.status === 'failed') {
    // Removed since the answer was written: say so, rather than that the page failed.
    const why = state.code === 'DOCUMENT_NOT_FOUND' ? documentErrorText(state, name, ui) : s.pageFailed;
    return html`<div class="device-page" id=${id} part="device-page" data-state="failed" data-code=${state.code} role="status">
      ${why}<div class="detail" dir="ltr">[${state.code}] ${state.message}</div></div>`;
  }
  return html`<div class="device-page" id=${id} part="device-page" data-state="shown" role="region" aria-label=${s.pageLabel(isolatedName(name), page)} dir="auto">${state.text}</div>`;
}

export class DeviceDocumentsController implements ReactiveController {
  private notices: Notice[] = [];
  private nextNotice = 1;
  private announcement = '';
  /** Nested dragenter/dragleave over the panel's children: > 0 while a file is over the panel. */
  private dragDepth = 0;
  private seen = new Map<string, Seen>();
  private seenSession: ChatSession | null = null;
  private signature = '';
  private pageStates: DevicePages = new Map();
  /** The question count when the customer last opened the folded section: it stays open until the next question. */
  private openedAt: number | null = null;

  constructor(
    private readonly host: LitElement,
    private readonly source: DeviceDocumentsSource,
  ) {
    host.addController(this);
  }

  /** The documents on this device (empty before the index is loaded, or where they cannot be added). */
  get documents(): DeviceDocumentInfo[] {
    return [...(this.source.session()?.documents ?? [])];
  }

  /** The device pages opened from citation cards; a new map on every change (the message view's guard keys on it). */
  get pages(): DevicePages {
    return this.pageStates;
  }

  /** Whether documents can be added here: a session whose search service holds them, and an index that did not fail. */
  get available(): boolean {
    const session = this.source.session();
    return !!session && session.deviceDocuments.supported && session.indexStatus !== 'error';
  }

  hostConnected(): void {
    this.dragDepth = 0;
  }

  /**
   * Before each render: says what changed in the list (meaning search progress by quarters, ready,
   * failed) and fires `harel-chat:documents` when a document came or went or its embedding's status
   * changed. A new session (another index) starts from its own list, announcing nothing.
   */
  hostUpdate(): void {
    const session = this.source.session();
    const list = session?.documents ?? [];
    const fresh = session !== this.seenSession;
    this.seenSession = session;
    const ui = this.source.lang();
    const s = UI_STRINGS[ui].documents;
    const next = new Map<string, Seen>();
    for (const info of list) {
      const now: Seen = { status: info.embedding.status, quarter: Math.floor(embeddedPercent(info) / 25) };
      const before = this.seen.get(info.id);
      next.set(info.id, now);
      if (fresh || !before) continue;
      const name = isolatedName(info.name);
      // Set, not announce(): this render shows it, and a request from here would be another render.
      if (now.status === 'done' && before.status !== 'done') this.announcement = s.announceReady(name);
      else if (now.status === 'failed' && before.status !== 'failed') this.announcement = s.announceEmbedFailed(name);
      else if (now.status === 'running' && now.quarter > before.quarter && now.quarter < 4) this.announcement = s.announceMeaning(name, now.quarter * 25);
    }
    this.seen = next;
    const signature = list.map((d) => `${d.id}:${d.embedding.status}`).join('|');
    if (signature !== this.signature) {
      this.signature = signature;
      if (!fresh || list.length) {
        const detail: HarelChatDocumentsDetail = { documents: [...list] };
        this.host.dispatchEvent(new CustomEvent('harel-chat:documents', { detail, bubbles: true, composed: true }));
      }
    }
  }

  /**
   * Adds a document (the element's `addDocument`, the file input, a drop): the failure is shown in
   * the section, announced, and reported as harel-chat:error (a cancel only announced), then
   * rethrown for the caller.
   */
  async add(file: Blob, name?: string): Promise<DeviceDocumentInfo> {
    const session = this.source.session();
    const shown = documentName(file, name);
    const s = () => UI_STRINGS[this.source.lang()].documents;
    this.notices = [];
    this.announce(s().announceReading(isolatedName(shown)));
    try {
      if (!session) throw createError('INDEX_NOT_READY');
      const info = await session.addDocument(file, name);
      this.announce(s().announceAdded(isolatedName(info.name)));
      return info;
    } catch (error) {
      const failure = asHarelError(error);
      if (isHarelError(failure, 'ABORTED')) this.announce(s().announceCancelled(isolatedName(shown)));
      else this.fail(failure, shown);
      throw failure;
    }
  }

  /** Removes one document; focus goes to the add button, since the one pressed is gone. */
  async remove(id: string): Promise<void> {
    const session = this.source.session();
    const name = session?.documents.find((d) => d.id === id)?.name ?? id;
    try {
      await session?.removeDocument(id);
      this.announce(UI_STRINGS[this.source.lang()].documents.announceRemoved(isolatedName(name)));
      this.forgetPages(id);
    } catch (error) {
      this.fail(asHarelError(error), name);
      throw error;
    }
  }

  async removeAll(): Promise<void> {
    const session = this.source.session();
    try {
      await session?.removeAllDocuments();
      this.announce(UI_STRINGS[this.source.lang()].documents.announceRemovedAll);
      this.pageStates = new Map();
    } catch (error) {
      this.fail(asHarelError(error), '');
      throw error;
    }
  }

  /** A device citation's "show the page": opens its text from this device, or closes it when shown. */
  async togglePage(citation: Citation): Promise<void> {
    const id = citation.deviceDocument;
    const session = this.source.session();
    if (!id || !session) return;
    const key = devicePageKey(id, citation.page);
    if (this.pageStates.has(key)) {
      this.setPage(key, null);
      return;
    }
    this.setPage(key, { status: 'loading' });
    try {
      const text = await session.devicePage(id, citation.page);
      if (this.pageStates.get(key)?.status === 'loading') this.setPage(key, { status: 'shown', text });
    } catch (error) {
      const failure = asHarelError(error);
      if (this.pageStates.get(key)?.status === 'loading') this.setPage(key, { status: 'failed', code: failure.code, message: failure.message });
    }
  }

  /**
   * Whether the section is folded: once the conversation has a question it gives the conversation
   * its rows back (on a phone, where the styles show only the control that opens it again; about
   * 90 px of a 740 px screen otherwise), unless something in it needs the customer's eyes (an
   * addition under way, a failure) or they opened it since the last question.
   */
  folded(session: ChatSession): boolean {
    const asked = this.source.questionCount();
    return asked > 0 && asked !== this.openedAt && !this.notices.length && !session.deviceDocuments.additions.length;
  }

  /** The button, the privacy line, the list, the failures and the live region; nothing where documents cannot be added. */
  renderSection(ui: Lang): TemplateResult | typeof nothing {
    const session = this.source.session();
    if (!session || !this.available) return nothing;
    const s = UI_STRINGS[ui].documents;
    const folded = this.folded(session);
    const handlers: DocumentListHandlers = {
      onCancel: (key) => session.deviceDocuments.cancel(key),
      onRemove: (info) => void this.removeAndRefocus(info.id),
      onRemoveAll: () => void this.removeAllAndRefocus(),
    };
    return html`<section class="documents" part="documents" aria-labelledby="documents-title" ?data-folded=${folded}>
      <h3 id="documents-title" class="sr-only">${s.heading}</h3>
      ${
        folded
          ? html`<button type="button" class="documents-toggle" part="documents-toggle" aria-expanded="false" @click=${() => this.unfold()}>${s.reopen(session.documents.length)}</button>`
          : nothing
      }
      <div class="documents-bar">
        <button type="button" part="add-document-button" aria-describedby="documents-privacy" @click=${() => this.pick()}>${s.add}</button>
        <span class="hint" aria-hidden="true">${s.dropHint}</span>
        <input type="file" part="document-input" accept=".pdf,application/pdf" multiple hidden aria-label=${s.inputLabel} @change=${(e: Event) => this.onPicked(e)} />
      </div>
      ${this.notices.map((n) => renderDocumentNotice(n, ui, (key) => this.dismiss(key)))}
      <p class="privacy" id="documents-privacy" part="documents-privacy">${s.privacy}</p>
      ${renderDocumentList(session.documents, session.deviceDocuments.additions, ui, handlers)}
      <div class="sr-only" part="documents-announcer" aria-live="polite" aria-atomic="true">${this.announcement}</div>
    </section>`;
  }

  /** Over the panel while a file is dragged over it. */
  renderDropOverlay(ui: Lang): TemplateResult | typeof nothing {
    if (this.dragDepth <= 0) return nothing;
    return html`<div class="drop-overlay" part="drop-overlay" aria-hidden="true"><span>${UI_STRINGS[ui].documents.dropHere}</span></div>`;
  }

  /** Whether a file is being dragged over the panel (its `data-dropping`). */
  get dropping(): boolean {
    return this.dragDepth > 0;
  }

  /** The panel's drag events: only a drag that carries files is taken; text and links are left alone. */
  readonly onDragEnter = (event: DragEvent): void => {
    if (!this.available || !isFileDrag(event.dataTransfer)) return;
    event.preventDefault();
    this.dragDepth++;
    if (this.dragDepth === 1) this.host.requestUpdate();
  };

  readonly onDragOver = (event: DragEvent): void => {
    if (!this.available || !isFileDrag(event.dataTransfer)) return;
    event.preventDefault();
    if (event.dataTransfer) event.dataTransfer.dropEffect = 'copy';
  };

  readonly onDragLeave = (event: DragEvent): void => {
    if (!this.available || !isFileDrag(event.dataTransfer) || this.dragDepth <= 0) return;
    this.dragDepth--;
    if (this.dragDepth === 0) this.host.requestUpdate();
  };

  readonly onDrop = (event: DragEvent): void => {
    if (!this.available || !isFileDrag(event.dataTransfer)) return;
    event.preventDefault();
    this.dragDepth = 0;
    this.host.requestUpdate();
    this.addFiles(Array.from(event.dataTransfer?.files ?? []));
  };

  /** The folded section's control: opens it, with focus on the add button (the control it stood for). */
  private unfold(): void {
    this.openedAt = this.source.questionCount();
    this.host.requestUpdate();
    this.focusAddButton();
  }

  private pick(): void {
    this.host.renderRoot.querySelector<HTMLInputElement>('input[part~="document-input"]')?.click();
  }

  private onPicked(event: Event): void {
    const input = event.target as HTMLInputElement;
    const files = Array.from(input.files ?? []);
    // The same file picked again (after removing it) fires change again.
    input.value = '';
    this.addFiles(files);
  }

  /** One after another: each file its own addition, its own failure. */
  private addFiles(files: File[]): void {
    void files.reduce<Promise<unknown>>((previous, file) => previous.then(() => this.add(file).catch(() => undefined)), Promise.resolve());
  }

  private async removeAndRefocus(id: string): Promise<void> {
    await this.remove(id).catch(() => undefined);
    this.focusAddButton();
  }

  private async removeAllAndRefocus(): Promise<void> {
    await this.removeAll().catch(() => undefined);
    this.focusAddButton();
  }

  private focusAddButton(): void {
    void this.host.updateComplete.then(() => this.host.renderRoot.querySelector<HTMLButtonElement>('[part~="add-document-button"]')?.focus());
  }

  private fail(error: HarelError, name: string): void {
    this.notices = [...this.notices, { key: this.nextNotice++, name, code: error.code, message: error.message }].slice(-MAX_NOTICES);
    this.source.emitError(error);
    this.host.requestUpdate();
  }

  private dismiss(key: number): void {
    this.notices = this.notices.filter((n) => n.key !== key);
    this.host.requestUpdate();
    this.focusAddButton();
  }

  private announce(text: string): void {
    this.announcement = text;
    this.host.requestUpdate();
  }

  private setPage(key: string, state: DevicePageState | null): void {
    const next = new Map(this.pageStates);
    if (state) next.set(key, state);
    else next.delete(key);
    this.pageStates = next;
    this.host.requestUpdate();
  }

  private forgetPages(id: string): void {
    const next = new Map([...this.pageStates].filter(([key]) => !key.startsWith(`${id}#`)));
    if (next.size !== this.pageStates.size) {
      this.pageStates = next;
      this.host.requestUpdate();
    }
  }
}
