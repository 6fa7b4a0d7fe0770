/**
 * One customer's conversation with one index: loads the index through a SearchService, keeps the
 * active answer engine, runs the answer loop per question, and persists the turns. No DOM: the
 * element renders what this holds and calls `onChange` to know when to render again.
 *
 * Async state follows @lit/task's shape — a status enum plus an AbortController per piece of
 * work — so a stop, a new question or a disconnect cancels exactly what is running.
 *
 * A question asked before search works waits in `pending` (widget/session/pending-questions.ts)
 * and is answered through `ask`, like any other, once the index is ready and the stored
 * conversation has been read back.
 */
import type { Answer, AnswerMode, ChatTurn } from '../answer/types.ts';
import { asHarelError, createError, HarelError, isHarelError } from '../core/errors.ts';
import type { Progress } from '../core/schema.ts';
import type { AnswerEngine } from '../engines/engine.ts';
import { ExtractiveEngine } from '../engines/extractive.ts';
import { runAnswerLoop, type LoopState } from '../loop/machine.ts';
import type { ContactChannels } from '../loop/strings.ts';
import type { IndexInfo, LoadIndexOptions, SearchService } from '../search/search-service.ts';
import type { ConversationStore } from '../store/conversation-store.ts';
import { PendingQuestions, type PendingQuestion } from './pending-questions.ts';

export type IndexStatus = 'idle' | 'loading' | 'ready' | 'error';
export type ModelStatus = 'none' | 'checking' | 'loading' | 'ready' | 'unavailable' | 'error';

export interface ModelState {
  status: ModelStatus;
  /** The model id actually chosen for this device (after the variant check). */
  modelId: string | null;
  progress: Progress | null;
  /** Why the model cannot run here, or why loading failed, in words (technical: shown as details). */
  reason: string | null;
  /** For 'error': the failure's code. */
  code?: string;
  /** For 'unavailable': which kind of reason, for the UI's own words. */
  unavailable?: 'no-webgpu' | 'software-gpu' | 'incompatible';
}

/** Loads an LLM engine; injected so the 6 MB web-llm bundle is only imported when asked for. */
export type LlmLoader = (options: { signal: AbortSignal; onProgress: (p: Progress) => void }) => Promise<{ engine: AnswerEngine; modelId: string }>;

export interface SessionOptions {
  search: SearchService;
  /** Where turns persist; opened asynchronously (IndexedDB), null to keep nothing. */
  conversations: Promise<ConversationStore> | null;
  /** Conversation key: the index URL, so two sites' conversations never mix. */
  conversationKey: string;
  llmLoader: LlmLoader | null;
  onChange: () => void;
}

export interface AskOptions {
  /** The interface language: the answer's only for a question with no letters, else the question's own. */
  lang: 'he' | 'en' | 'auto';
  domain: string | null;
  contacts?: ContactChannels;
  /** Called with every streamed update of the answer text. */
  onText?: (text: string) => void;
  /** When the customer asked, if earlier than now (a question that waited for the index). */
  askedAt?: number;
}

/** A question waiting for the index, as the UI shows it. */
export type QueuedQuestion = PendingQuestion<AskOptions>;

export class ChatSession {
  indexStatus: IndexStatus = 'idle';
  indexInfo: IndexInfo | null = null;
  indexProgress: Progress | null = null;
  indexError: HarelError | null = null;
  model: ModelState = { status: 'none', modelId: null, progress: null, reason: null };
  turns: ChatTurn[] = [];
  /** The loop's current step while answering, else null. */
  answering: LoopState | null = null;
  /** The streamed text of the answer being written. */
  streaming = '';

  private engine: AnswerEngine = new ExtractiveEngine();
  private readonly options: SessionOptions;
  private readonly queue: PendingQuestions<AskOptions, Answer>;
  private loadController: AbortController | null = null;
  private answerController: AbortController | null = null;
  private modelController: AbortController | null = null;

  constructor(options: SessionOptions) {
    this.options = options;
    this.queue = new PendingQuestions(() => this.changed());
  }

  get mode(): AnswerMode {
    return this.engine.mode;
  }

  /** Questions not in `turns`: waiting for the index, or left unanswered (load failed, stopped). */
  get pending(): readonly QueuedQuestion[] {
    return this.queue.list;
  }

  /** Whether a question submitted now would wait (the index is not ready, or others wait before it). */
  get queuing(): boolean {
    return this.indexStatus === 'idle' || this.indexStatus === 'loading' || this.queue.busy;
  }

  async loadIndex(options: Omit<LoadIndexOptions, 'signal' | 'onProgress'>): Promise<IndexInfo> {
    this.loadController?.abort();
    const controller = (this.loadController = new AbortController());
    this.indexStatus = 'loading';
    this.indexError = null;
    this.changed();
    try {
      const info = await this.options.search.load({
        ...options,
        signal: controller.signal,
        onProgress: (p) => {
          this.indexProgress = p;
          this.changed();
        },
      });
      this.indexInfo = info;
      // Ready only once the stored conversation is back: a question answered before would be
      // overwritten by it, and its turns saved over the stored ones.
      await this.restoreConversation();
      this.indexStatus = 'ready';
      void this.queue.drain((q) => this.ask(q.text, { ...q.payload, askedAt: q.at }));
      return info;
    } catch (error) {
      this.indexStatus = 'error';
      this.indexError = asHarelError(error);
      if (isHarelError(this.indexError, 'ABORTED')) this.queue.cancel();
      else this.queue.fail(this.indexError);
      throw this.indexError;
    } finally {
      if (this.loadController === controller) this.loadController = null;
      this.changed();
    }
  }

  /**
   * The customer's question, whenever it is asked: answered now when search works, else queued
   * (shown at once, with the load's progress) and answered in turn once it does. Rejects with the
   * load's error when the index failed, and with ABORTED when the customer stopped it.
   */
  submit(question: string, options: AskOptions): Promise<Answer> {
    const text = question.trim();
    if (!text) return Promise.reject(createError('EMPTY_QUESTION'));
    if (this.indexStatus === 'error') return Promise.reject(this.indexError ?? createError('INDEX_NOT_READY'));
    if (this.queuing) return this.queue.add(text, options, Date.now());
    return this.ask(text, options);
  }

  /** Answers one question through the loop; a question asked while another runs stops that one. */
  async ask(question: string, options: AskOptions): Promise<Answer> {
    const text = question.trim();
    if (!text) throw createError('EMPTY_QUESTION');
    if (this.indexStatus !== 'ready') throw createError('INDEX_NOT_READY');
    this.answerController?.abort();
    const controller = (this.answerController = new AbortController());
    const history = this.turns.slice();
    this.turns = [...this.turns, { role: 'user', text, at: options.askedAt ?? Date.now() }];
    this.streaming = '';
    this.answering = 'analyze';
    this.changed();
    try {
      const answer = await runAnswerLoop(
        { question: text, history, domain: options.domain, lang: options.lang },
        { search: this.options.search, engine: this.engine, contacts: options.contacts },
        {
          signal: controller.signal,
          onState: (state) => {
            this.answering = state;
            this.changed();
          },
          onText: (t) => {
            this.streaming = t;
            options.onText?.(t);
            this.changed();
          },
        },
      );
      this.turns = [...this.turns, { role: 'assistant', text: answer.text, answer, at: Date.now() }];
      void this.persist();
      return answer;
    } catch (error) {
      const failure = asHarelError(error);
      // A stopped answer keeps what was streamed, marked as stopped, so nothing the customer
      // read disappears.
      if (isHarelError(failure, 'ABORTED') && this.streaming) {
        this.turns = [...this.turns, { role: 'assistant', text: this.streaming, at: Date.now(), stopped: true }];
      }
      throw failure;
    } finally {
      if (this.answerController === controller) {
        this.answerController = null;
        this.answering = null;
        this.streaming = '';
      }
      this.changed();
    }
  }

  /** Esc / the stop button: cancels the answer being written and every question still waiting. */
  stop(): void {
    this.queue.cancel();
    this.answerController?.abort();
  }

  async clear(): Promise<void> {
    this.stop();
    this.queue.clear();
    this.turns = [];
    this.changed();
    await this.options.conversations?.then((store) => store.clear(this.options.conversationKey)).catch(() => undefined);
  }

  /** Switches to the local LLM (the customer's choice, or mode="llm"). Falls back to extractive on failure. */
  async loadModel(): Promise<void> {
    const loader = this.options.llmLoader;
    if (!loader || this.model.status === 'loading' || this.model.status === 'ready') return;
    const controller = (this.modelController = new AbortController());
    this.model = { status: 'loading', modelId: null, progress: null, reason: null };
    this.changed();
    try {
      const { engine, modelId } = await loader({
        signal: controller.signal,
        onProgress: (p) => {
          this.model = { ...this.model, progress: p };
          this.changed();
        },
      });
      this.engine = engine;
      this.model = { status: 'ready', modelId, progress: null, reason: null };
    } catch (error) {
      const failure = asHarelError(error);
      const cancelled = isHarelError(failure, 'ABORTED') || isHarelError(failure, 'MODEL_LOAD_ABORTED');
      this.model = { status: cancelled ? 'none' : 'error', modelId: null, progress: null, reason: failure.message, code: failure.code };
    } finally {
      this.modelController = null;
      this.changed();
    }
  }

  cancelModelLoad(): void {
    this.modelController?.abort();
  }

  setModelUnavailable(unavailable: 'no-webgpu' | 'software-gpu' | 'incompatible', reason: string): void {
    this.model = { status: 'unavailable', modelId: null, progress: null, reason, unavailable };
    this.changed();
  }

  dispose(): void {
    this.queue.cancel();
    this.loadController?.abort();
    this.answerController?.abort();
    this.modelController?.abort();
    this.options.search.dispose();
  }

  private async restoreConversation(): Promise<void> {
    if (!this.options.conversations || this.turns.length) return;
    try {
      const store = await this.options.conversations;
      this.turns = await store.load(this.options.conversationKey);
    } catch {
      // A conversation that cannot be read is not worth blocking the widget for.
      this.turns = [];
    }
  }

  private async persist(): Promise<void> {
    await this.options.conversations?.then((store) => store.save(this.options.conversationKey, this.turns)).catch(() => undefined);
  }

  private changed(): void {
    this.options.onChange();
  }
}
