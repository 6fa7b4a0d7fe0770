/**
 * The element's ChatSession as a Lit reactive controller: started before the first render and
 * again whenever the configuration changes what a session is built from (config.ts,
 * RESTART_FIELDS), disposed when the element leaves the page (every load, answer and worker in
 * flight aborted) and started afresh when it comes back. The session's changes request the host's
 * update; `ready` and `searchReady`, the ready/search-ready/error events, the model's probe and the
 * storage report follow the session that is current, and a replaced session's late results are
 * dropped.
 */
import type { ReactiveController, ReactiveControllerHost } from 'lit';
import { createError, type HarelError } from '../core/errors.ts';
import { searchSettled, type IndexInfo } from '../search/search-service.ts';
import { WorkerSearchService } from '../search/worker-search-service.ts';
import { ChatSession } from '../session/chat-session.ts';
import type { LlmLoader } from '../session/chat-session.ts';
import type { LlmOptions, LlmSupport } from '../session/llm-loader.ts';
import { createReaderLoader } from '../session/reader-loader.ts';
import type { ReaderSettings } from '../session/reader-slot.ts';
import { openConversationStore } from '../store/conversation-store.ts';
import { type ChatConfig, needsRestart } from './config.ts';

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

export interface StorageUsage {
  used: number;
  quota: number;
  persisted: boolean;
}

/** What the controller reads from, and tells, the element. */
export interface SessionSource {
  /** The configuration in force now. */
  config(): ChatConfig;
  /** Dispatches one of the element's events. */
  emit(type: string, detail: unknown): void;
}

/** A promise with its settlers; nobody may be awaiting it, so a rejection is never unhandled. */
function deferred(): { promise: Promise<IndexInfo>; resolve: (info: IndexInfo) => void; reject: (error: HarelError) => void } {
  let resolve!: (info: IndexInfo) => void;
  let reject!: (error: HarelError) => void;
  const promise = new Promise<IndexInfo>((res, rej) => {
    resolve = res;
    reject = rej;
  });
  promise.catch(() => undefined);
  return { promise, resolve, reject };
}

export function errorDetail(error: HarelError): HarelChatErrorDetail {
  return { code: error.code, message: error.message };
}

/** The engine settings from the configuration: llm-engine, model, model-base, gguf-model. */
function llmOptions(config: ChatConfig): LlmOptions {
  return {
    model: config.model,
    modelBase: config.modelBase,
    engine: config.llmEngine,
    ggufUrl: config.ggufUrl,
    allowSoftware: config.mode === 'llm',
    ggufAnswers: config.ggufAnswers,
  };
}

function readerSettings(config: ChatConfig): ReaderSettings | null {
  const reader = config.reader;
  return reader ? { loader: createReaderLoader(reader.url), maxCalls: reader.maxCalls, refuses: reader.refuses } : null;
}

export class SessionController implements ReactiveController {
  session: ChatSession | null = null;
  /** Whether, and how, this device runs a language model; null until probed (never in extractive mode). */
  llmSupport: LlmSupport | null = null;
  storageUsage: StorageUsage | null = null;
  private started: ChatConfig | null = null;
  private ready = deferred();
  private searchReady = deferred();
  /** The session whose search mode has been announced (searchReady, harel-chat:search-ready). */
  private searchSettledFor: ChatSession | null = null;

  constructor(
    private readonly host: ReactiveControllerHost & { readonly isConnected: boolean; readonly hasUpdated: boolean },
    private readonly source: SessionSource,
  ) {
    host.addController(this);
  }

  /** Resolves when the current session's index is loaded (rejects when it cannot be). */
  get readyPromise(): Promise<IndexInfo> {
    return this.ready.promise;
  }

  /** Resolves when the current session's search mode is final (see the element's `searchReady`). */
  get searchReadyPromise(): Promise<IndexInfo> {
    return this.searchReady.promise;
  }

  /** A re-connected element (moved in the page) starts a fresh session. */
  hostConnected(): void {
    if (!this.session && this.host.hasUpdated) this.sync();
  }

  hostDisconnected(): void {
    this.session?.dispose();
    this.session = null;
  }

  /**
   * Before a render (the host's willUpdate): starts a session if there is none, or a new one if
   * the configuration changed what it is built from. Not in hostUpdate: the element's own
   * willUpdate decides when the configuration is read.
   */
  sync(): void {
    const config = this.source.config();
    if (!this.host.isConnected || !config.manifestUrl) return;
    if (!this.session || !this.started || needsRestart(this.started, config)) this.start(config);
  }

  /** Loads the local language model (the customer's choice in auto mode); a failure is reported as harel-chat:error. */
  async loadModel(): Promise<void> {
    await this.session?.loadModel();
    const model = this.session?.model;
    if (model?.status === 'error' && model.reason) this.source.emit('harel-chat:error', { code: model.code ?? 'MODEL_LOAD_FAILED', message: model.reason });
  }

  /** The current session, once there is one; rejects without an index. */
  async current(): Promise<ChatSession> {
    // No session before the element's first update (or without an index): wait for one.
    if (!this.session) await this.ready.promise;
    if (!this.session) throw createError('INDEX_NOT_READY');
    return this.session;
  }

  private start(config: ChatConfig): void {
    const manifestUrl = config.manifestUrl!;
    if (this.session) {
      this.session.dispose();
      this.ready = deferred();
      this.searchReady = deferred();
    }
    this.started = config;
    const session = new ChatSession({
      search: new WorkerSearchService(),
      conversations: openConversationStore().then((opened) => opened.store),
      conversationKey: manifestUrl,
      llmLoader: config.mode === 'extractive' ? null : this.lazyLlmLoader(config),
      reader: readerSettings(config),
      onChange: () => this.host.requestUpdate(),
    });
    this.session = session;
    const { resolve, reject } = this.ready;
    const rejectSearch = this.searchReady.reject;
    session
      .loadIndex({ manifestUrl, modelBase: config.modelBase, embedder: config.embedder, queryModel: config.queryModel, onInfo: () => this.settleSearch(session) })
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
        this.source.emit('harel-chat:ready', detail);
        this.settleSearch(session);
        if (info.indexError) this.source.emit('harel-chat:error', info.indexError);
        void this.reportStorage(info);
        void this.afterReady(session, config);
      })
      .catch((error: HarelError) => {
        if (this.session !== session) return;
        reject(error);
        rejectSearch(error);
        this.source.emit('harel-chat:error', errorDetail(error));
      });
  }

  /** Once the index is ready and the query model settled, says how search runs: once per session. */
  private settleSearch(session: ChatSession): void {
    const info = session.indexInfo;
    if (this.session !== session || session.indexStatus !== 'ready' || !info || !searchSettled(info) || this.searchSettledFor === session) return;
    this.searchSettledFor = session;
    this.searchReady.resolve(info);
    const detail: HarelChatSearchReadyDetail = {
      searchMode: info.searchMode,
      embedder: info.embedder?.id ?? null,
      queryModel: info.queryModel ?? null,
      embedderDevice: info.embedderDevice ?? null,
      embedderError: info.embedderError,
    };
    // No harel-chat:error for a model that failed: answers still come (by BM25), and the reason is
    // here and in the details, as `ready.embedderError` always said it.
    this.source.emit('harel-chat:search-ready', detail);
  }

  /** The model's probe and loader (llm-loader.ts, web-llm's and the GGUF engine's choice) are imported when first used, never before the first question. */
  private lazyLlmLoader(config: ChatConfig): LlmLoader {
    return async (options) => {
      const { createLlmLoader } = await import('../session/llm-loader.ts');
      return createLlmLoader({ ...llmOptions(config), pick: () => this.llmSupport })(options);
    };
  }

  private async afterReady(session: ChatSession, config: ChatConfig): Promise<void> {
    // The reader loads beside everything else: answers before it is in say so (reader.reason).
    void session.loadReader();
    if (config.mode === 'extractive') return;
    const { probeLlmSupport } = await import('../session/llm-loader.ts');
    const support = await probeLlmSupport(llmOptions(config));
    if (this.session !== session) return;
    this.llmSupport = support;
    if (!support.ok) {
      session.setModelUnavailable(support.reason, support.detail);
      // Asked for (mode="llm"), the model's absence is a failure the page hears about, once; the
      // widget keeps answering by quotation. In auto mode it is only not offered.
      if (config.mode === 'llm') this.source.emit('harel-chat:error', errorDetail(support.error));
    } else if (config.mode === 'llm') await this.loadModel();
    this.host.requestUpdate();
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
    this.host.requestUpdate();
  }
}
