/**
 * `<harel-chat>`: the assistant as one custom element. It renders a ChatSession (index loading,
 * the answer loop, the engines, persistence) and exposes `ask()` and three events so a page —
 * or the browser evals — can drive it without touching the UI.
 *
 * Its parts live beside it: the configuration (config.ts, read once per change), the session's
 * lifecycle (session-controller.ts), the header, status line, conversation list and composer
 * (header-view.ts, status-view.ts, conversation-view.ts, composer-view.ts), and the customer's
 * own documents (device-documents-view.ts, reached only through `documentsView`).
 *
 * Properties are declared with `static properties` rather than decorators: the project compiles
 * with standard class fields, which would shadow decorator-made accessors.
 */
import { html, LitElement, type PropertyDeclaration, type PropertyValues, type TemplateResult } from 'lit';
import type { Answer, AnswerMode } from '../answer/types.ts';
import type { DeviceDocumentInfo } from '../core/device/device-document.ts';
import { createError, HarelError } from '../core/errors.ts';
import type { Lang } from '../core/schema.ts';
import type { ContactChannels } from '../text/strings.ts';
import { contactName } from '../text/off-topic-reply.ts';
import type { EngineSetting } from '../session/engine-choice.ts';
import type { IndexInfo } from '../search/search-service.ts';
import { contactLinksCache } from './contact-links.ts';
import { answerClipboardText, closeOpenCard, openCitationCard } from './citation-cards.ts';
import { ATTRIBUTE_DEFAULTS, type ChatConfig, CONFIG_KEYS, type ChatAttributes, mergeContacts, type ModeSetting, parseConfig, type StarterQuestions, startersAttribute } from './config.ts';
import { renderComposer } from './composer-view.ts';
import { renderConversationList } from './conversation-view.ts';
import { langDirection } from './direction.ts';
import { DeviceDocumentsController } from './device-documents-view.ts';
import type { TurnHandlers } from './message-view.ts';
import { EscalationController } from './escalate-view.ts';
import { feedbackDetail, feedbackOf, nextFeedback, type FeedbackChange } from './feedback.ts';
import { AnswerFollower } from './follow-answers.ts';
import { type ActiveEngine, renderHeader } from './header-view.ts';
import { errorDetail, SessionController } from './session-controller.ts';
import { renderStatus } from './status-view.ts';
import { chatStyles } from './styles.ts';
import { UI_STRINGS } from './strings.ts';

export { DEFAULT_MODEL, type ModeSetting, type StarterQuestions } from './config.ts';
export type { HarelChatErrorDetail, HarelChatReadyDetail, HarelChatSearchReadyDetail } from './session-controller.ts';

export class HarelChatElement extends LitElement {
  static override styles = chatStyles;

  static override properties = {
    index: { type: String },
    lang: { type: String },
    domain: { type: String },
    mode: { type: String },
    model: { type: String },
    modelBase: { type: String, attribute: 'model-base' },
    llmEngine: { type: String, attribute: 'llm-engine' },
    ggufModel: { type: String, attribute: 'gguf-model' },
    ggufAnswers: { type: String, attribute: 'gguf-answers' },
    readerModel: { type: String, attribute: 'reader-model' },
    readerCalls: { type: String, attribute: 'reader-calls' },
    readerRefuses: { type: Boolean, attribute: 'reader-refuses' },
    embedder: { type: String },
    queryModel: { type: String, attribute: 'query-model' },
    theme: { type: String, reflect: true },
    debug: { type: Boolean, reflect: true },
    siteName: { type: String, attribute: 'site-name' },
    contactPhone: { type: String, attribute: 'contact-phone' },
    contactWebsite: { type: String, attribute: 'contact-website' },
    contactEmail: { type: String, attribute: 'contact-email' },
    contactHours: { type: String, attribute: 'contact-hours' },
    contacts: { attribute: false },
    starters: { attribute: 'starters', converter: startersAttribute },
  };

  /** URL of the index's manifest.json. */
  declare index: string;
  /** Interface language: 'he', 'en' or 'auto' (the page's language). Each message keeps its own direction. */
  declare lang: string;
  /** A fixed product domain: every question is searched in it. */
  declare domain: string;
  declare mode: ModeSetting;
  /** web-llm model id. */
  declare model: string;
  /** A self-hosted folder (URL) for the LLM and the embedder; unset = the public hubs. */
  declare modelBase: string;
  /**
   * Which local model engine: 'webllm' (default: Gemma on WebGPU), 'gguf' (a GGUF model on
   * llama.cpp in WebAssembly, WebGPU where it helps) or 'auto' (session/engine-choice.ts decides).
   */
  declare llmEngine: EngineSetting;
  /**
   * The reader model (a GGUF fine-tuned to read one passage: training/reader/), relative to
   * model-base or a full URL, e.g. gguf/gemma-3-270m-harel-reader.gguf. Set, it loads in the
   * background once the index is in, and reads the cited page(s) of each answer (loop/read.ts).
   */
  declare readerModel: string;
  /** Reader calls per answer (default 2: each is seconds on a 2-core CPU). */
  declare readerCalls: string;
  /** Refuse where every window the reader read says the passage does not answer (off by default: docs/how-it-answers.md). */
  declare readerRefuses: boolean;
  /** The GGUF file, relative to model-base or a full URL; default gguf/gemma-3-270m-q4_k_m.gguf. */
  declare ggufModel: string;
  /** 'measured' (default): the GGUF model answers only the questions its measurements earned it; 'all': every question. */
  declare ggufAnswers: string;
  /** Overrides the index's embedder id. */
  declare embedder: string;
  /**
   * The model that embeds questions; default the index's manifest embedder.queryModel, else the
   * embedder. One trained against other passages is refused: search stays on words, and says why.
   */
  declare queryModel: string;
  declare theme: string;
  /** Shows the technical details (search mode, counts, storage, model reasons) open. */
  declare debug: boolean;
  /** The site's name, in the header and the off-topic reply (one for both languages; `contacts.name` may give two). */
  declare siteName: string;
  declare contactPhone: string;
  declare contactWebsite: string;
  declare contactEmail: string;
  declare contactHours: string;
  /**
   * Contact channels named in off-topic answers (a site sets it as a property). Merged field by
   * field: the index's `site` block, then this, then the `contact-*` and `site-name` attributes;
   * nothing set anywhere, the reply names no insurer. `siteContacts` is the result.
   */
  declare contacts: ContactChannels | undefined;
  /** Starter questions (property or JSON attribute); unset, the index's, else neutral ones. */
  declare starters: StarterQuestions | undefined;

  /** Resolves when the index is loaded (rejects when it cannot be). */
  get ready(): Promise<IndexInfo> {
    return this.chat.readyPromise;
  }

  /**
   * Resolves when the search mode is final: the query model is in (`searchMode: 'hybrid'`), failed
   * (BM25, `embedderError` says why) or not needed (no vectors). `ready` comes first: the index
   * answers by BM25 while the model loads. Rejects with `ready` when the index cannot be loaded.
   */
  get searchReady(): Promise<IndexInfo> {
    return this.chat.searchReadyPromise;
  }

  /** The configuration read from the fields above; null after a change until next asked for. */
  private parsed: ChatConfig | null = null;
  /** The session: started before the first render, replaced when its configuration changes, ended with the element. */
  private readonly chat = new SessionController(this, {
    config: () => this.config,
    emit: (type, detail) => this.emit(type, detail),
  });
  private draft = '';
  private announcement = '';
  private copiedTurn: number | null = null;
  /** The conversation's rows arrived (conversation-view.ts imports them with the first row). */
  private readonly rowsLoaded = (): void => this.requestUpdate();
  private readonly turnHandlers: TurnHandlers = {
    onCite: (t, n) => this.showCitation(t, n),
    onCopy: (t) => void this.copyAnswer(t),
    onRetry: (t) => this.retry(t),
    onFeedback: (t, change) => this.rate(t, change),
    onEscalate: (_t, reason, opener) => this.escalation.escalate(reason, opener),
    onDevicePage: (citation) => void this.documentsView.togglePage(citation),
  };
  /** The customer's own documents: the panel's section, the drop target, and the pages device citations open. */
  private readonly documentsView = new DeviceDocumentsController(this, {
    session: () => this.session,
    lang: () => this.uiLang,
    questionCount: () => {
      const session = this.session;
      return session ? session.turns.filter((t) => t.role === 'user').length + session.pending.length : 0;
    },
    emitError: (error) => this.emitError(error),
  });
  /** "Talk to a representative": the harel-chat:escalate event and the built-in contact panel. */
  private readonly escalation = new EscalationController(this, {
    turns: () => this.session?.turns ?? [],
    buildId: () => this.session?.indexInfo?.buildId ?? '',
    contacts: () => this.siteContacts,
  });
  /** The site's contact details, linked where an answer writes them; the same array while unchanged. */
  private readonly contactLinks = contactLinksCache();
  /** Keeps the answer being written in view unless the customer scrolled up (follow-answers.ts). */
  private readonly follower = new AnswerFollower(this, {
    list: () => this.renderRoot.querySelector<HTMLElement>('.log'),
    pill: () => this.renderRoot.querySelector<HTMLElement>('[part~="new-answer-button"]'),
    progress: () => {
      const session = this.session;
      return session ? `${session.turns.length}/${session.pending.length}/${session.answering ?? ''}/${session.streaming.length}` : '';
    },
  });
  /** Whether the technical details are shown (the (i) button); `debug` shows them always. */
  private detailsOpen = false;
  /** The citation card opened last from its marker: Esc closes it and gives the marker focus back. */
  private lastCard: string | null = null;

  constructor() {
    super();
    Object.assign(this, ATTRIBUTE_DEFAULTS);
  }

  /** The element's configuration, typed and checked (config.ts); read once after each change. */
  private get config(): ChatConfig {
    this.parsed ??= parseConfig(this satisfies ChatAttributes, document.baseURI);
    return this.parsed;
  }

  private get session() {
    return this.chat.session;
  }

  /** The interface language after resolving 'auto' against the page. */
  get uiLang(): Lang {
    const lang = this.config.lang;
    if (lang !== 'auto') return lang;
    const page = (document.documentElement.lang || navigator.language || 'he').toLowerCase();
    return page.startsWith('en') ? 'en' : 'he';
  }

  /**
   * The contact channels in use: the index's `site` block, overridden field by field by the
   * `contacts` property and then by the attributes. Undefined when nothing is set anywhere.
   */
  get siteContacts(): ContactChannels | undefined {
    const site = this.session?.indexInfo?.site;
    return mergeContacts(site ? { name: site.name, ...site.contacts } : undefined, this.config.contactLayers);
  }

  /** The site's name in `lang`, or null when none is set. */
  siteNameIn(lang: Lang): string | null {
    return contactName(this.siteContacts, lang);
  }

  /** The engine answering now. */
  get activeMode(): AnswerMode {
    return this.session?.mode ?? 'extractive';
  }

  /** The engine answering now: 'webllm', 'gguf' or 'extractive' (the badge's data-engine). */
  get activeEngine(): ActiveEngine {
    if (this.activeMode !== 'llm') return 'extractive';
    const support = this.chat.llmSupport;
    return support?.ok ? support.engine : this.config.llmEngine === 'gguf' ? 'gguf' : 'webllm';
  }

  /** Lifecycle: a changed configurable field makes the configuration be read again, once, when next needed. */
  override requestUpdate(name?: PropertyKey, oldValue?: unknown, options?: PropertyDeclaration, useNewValue?: boolean, newValue?: unknown): void {
    if (name !== undefined && (CONFIG_KEYS as PropertyKey[]).includes(name)) this.parsed = null;
    super.requestUpdate(name, oldValue, options, useNewValue, newValue);
  }

  /**
   * Asks a question as the customer would; resolves to the full answer (also shown in the chat).
   *
   * Concurrency: every question — from here, the composer, a starter or "ask again" — joins one
   * queue and is answered one at a time, in the order asked; each call resolves with its own
   * question's answer, and a new question never stops the one being answered. Asked while the
   * index loads, the question is shown at once and answered when search works; it rejects with
   * the load's error if the index cannot be loaded. `stop()` (and Esc, and the stop button) stops
   * the answer being written — kept as far as it was streamed, marked stopped — and every question
   * still waiting, each left in view marked stopped: their calls reject with ABORTED. `clear()`
   * does the same and then empties the conversation; nothing from before it comes back. The full
   * rule is in widget/session/chat-session.ts.
   */
  async ask(question: string): Promise<Answer> {
    const session = await this.chat.current();
    const s = UI_STRINGS[this.uiLang];
    const waits = session.queuing && session.indexStatus !== 'ready';
    try {
      const answering = session.submit(question, {
        // The answer is in the question's language; the interface's decides only for "?" or "5000".
        lang: this.uiLang,
        domain: this.config.domain,
        contacts: this.siteContacts,
      });
      // Said once when the question is queued; the progress ticks in its reply are not announced.
      if (waits && question.trim()) this.announcement = s.queuedAnnounce;
      const answer = await answering;
      this.announcement = answer.text;
      this.emit('harel-chat:answer', answer);
      return answer;
    } catch (error) {
      if (waits && error === session.indexError) this.announcement = s.queuedFailed;
      // The load's failure was reported once, by the load; ABORTED is the customer's own stop.
      if (error instanceof HarelError && error.code !== 'ABORTED' && error !== session.indexError) this.emitError(error);
      throw error;
    }
  }

  /** Stops the answer being written and every question waiting for its turn (Esc does the same); see `ask`. */
  stop(): void {
    this.session?.stop();
  }

  /** Stops what is answered and waits, and empties the conversation, here and on this device. */
  async clear(): Promise<void> {
    this.copiedTurn = null;
    this.follower.follow();
    await this.session?.clear();
  }

  /**
   * Adds the customer's own PDF, read and kept on this device only (never uploaded); resolves with
   * `{id, name, pages, chunks, lang, …}` once questions are answered from it by words. Its meaning
   * search follows in the background (`documents` shows its progress; `harel-chat:documents` says
   * when it is ready). Rejects with a DOCUMENT_* code (also shown in the panel and sent as
   * harel-chat:error); nothing else changes on a failure.
   */
  async addDocument(file: File | Blob, name?: string): Promise<DeviceDocumentInfo> {
    if (!this.session) await this.updateComplete;
    if (!this.session) throw createError('INDEX_NOT_READY');
    return this.documentsView.add(file, name);
  }

  /** Deletes one of the customer's documents from this device: its text, vectors and file. */
  removeDocument(id: string): Promise<void> {
    return this.documentsView.remove(id);
  }

  /** Deletes every document the customer added on this device. */
  removeAllDocuments(): Promise<void> {
    return this.documentsView.removeAll();
  }

  /** The customer's documents on this device, with their meaning search's progress. */
  get documents(): DeviceDocumentInfo[] {
    return this.documentsView.documents;
  }

  /** Loads the local language model (the customer's choice in auto mode). */
  loadModel(): Promise<void> {
    return this.chat.loadModel();
  }

  /** Lifecycle: before each render; the session starts, or restarts for a changed configuration, here (session-controller.ts). */
  protected override willUpdate(_changed: PropertyValues<this>): void {
    this.chat.sync();
  }

  private emit(type: string, detail: unknown): void {
    this.dispatchEvent(new CustomEvent(type, { detail, bubbles: true, composed: true }));
  }

  private emitError(error: HarelError): void {
    this.emit('harel-chat:error', errorDetail(error));
  }

  /** Whether the composer can send: from the start of loading on; not without a session or after the load failed. */
  private get canSend(): boolean {
    const status = this.session?.indexStatus;
    return status !== undefined && status !== 'error';
  }

  private submit(text: string): void {
    const question = text.trim();
    if (!question || !this.canSend) return;
    this.draft = '';
    // Asked here (composer, starter, "ask again"), its answer is wanted in view; from el.ask() it
    // is followed only if the customer has not scrolled up.
    this.follower.follow();
    const input = this.renderRoot.querySelector('textarea');
    if (input) input.value = '';
    this.ask(question).catch(() => undefined);
  }

  /**
   * Esc anywhere in the panel: stops the answer being written (and the questions waiting), else
   * closes the open citation card and gives focus back to its marker, else hides the details.
   */
  private onPanelKeyDown(event: KeyboardEvent): void {
    if (event.key !== 'Escape' || event.isComposing || event.defaultPrevented) return;
    const session = this.session;
    if (session && (session.answering != null || session.pending.some((q) => q.state === 'waiting'))) {
      event.preventDefault();
      this.stop();
    } else if (closeOpenCard(this.renderRoot, this.shadowRoot?.activeElement ?? null, this.lastCard)) {
      event.preventDefault();
    } else if (this.detailsOpen) {
      event.preventDefault();
      this.detailsOpen = false;
      this.requestUpdate();
      this.renderRoot.querySelector<HTMLButtonElement>('[part~="details-button"]')?.focus();
    }
  }

  private showCitation(turnIndex: number, n: number): void {
    this.lastCard = openCitationCard(this.renderRoot, turnIndex, n) ?? this.lastCard;
  }

  private async copyAnswer(turnIndex: number): Promise<void> {
    const turn = this.session?.turns[turnIndex];
    if (!turn) return;
    try {
      await navigator.clipboard.writeText(answerClipboardText(turn, this.uiLang));
      this.copiedTurn = turnIndex;
    } catch {
      // No clipboard (insecure page, permission refused): the button keeps saying "Copy".
      this.copiedTurn = null;
    }
    this.requestUpdate();
  }

  /** A thumb or a reason on an answer: saved with the turn, and told to the page (not when withdrawn). */
  private rate(turnIndex: number, change: FeedbackChange): void {
    const session = this.session;
    if (!session?.setFeedback(turnIndex, nextFeedback(feedbackOf(session.turns[turnIndex]), change))) return;
    const detail = feedbackDetail(session.turns, turnIndex, session.indexInfo?.buildId ?? '');
    if (detail) this.emit('harel-chat:feedback', detail);
  }

  private retry(turnIndex: number): void {
    const turns = this.session?.turns ?? [];
    for (let i = turnIndex - 1; i >= 0; i--) {
      if (turns[i].role === 'user') {
        this.submit(turns[i].text);
        return;
      }
    }
  }

  protected override render(): TemplateResult {
    const ui = this.uiLang;
    const s = UI_STRINGS[ui];
    const session = this.session;
    const turns = session?.turns ?? [];
    const pending = session?.pending ?? [];
    const name = this.siteNameIn(ui);
    const title = name ? s.titleFor(name) : s.title;
    const docs = this.documentsView;
    const config = this.config;
    return html`<section class="panel" part="panel" dir=${langDirection(ui)} lang=${ui} aria-label=${title} ?data-dropping=${docs.dropping}
        @keydown=${(e: KeyboardEvent) => this.onPanelKeyDown(e)}
        @dragenter=${docs.onDragEnter} @dragover=${docs.onDragOver} @dragleave=${docs.onDragLeave} @drop=${docs.onDrop}>
      ${renderHeader(
        {
          ui,
          title,
          session,
          config,
          detailsOpen: this.detailsOpen,
          llmSupport: this.chat.llmSupport,
          activeMode: this.activeMode,
          activeEngine: this.activeEngine,
          storageUsage: this.chat.storageUsage,
          canClear: turns.length > 0 || pending.length > 0,
        },
        { toggleDetails: () => this.toggleDetails(), clear: () => void this.clear(), loadModel: () => void this.loadModel() },
      )}
      ${docs.renderSection(ui)}
      ${renderStatus(session, ui)}
      ${renderConversationList({
        ui,
        session,
        starters: config.starters,
        copiedTurn: this.copiedTurn,
        links: this.contactLinks(this.siteContacts),
        pages: docs.pages,
        handlers: this.turnHandlers,
        onStarter: (q) => this.submit(q),
        onScroll: this.follower.onScroll,
        onRowsLoaded: this.rowsLoaded,
      })}
      ${this.follower.renderPill(s.newAnswer)}
      ${this.escalation.renderPanel(ui)}
      <div class="sr-only" aria-live="polite" aria-atomic="true">${this.announcement}</div>
      ${renderComposer(
        {
          ui,
          draft: this.draft,
          stoppable: session?.answering != null || pending.some((q) => q.state === 'waiting'),
          canSend: this.canSend,
          escalateButton: this.escalation.renderButton(ui),
        },
        {
          onDraft: (text) => (this.draft = text),
          onSubmit: () => this.submit(this.draft),
          onSend: (text) => this.submit(text),
          onStop: () => this.stop(),
        },
      )}
      ${docs.renderDropOverlay(ui)}
    </section>`;
  }

  private toggleDetails(): void {
    this.detailsOpen = !this.detailsOpen;
    this.requestUpdate();
  }
}
