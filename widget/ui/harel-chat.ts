/**
 * `<harel-chat>`: the assistant as one custom element. It renders a ChatSession (index loading,
 * the answer loop, the engines, persistence) and exposes `ask()` and three events so a page —
 * or the browser evals — can drive it without touching the UI.
 *
 * Properties are declared with `static properties` rather than decorators: the project compiles
 * with standard class fields, which would shadow decorator-made accessors.
 */
import { html, LitElement, nothing, type PropertyValues, type TemplateResult } from 'lit';
import { guard } from 'lit/directives/guard.js';
import { repeat } from 'lit/directives/repeat.js';
import { plainAnswerText } from '../answer/document-text.ts';
import type { Answer, AnswerMode } from '../answer/types.ts';
import type { DeviceDocumentInfo } from '../core/device/device-document.ts';
import { stripBidiControls } from '../core/bidi-controls.ts';
import { createError, HarelError } from '../core/errors.ts';
import type { Lang } from '../core/schema.ts';
import type { ContactChannels } from '../loop/strings.ts';
import { contactName } from '../loop/off-topic-reply.ts';
import { resolveGgufUrl } from '../engines/gguf/gguf-location.ts';
import type { EngineSetting } from '../session/engine-choice.ts';
import { createLlmLoader, probeLlmSupport, type LlmOptions, type LlmSupport } from '../session/llm-loader.ts';
import { DEFAULT_READER_CALLS } from '../loop/read.ts';
import { createReaderLoader } from '../session/reader-loader.ts';
import type { ReaderSettings } from '../session/reader-slot.ts';
import { ChatSession, type AskOptions } from '../session/chat-session.ts';
import { conversationRows, type ConversationRow } from '../session/pending-questions.ts';
import { WorkerSearchService } from '../search/worker-search-service.ts';
import { searchSettled, type IndexInfo } from '../search/search-service.ts';
import { openConversationStore } from '../store/conversation-store.ts';
import { contactLinksCache } from './contact-links.ts';
import { langDirection } from './direction.ts';
import { DeviceDocumentsController } from './device-documents-view.ts';
import { describeLoadProgress, formatBytes, type LoadProgressView } from './load-progress.ts';
import {
  cardId,
  citationLabel,
  renderAnswerError,
  renderAssistantTurn,
  renderPendingReply,
  renderProgressBar,
  renderReading,
  renderStreaming,
  renderUserTurn,
  sourceHref,
  type TurnHandlers,
} from './message-view.ts';
import { EscalationController } from './escalate-view.ts';
import { feedbackDetail, feedbackOf, nextFeedback, type FeedbackChange } from './feedback.ts';
import { AnswerFollower, scrollBehavior } from './follow-answers.ts';
import { renderSearchInfo } from './search-details.ts';
import { chatStyles } from './styles.ts';
import { DEFAULT_STARTERS, UI_STRINGS } from './strings.ts';

export type ModeSetting = 'auto' | 'llm' | 'extractive';

export interface HarelChatReadyDetail {
  buildId: string;
  chunkCount: number;
  documentCount: number;
  searchMode: IndexInfo['searchMode'];
  fromCache: boolean;
}

/** `harel-chat:search-ready`: how search runs once the query model is in, failed, or not needed. */
export interface HarelChatSearchReadyDetail {
  searchMode: IndexInfo['searchMode'];
  /** The index's embedder id, null for an index without vectors. */
  embedder: string | null;
  /** The model that embeds questions (the embedder, or a question model tuned against it), null without vectors. */
  queryModel: string | null;
  embedderDevice: 'webgpu' | 'wasm' | null;
  /** Why search stays BM25 although the index has vectors, else null. */
  embedderError: string | null;
}

export interface HarelChatErrorDetail {
  code: string;
  message: string;
}

export const DEFAULT_MODEL = 'gemma-2-2b-it-q4f16_1-MLC';

/** Starter questions as a site gives them: per language, or one list for every language. */
export type StarterQuestions = Partial<Record<Lang, string[]>> | string[];

const questionList = (list: unknown): string[] => (Array.isArray(list) ? list.filter((q): q is string => typeof q === 'string' && q.trim() !== '').map((q) => q.trim()) : []);

/** The `starters` attribute: JSON, `{"he": [...], "en": [...]}` or one list; anything else is ignored. */
const startersAttribute = {
  fromAttribute(value: string | null): StarterQuestions | undefined {
    if (!value) return undefined;
    try {
      const parsed: unknown = JSON.parse(value);
      if (Array.isArray(parsed)) return questionList(parsed);
      if (typeof parsed === 'object' && parsed !== null) {
        const raw = parsed as Record<string, unknown>;
        return { he: questionList(raw.he), en: questionList(raw.en) };
      }
    } catch {
      // Not JSON: as if unset.
    }
    return undefined;
  },
};

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
  ready: Promise<IndexInfo>;
  private resolveReady!: (info: IndexInfo) => void;
  private rejectReady!: (error: HarelError) => void;
  /**
   * Resolves when the search mode is final: the query model is in (`searchMode: 'hybrid'`), failed
   * (BM25, `embedderError` says why) or not needed (no vectors). `ready` comes first: the index
   * answers by BM25 while the model loads. Rejects with `ready` when the index cannot be loaded.
   */
  searchReady: Promise<IndexInfo>;
  private resolveSearchReady!: (info: IndexInfo) => void;
  private rejectSearchReady!: (error: HarelError) => void;
  /** The session whose search mode has been announced (searchReady, harel-chat:search-ready). */
  private searchSettledFor: ChatSession | null = null;

  private session: ChatSession | null = null;
  private llmSupport: LlmSupport | null = null;
  private draft = '';
  private announcement = '';
  private copiedTurn: number | null = null;
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
  private storageUsage: { used: number; quota: number; persisted: boolean } | null = null;
  /** Whether the technical details are shown (the (i) button); `debug` shows them always. */
  private detailsOpen = false;
  /** The citation card opened last from its marker: Esc closes it and gives the marker focus back. */
  private lastCard: string | null = null;

  constructor() {
    super();
    this.index = '';
    this.lang = 'auto';
    this.domain = '';
    this.mode = 'auto';
    this.model = DEFAULT_MODEL;
    this.modelBase = '';
    this.llmEngine = 'webllm';
    this.ggufModel = '';
    this.ggufAnswers = 'measured';
    this.readerModel = '';
    this.readerCalls = '';
    this.readerRefuses = false;
    this.embedder = '';
    this.queryModel = '';
    this.theme = 'light';
    this.debug = false;
    this.siteName = '';
    this.contactPhone = '';
    this.contactWebsite = '';
    this.contactEmail = '';
    this.contactHours = '';
    this.contacts = undefined;
    this.starters = undefined;
    this.searchReady = this.resetSearchReady();
    this.ready = this.resetReady();
  }

  /** The interface language after resolving 'auto' against the page. */
  get uiLang(): Lang {
    if (this.lang === 'he' || this.lang === 'en') return this.lang;
    const page = (document.documentElement.lang || navigator.language || 'he').toLowerCase();
    return page.startsWith('en') ? 'en' : 'he';
  }

  /**
   * The contact channels in use: the index's `site` block, overridden field by field by the
   * `contacts` property and then by the attributes. Undefined when nothing is set anywhere.
   */
  get siteContacts(): ContactChannels | undefined {
    const site = this.session?.indexInfo?.site;
    const merged: ContactChannels = {};
    const layers: (Partial<ContactChannels> | undefined)[] = [
      site ? { name: site.name, ...site.contacts } : undefined,
      this.contacts,
      { name: this.siteName, phone: this.contactPhone, website: this.contactWebsite, email: this.contactEmail, hours: this.contactHours },
    ];
    for (const layer of layers) {
      for (const [key, value] of Object.entries(layer ?? {}) as [keyof ContactChannels, ContactChannels[keyof ContactChannels]][]) {
        if (typeof value === 'string' ? value.trim() : value) (merged as Record<string, unknown>)[key] = value;
      }
    }
    return Object.keys(merged).length ? merged : undefined;
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
  get activeEngine(): 'webllm' | 'gguf' | 'extractive' {
    if (this.activeMode !== 'llm') return 'extractive';
    return this.llmSupport?.ok ? this.llmSupport.engine : this.llmEngine === 'gguf' ? 'gguf' : 'webllm';
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
    // No session before the element's first update (or without an index): wait for one.
    if (!this.session) await this.ready;
    const session = this.session;
    if (!session) throw createError('INDEX_NOT_READY');
    const s = UI_STRINGS[this.uiLang];
    const waits = session.queuing && session.indexStatus !== 'ready';
    try {
      const answering = session.submit(question, {
        // The answer is in the question's language; the interface's decides only for "?" or "5000".
        lang: this.uiLang,
        domain: this.domain || null,
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
  async loadModel(): Promise<void> {
    await this.session?.loadModel();
    const model = this.session?.model;
    if (model?.status === 'error' && model.reason) this.emit('harel-chat:error', { code: model.code ?? 'MODEL_LOAD_FAILED', message: model.reason });
  }

  /** Lifecycle: a re-connected element (moved in the page) starts a fresh session. */
  override connectedCallback(): void {
    super.connectedCallback();
    if (!this.session && this.index && this.hasUpdated) this.startSession();
  }

  /** Lifecycle: cancels everything in flight and ends the search worker. */
  override disconnectedCallback(): void {
    super.disconnectedCallback();
    this.session?.dispose();
    this.session = null;
  }

  /**
   * Lifecycle: before the first render, and before any render after a change of where the index
   * or models come from, starts a session. willUpdate, not updated: the new session sets state the
   * render reads, and state set in updated() schedules a second update after each one (Lit's dev
   * build warns "scheduled an update after an update completed").
   */
  protected override willUpdate(changed: PropertyValues<this>): void {
    if (!this.isConnected || !this.index) return;
    const restart = (['index', 'modelBase', 'embedder', 'queryModel', 'mode', 'model', 'llmEngine', 'ggufModel', 'ggufAnswers', 'readerModel', 'readerCalls', 'readerRefuses'] as const).some((key) =>
      changed.has(key),
    );
    if (!this.session || restart) this.startSession();
  }

  private resetReady(): Promise<IndexInfo> {
    const promise = new Promise<IndexInfo>((resolve, reject) => {
      this.resolveReady = resolve;
      this.rejectReady = reject;
    });
    // Nobody may be awaiting `ready`; a failed load is reported through the UI and the event.
    promise.catch(() => undefined);
    return promise;
  }

  private resetSearchReady(): Promise<IndexInfo> {
    const promise = new Promise<IndexInfo>((resolve, reject) => {
      this.resolveSearchReady = resolve;
      this.rejectSearchReady = reject;
    });
    promise.catch(() => undefined);
    return promise;
  }

  /** Once the index is ready and the query model settled, says how search runs: once per session. */
  private settleSearch(session: ChatSession): void {
    const info = session.indexInfo;
    if (this.session !== session || session.indexStatus !== 'ready' || !info || !searchSettled(info) || this.searchSettledFor === session) return;
    this.searchSettledFor = session;
    this.resolveSearchReady(info);
    const detail: HarelChatSearchReadyDetail = {
      searchMode: info.searchMode,
      embedder: info.embedder?.id ?? null,
      queryModel: info.queryModel ?? null,
      embedderDevice: info.embedderDevice ?? null,
      embedderError: info.embedderError,
    };
    // No harel-chat:error for a model that failed: answers still come (by BM25), and the reason is
    // here and in the details, as `ready.embedderError` always said it.
    this.emit('harel-chat:search-ready', detail);
  }

  private startSession(): void {
    if (this.session) {
      this.session.dispose();
      this.ready = this.resetReady();
      this.searchReady = this.resetSearchReady();
    }
    const manifestUrl = new URL(this.index, document.baseURI).href;
    const modelBase = this.modelBase ? new URL(this.modelBase, document.baseURI).href : null;
    const session = new ChatSession({
      search: new WorkerSearchService(),
      conversations: openConversationStore().then((opened) => opened.store),
      conversationKey: manifestUrl,
      llmLoader: this.mode === 'extractive' ? null : createLlmLoader({ ...this.llmOptions(modelBase), pick: () => this.llmSupport }),
      reader: this.readerSettings(modelBase),
      onChange: () => this.requestUpdate(),
    });
    this.session = session;
    const resolve = this.resolveReady;
    const reject = this.rejectReady;
    const rejectSearch = this.rejectSearchReady;
    session
      .loadIndex({ manifestUrl, modelBase, embedder: this.embedder || null, queryModel: this.queryModel || null, onInfo: () => this.settleSearch(session) })
      .then((info) => {
        if (this.session !== session) return;
        resolve(info);
        const detail: HarelChatReadyDetail = {
          buildId: info.buildId,
          chunkCount: info.chunkCount,
          documentCount: info.documentCount,
          searchMode: info.searchMode,
          fromCache: info.fromCache,
        };
        this.emit('harel-chat:ready', detail);
        this.settleSearch(session);
        if (info.indexError) this.emit('harel-chat:error', info.indexError);
        void this.reportStorage(info);
        void this.afterReady(session);
      })
      .catch((error: HarelError) => {
        if (this.session !== session) return;
        reject(error);
        rejectSearch(error);
        this.emitError(error);
      });
  }

  /** The engine settings from the attributes: llm-engine, model, model-base, gguf-model. */
  private llmOptions(modelBase: string | null): LlmOptions {
    const engine: EngineSetting = this.llmEngine === 'gguf' || this.llmEngine === 'auto' ? this.llmEngine : 'webllm';
    return {
      model: this.model || DEFAULT_MODEL,
      modelBase,
      engine,
      ggufUrl: resolveGgufUrl({ ggufModel: this.ggufModel || null, modelBase, baseUrl: document.baseURI }),
      allowSoftware: this.mode === 'llm',
      ggufAnswers: this.ggufAnswers === 'all' ? 'all' : 'measured',
    };
  }

  /** The reader from reader-model, reader-calls and reader-refuses; null without reader-model. */
  private readerSettings(modelBase: string | null): ReaderSettings | null {
    if (!this.readerModel) return null;
    const url = resolveGgufUrl({ ggufModel: this.readerModel, modelBase, baseUrl: document.baseURI });
    const calls = Number.parseInt(this.readerCalls, 10);
    return { loader: createReaderLoader(url), maxCalls: Number.isFinite(calls) && calls > 0 ? calls : DEFAULT_READER_CALLS, refuses: this.readerRefuses };
  }

  private async afterReady(session: ChatSession): Promise<void> {
    // The reader loads beside everything else: answers before it is in say so (reader.reason).
    void session.loadReader();
    if (this.mode === 'extractive') return;
    const modelBase = this.modelBase ? new URL(this.modelBase, document.baseURI).href : null;
    const support = await probeLlmSupport(this.llmOptions(modelBase));
    if (this.session !== session) return;
    this.llmSupport = support;
    if (!support.ok) {
      session.setModelUnavailable(support.reason, support.detail);
      // Asked for (mode="llm"), the model's absence is a failure the page hears about, once; the
      // widget keeps answering by quotation. In auto mode it is only not offered.
      if (this.mode === 'llm') this.emitError(support.error);
    } else if (this.mode === 'llm') await this.loadModel();
    this.requestUpdate();
  }

  /**
   * Once the index is stored, asks the browser not to evict it under storage pressure (an offline
   * visitor would lose it) and shows the origin's usage against its quota. Both are best effort.
   */
  private async reportStorage(info: IndexInfo): Promise<void> {
    const storage = globalThis.navigator?.storage;
    if (!storage?.estimate) return;
    const persisted = info.storageWarning ? false : await storage.persist?.().catch(() => false);
    const estimate = await storage.estimate().catch((): StorageEstimate => ({}));
    this.storageUsage = { used: estimate.usage ?? 0, quota: estimate.quota ?? 0, persisted: persisted ?? false };
    this.requestUpdate();
  }

  private emit(type: string, detail: unknown): void {
    this.dispatchEvent(new CustomEvent(type, { detail, bubbles: true, composed: true }));
  }

  private emitError(error: HarelError): void {
    const detail: HarelChatErrorDetail = { code: error.code, message: error.message };
    this.emit('harel-chat:error', detail);
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

  private onKeyDown(event: KeyboardEvent): void {
    if (event.key === 'Enter' && !event.shiftKey && !event.isComposing) {
      event.preventDefault();
      this.submit((event.target as HTMLTextAreaElement).value);
    }
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
    } else if (this.closeOpenCard()) {
      event.preventDefault();
    } else if (this.detailsOpen) {
      event.preventDefault();
      this.detailsOpen = false;
      this.requestUpdate();
      this.renderRoot.querySelector<HTMLButtonElement>('[part~="details-button"]')?.focus();
    }
  }

  /** Closes the open card holding focus, else the one opened last, else the last open one; returns whether one was. */
  private closeOpenCard(): boolean {
    const open = [...this.renderRoot.querySelectorAll<HTMLDetailsElement>('details.card[open]')];
    if (!open.length) return false;
    const active = this.shadowRoot?.activeElement ?? null;
    const card = open.find((c) => active && c.contains(active)) ?? open.find((c) => c.id === this.lastCard) ?? open[open.length - 1];
    card.open = false;
    const marker = card.closest('article')?.querySelector<HTMLButtonElement>(`button.cite[data-n="${card.dataset.n}"]`);
    (marker ?? card.querySelector('summary'))?.focus();
    return true;
  }

  private showCitation(turnIndex: number, n: number): void {
    const card = this.renderRoot.querySelector<HTMLDetailsElement>(`#${cardId(turnIndex, n)}`);
    if (!card) return;
    card.open = true;
    this.lastCard = card.id;
    card.scrollIntoView({ block: 'nearest', behavior: scrollBehavior() });
    card.querySelector('summary')?.focus();
  }

  private async copyAnswer(turnIndex: number): Promise<void> {
    const turn = this.session?.turns[turnIndex];
    if (!turn) return;
    // What a reader sees, not the stored form: document runs unwrapped, no bidi controls, and
    // only links the URL policy allows (a conversation edited in IndexedDB may hold others).
    const sources = (turn.answer?.citations ?? []).map((c) => {
      const href = sourceHref(c);
      return `[${c.n}] ${stripBidiControls(citationLabel(c, this.uiLang))}${href ? ` — ${href}` : ''}`;
    });
    try {
      await navigator.clipboard.writeText([plainAnswerText(turn.text), ...sources].join('\n'));
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
    const busy = session?.answering != null;
    const pending = session?.pending ?? [];
    const waiting = pending.filter((q) => q.state === 'waiting');
    // While the index loads, a waiting question's reply shows the load's progress.
    const progress = session && session.indexStatus !== 'ready' ? describeLoadProgress(session.indexProgress, ui) : null;
    const turns = session?.turns ?? [];
    const name = this.siteNameIn(ui);
    const title = name ? s.titleFor(name) : s.title;
    const showDetails = this.detailsOpen || this.debug;
    const docs = this.documentsView;
    return html`<section class="panel" part="panel" dir=${langDirection(ui)} lang=${ui} aria-label=${title} ?data-dropping=${docs.dropping}
        @keydown=${(e: KeyboardEvent) => this.onPanelKeyDown(e)}
        @dragenter=${docs.onDragEnter} @dragover=${docs.onDragOver} @dragleave=${docs.onDragLeave} @drop=${docs.onDrop}>
      <header part="header">
        <div class="titlebar">
          <h2 part="title"><bdi>${title}</bdi></h2>
          ${
            this.debug
              ? nothing
              : html`<button type="button" class="info" part="details-button" aria-controls="tech" aria-expanded=${showDetails ? 'true' : 'false'}
                title=${s.techDetails} aria-label=${s.techDetails} @click=${() => this.toggleDetails()}>i</button>`
          }
          <button type="button" part="clear-button" @click=${() => void this.clear()} ?disabled=${!turns.length && !pending.length}>${s.clear}</button>
        </div>
        <p class="subtitle" part="subtitle">${this.aboutText(ui)}</p>
        ${this.renderModelOffer(ui)}
        ${this.renderDetails(ui, showDetails)}
      </header>
      ${docs.renderSection(ui)}
      ${this.renderStatus(ui)}
      <div class="log" part="messages" role="region" aria-label=${s.title} aria-busy=${busy ? 'true' : 'false'} @scroll=${this.follower.onScroll}>
        ${turns.length || pending.length || busy ? nothing : this.renderStarters(ui)}
        ${this.renderConversation(ui)}
        ${busy && session.answering === 'read' ? renderReading(ui) : busy ? renderStreaming(session.streaming, turns.at(-1)?.role === 'user' ? turns.at(-1)!.text : '', ui) : nothing}
        ${repeat(
          waiting,
          (q) => q.id,
          (q) =>
            guard(
              [q, q.state, ui, progress?.label, progress?.amount, progress?.value, progress?.max],
              () => html`${renderUserTurn({ role: 'user', text: q.text, at: q.at })}${renderPendingReply(q, ui, progress)}`,
            ),
        )}
      </div>
      ${this.follower.renderPill(s.newAnswer)}
      ${this.escalation.renderPanel(ui)}
      <div class="sr-only" aria-live="polite" aria-atomic="true">${this.announcement}</div>
      <form part="composer" @submit=${(e: Event) => {
        e.preventDefault();
        this.submit(this.draft);
      }}>
        <label class="sr-only" for="q">${s.inputLabel}</label>
        <textarea id="q" part="input" rows="1" dir="auto" placeholder=${s.placeholder} .value=${this.draft}
          @input=${(e: Event) => (this.draft = (e.target as HTMLTextAreaElement).value)}
          @keydown=${(e: KeyboardEvent) => this.onKeyDown(e)}></textarea>
        ${this.escalation.renderButton(ui)}
        ${busy || waiting.length ? html`<button type="button" part="stop-button" @click=${() => this.stop()}>${s.stop}</button>` : nothing}
        <button type="submit" class="primary" part="send-button" ?disabled=${!this.canSend}>${s.send}</button>
      </form>
      ${docs.renderDropOverlay(ui)}
    </section>`;
  }

  /**
   * The turns and the questions stopped or failed before their turn, in the order asked. Keyed,
   * and each row guarded by what it shows: a state change (a step of the answer loop, a streamed
   * token, a new turn) renders only the rows it changed, not the whole conversation again.
   */
  private renderConversation(ui: Lang): unknown {
    const session = this.session;
    if (!session) return nothing;
    const turns = session.turns;
    const links = this.contactLinks(this.siteContacts);
    return repeat(
      conversationRows<AskOptions>(turns, session.pending),
      (row: ConversationRow<AskOptions>) => (row.kind === 'pending' ? `q${row.question.id}` : `t${row.index}`),
      (row: ConversationRow<AskOptions>) => {
        if (row.kind === 'pending') {
          const q = row.question;
          return guard([q, q.state, q.error, ui], () => html`${renderUserTurn({ role: 'user', text: q.text, at: q.at })}${renderPendingReply(q, ui, null)}`);
        }
        const i = row.index;
        const turn = turns[i];
        if (turn.role === 'user') {
          const failure = session.answerErrors.get(turn);
          return guard([turn, failure, ui], () => html`${renderUserTurn(turn)}${failure ? renderAnswerError(failure, ui) : nothing}`);
        }
        const question = turns[i - 1]?.text ?? '';
        const copied = this.copiedTurn === i;
        const pages = this.documentsView.pages;
        return guard([turn, i, question, ui, copied, links, pages], () => renderAssistantTurn(turn, i, question, ui, this.turnHandlers, copied, links, pages));
      },
    );
  }

  /**
   * One polite live region for the index's whole life (loading, ready, failed): it stays in the
   * page and only its words change, since a region inserted with its text already in it is often
   * not read. While loading it speaks when the step changes, not on every byte: the counter is
   * hidden from it and read on demand as the bar's value text.
   */
  private renderStatus(ui: Lang): TemplateResult {
    const session = this.session;
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
            ? this.renderLoading(describeLoadProgress(session.indexProgress, ui))
            : info
              ? this.renderReady(info, ui)
              : nothing
      }</div>`;
  }

  private renderLoading(view: LoadProgressView): TemplateResult {
    return html`<span class="label">${view.label}${view.amount ? ':' : ''}</span>${view.amount ? html` <span class="amount" aria-hidden="true">${view.amount}</span>` : nothing}
      ${renderProgressBar(view)}`;
  }

  /** Ready: nothing to say, unless answers come from an older stored build or the index cannot be kept offline. */
  private renderReady(info: IndexInfo, ui: Lang): TemplateResult | typeof nothing {
    if (!info.indexError && !info.storageWarning) return nothing;
    return html`${info.indexError ? html`<div class="stale" data-code=${info.indexError.code}>${UI_STRINGS[ui].staleIndex}</div>` : nothing}${info.storageWarning ? html`<div dir="auto">${info.storageWarning}</div>` : nothing}`;
  }

  private toggleDetails(): void {
    this.detailsOpen = !this.detailsOpen;
    this.requestUpdate();
  }

  /** The one plain sentence under the title: how answers are written on this device. */
  private aboutText(ui: Lang): string {
    const about = UI_STRINGS[ui].about;
    if (this.activeMode === 'llm') return about.llm;
    if (this.mode === 'extractive') return about.quote;
    const model = this.session?.model;
    if (model?.status === 'loading') return about.modelLoading;
    if (model?.status === 'unavailable' || model?.status === 'error') return about.quoteNoModel;
    if (model?.status === 'none' && this.llmSupport?.ok) return about.quoteModelOffer;
    return about.quote;
  }

  /**
   * What a site owner or a support engineer needs and a customer does not: the engine and search
   * mode, the index's size, storage, and why the language model is not offered, in full. Always in
   * the page (its parts keep their data attributes), shown by the (i) button or `debug`.
   */
  private renderDetails(ui: Lang, show: boolean): TemplateResult {
    const s = UI_STRINGS[ui];
    const session = this.session;
    const info = session?.indexStatus === 'ready' ? (session.indexInfo ?? null) : null;
    return html`<div class="tech" id="tech" part="details" ?hidden=${!show}>
      <div class="row">
        <span class="badge mode" part="mode-badge" data-mode=${this.activeMode} data-engine=${this.activeEngine}
          title=${this.activeMode === 'llm' ? `${s.modeLlm}: ${session?.model.modelId ?? ''}` : s.modeExtractive}>
          ${this.activeMode === 'llm' ? s.modeLlmShort : s.modeExtractiveShort}</span>
        ${session?.indexInfo ? html`<span class="badge" part="search-badge" data-search=${session.indexInfo.searchMode}>${session.indexInfo.searchMode === 'hybrid' ? s.searchHybrid : s.searchBm25}</span>` : nothing}
      </div>
      ${info ? html`<div part="index-info" data-build=${info.buildId}>${s.indexReady(info.documentCount, info.chunkCount)}${info.fromCache ? ` · ${s.fromCache}` : ''}</div>` : nothing}
      ${info?.indexError ? html`<div class="detail" dir="ltr" data-code=${info.indexError.code}>[${info.indexError.code}] ${info.indexError.message}</div>` : nothing}
      ${info ? renderSearchInfo(info, ui) : nothing}
      ${
        this.storageUsage?.quota
          ? html`<div part="storage" data-persisted=${this.storageUsage.persisted}>${s.storage(formatBytes(this.storageUsage.used, ui), formatBytes(this.storageUsage.quota, ui))}${this.storageUsage.persisted ? ` · ${s.storagePersisted}` : ''}</div>`
          : nothing
      }
      ${session?.model.status === 'ready' ? html`<div part="model-info" dir="ltr" data-engine=${this.activeEngine}>${s.modeLlm}: ${session.model.modelId}</div>` : nothing}
      ${this.renderModelReason(ui)}
      ${this.renderReaderInfo(ui)}
    </div>`;
  }

  /** The reader model's state (in the details), where the page has one: loading with its progress, ready, or why not. */
  private renderReaderInfo(ui: Lang): TemplateResult | typeof nothing {
    const state = this.session?.reader.state;
    if (!this.readerModel || !state) return nothing;
    const s = UI_STRINGS[ui];
    const progress = state.progress?.total ? ` ${Math.round((100 * state.progress.done) / state.progress.total)}%` : '';
    const text =
      state.status === 'ready' ? state.modelId : state.status === 'loading' ? `${s.readerLoading}${progress}` : state.status === 'error' ? `${s.readerFailed}: ${state.reason}` : s.readerOff;
    return html`<div part="reader-info" data-state=${state.status} dir="ltr">${s.reader}: ${text}</div>`;
  }

  /** Why there is no language model, in full (in the details). */
  private renderModelReason(ui: Lang): TemplateResult | typeof nothing {
    const s = UI_STRINGS[ui];
    const model = this.session?.model;
    if (this.mode === 'extractive' || !model) return nothing;
    if (model.status === 'unavailable' || model.status === 'error') {
      const why = model.status === 'error' ? s.modelFailed : s.modelWhy[model.unavailable ?? 'incompatible'];
      return html`<div class="model" part="model-status" data-state=${model.status} data-reason=${model.unavailable ?? model.code ?? 'error'}>
        <span>${s.modelUnavailable} · ${why}</span><div class="detail" dir="ltr">${model.reason}</div></div>`;
    }
    if (model.status === 'none' && this.llmSupport?.ok && this.llmSupport.note) return html`<div class="detail" dir="ltr">${this.llmSupport.note}</div>`;
    return nothing;
  }

  /** The customer's choices about the model: the offer to load it, and its download while it loads. */
  private renderModelOffer(ui: Lang): TemplateResult | typeof nothing {
    const s = UI_STRINGS[ui];
    const model = this.session?.model;
    if (this.mode === 'extractive' || !model) return nothing;
    if (model.status === 'loading') {
      const p = model.progress;
      return html`<div class="model" part="model-status" data-state="loading">${s.modelLoading}
        ${p?.total ? html`<progress max=${p.total} value=${p.done} aria-label=${s.modelLoading}></progress>` : nothing}
        <button type="button" @click=${() => this.session?.cancelModelLoad()}>${s.stop}</button></div>`;
    }
    if (model.status === 'none' && this.llmSupport?.ok) {
      return html`<div class="model" part="model-status" data-state="available">
        <button type="button" part="load-model-button" @click=${() => void this.loadModel()}>${s.loadModel(formatBytes(this.llmSupport.downloadBytes, ui))}</button></div>`;
    }
    return nothing;
  }

  /** The starters: the site's own, else the index's, else neutral ones (those two once the index is read). */
  private startersFor(ui: Lang): string[] {
    const own = this.starters;
    const mine = Array.isArray(own) ? own : own?.[ui];
    if (mine?.length) return mine;
    const session = this.session;
    if (session?.indexStatus === 'loading') return [];
    return session?.indexInfo?.site?.starters?.[ui]?.length ? session.indexInfo.site.starters[ui]! : DEFAULT_STARTERS[ui];
  }

  private renderStarters(ui: Lang): TemplateResult | typeof nothing {
    const s = UI_STRINGS[ui];
    const starters = this.startersFor(ui);
    if (!starters.length) return nothing;
    return html`<div class="starters" part="starters"><h3>${s.starters}</h3>
      ${starters.map((q) => html`<button type="button" dir="auto" @click=${() => this.submit(q)}>${q}</button>`)}</div>`;
  }
}
