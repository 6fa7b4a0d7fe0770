/**
 * One customer's conversation with one index: loads the index through a SearchService, keeps the
 * active answer engine, runs the answer loop per question, and persists the turns. No DOM: the
 * element renders what this holds and calls `onChange` to know when to render again.
 *
 * Async state is a status enum plus an AbortController per piece of
 * work — so a stop, a new question or a disconnect cancels exactly what is running.
 *
 * Questions and answers follow one rule, whoever asks (the composer, a starter, "ask again", or a
 * page calling the element's `ask()` many times at once):
 *
 * - One queue (widget/session/pending-questions.ts). Questions are answered one at a time, in the
 *   order asked; each `submit` resolves with its own question's answer. A question asked while
 *   another is answered, or before search works, waits in `pending`, shown at once with a reply
 *   that says it is next (or waits for the documents), and is answered in turn once the index is
 *   ready and the stored conversation has been read back. A new question never stops the one
 *   being answered.
 * - `stop()` stops the answer being written and every question still waiting: the one being
 *   answered keeps what was streamed, marked stopped (an empty reply marked stopped when nothing
 *   was streamed yet); each waiting one stays in view, marked stopped, and is never answered. All
 *   of their promises reject with ABORTED. A question asked after the stop is answered as usual.
 * - `clear()` does what `stop()` does, then forgets the conversation: the turns, the stopped and
 *   failed questions, and the stored copy. Nothing from before the clear — a stopped mark, a late
 *   answer, a save already under way — is written into the conversation or the store after it.
 * - An answer that fails (not stopped) leaves its question in the turns with the error beside it
 *   (`answerErrors`, not stored), and the queue goes on with the next question.
 *
 * Why stop cancels the waiting ones too: the stop button and Esc are the customer's "stop", and a
 * queue that started the next answer the moment one was stopped would not stop. A page that wants
 * one question dropped can simply not ask it.
 */
import type { Answer, AnswerMode, ChatTurn, TurnFeedback } from '../answer/types.ts';
import type { DeviceDocumentInfo } from '../core/device/device-document.ts';
import { asHarelError, createError, type HarelError, isHarelError } from '../core/errors.ts';
import type { Progress } from '../core/schema.ts';
import type { AnswerEngine } from '../engines/engine.ts';
import type { LoopState } from '../loop/machine.ts';
import type { ContactChannels } from '../text/strings.ts';
import type { IndexInfo, LoadIndexOptions, SearchService } from '../search/search-service.ts';
import type { ConversationStore } from '../store/conversation-store.ts';
import { type AddDocumentOptions, DeviceDocuments, type DocumentReader } from './device-documents.ts';
import { readDeviceDocumentLazily } from './document-reader-loader.ts';
import { PendingQuestions, type PendingQuestion } from './pending-questions.ts';
import { ReaderSlot, type ReaderSettings } from './reader-slot.ts';

/**
 * How long an answer waits for its turn to be stored before ask() resolves: long enough for
 * IndexedDB's write (a few ms, tens under load), so a reload right after an answer keeps it; short
 * enough that a store that stalls (another tab holding an upgrade) never holds the conversation up.
 */
const SAVE_WAIT_MS = 1_000;

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
  /** The reader model (reader-model), null where the page has none. */
  reader?: ReaderSettings | null;
  /** Reads a customer's PDF on the device (default: search/document-reader.ts, loaded when first used). */
  readDocument?: DocumentReader;
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

type AnswerLoop = typeof import('./answer-loop.ts');
let answerLoop: Promise<AnswerLoop> | null = null;
/** The loop and the extractive engine (answer-loop.ts), imported once, with the first question; a failed import is tried again by the next. */
function loadAnswerLoop(): Promise<AnswerLoop> {
  answerLoop ??= import('./answer-loop.ts').catch((error: unknown) => {
    answerLoop = null;
    throw error;
  });
  return answerLoop;
}

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
  /** Why an answer failed, by its question's turn: shown as that question's reply, not stored. */
  readonly answerErrors = new Map<ChatTurn, HarelError>();
  /** The reader model, where the page turned it on (loadReader()). */
  readonly reader: ReaderSlot;
  /** The customer's own documents on this device (issue 36): the list, and the additions under way. */
  readonly deviceDocuments: DeviceDocuments;

  /** The local LLM once loaded; before it, the extractive engine, made with the first question (answer-loop.ts). */
  private engine: AnswerEngine | null = null;
  private readonly options: SessionOptions;
  private readonly queue: PendingQuestions<AskOptions, Answer>;
  private loadController: AbortController | null = null;
  private answerController: AbortController | null = null;
  private modelController: AbortController | null = null;
  /** Bumped by `clear()` and `dispose()`: work started before it writes nothing after it. */
  private epoch = 0;
  /** Bumped by each `loadIndex()` and by `dispose()`: an older load's info updates are dropped. */
  private loadGeneration = 0;
  /** The conversation store's writes, one after another, so a save never lands after a clear. */
  private writes: Promise<void> = Promise.resolve();
  /** What waits for the index to answer (a document being added): settled by the load. */
  private indexWaiters: { resolve: () => void; reject: (error: HarelError) => void }[] = [];

  constructor(options: SessionOptions) {
    this.options = options;
    this.queue = new PendingQuestions(() => this.changed());
    this.reader = new ReaderSlot(options.reader ?? null, () => this.changed());
    this.deviceDocuments = new DeviceDocuments(
      options.search,
      options.readDocument ?? readDeviceDocumentLazily,
      () => this.indexReady(),
      () => this.changed(),
    );
  }

  get mode(): AnswerMode {
    return this.engine?.mode ?? 'extractive';
  }

  /** Questions not in `turns`: waiting for their turn, or left unanswered (load failed, stopped). */
  get pending(): readonly QueuedQuestion[] {
    return this.queue.list;
  }

  /** Whether a question submitted now would wait (the index is not ready, or another is being answered or waits). */
  get queuing(): boolean {
    return this.indexStatus === 'idle' || this.indexStatus === 'loading' || this.queue.busy;
  }

  /**
   * Loads the index; resolves once it answers (by BM25 while the query model still loads: see
   * IndexInfo.embedderStatus). `indexInfo` follows the model afterwards, and `options.onInfo` hears it.
   */
  async loadIndex(options: Omit<LoadIndexOptions, 'signal' | 'onProgress'>): Promise<IndexInfo> {
    this.loadController?.abort();
    const controller = (this.loadController = new AbortController());
    const generation = ++this.loadGeneration;
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
        onInfo: (next) => {
          // A newer load's index, or a disposed session, is not changed by this one's model.
          if (generation !== this.loadGeneration) return;
          this.indexInfo = next;
          this.deviceDocuments.sync(next.deviceDocuments);
          this.changed();
          options.onInfo?.(next);
        },
      });
      this.indexInfo = info;
      this.deviceDocuments.sync(info.deviceDocuments);
      // Ready only once the stored conversation is back: a question answered before would be
      // overwritten by it, and its turns saved over the stored ones.
      await this.restoreConversation();
      this.indexStatus = 'ready';
      this.settleIndexWaiters(null);
      this.drain();
      // The latest: the query model may have come in (or failed) while the conversation was read.
      return this.indexInfo ?? info;
    } catch (error) {
      this.indexStatus = 'error';
      this.indexError = asHarelError(error);
      if (isHarelError(this.indexError, 'ABORTED')) this.queue.cancel();
      else this.queue.fail(this.indexError);
      // A load superseded by a newer one leaves its waiters to the newer one.
      if (generation === this.loadGeneration) this.settleIndexWaiters(this.indexError);
      throw this.indexError;
    } finally {
      if (this.loadController === controller) this.loadController = null;
      this.changed();
    }
  }

  /**
   * The customer's question, whenever it is asked: queued, and answered in turn (see the rule at
   * the top of this file) — at once when search works and nothing else is being answered. Resolves
   * with this question's answer; rejects with the load's error when the index failed, with ABORTED
   * when the customer stopped it or cleared the conversation, and with the answer's own error when
   * answering it failed.
   */
  submit(question: string, options: AskOptions): Promise<Answer> {
    const text = question.trim();
    if (!text) return Promise.reject(createError('EMPTY_QUESTION'));
    if (this.indexStatus === 'error') return Promise.reject(this.indexError ?? createError('INDEX_NOT_READY'));
    const answered = this.queue.add(text, options, options.askedAt ?? Date.now());
    if (this.indexStatus === 'ready') this.drain();
    return answered;
  }

  /** Esc / the stop button: stops the answer being written and every question still waiting. */
  stop(): void {
    this.queue.cancel();
    this.answerController?.abort();
  }

  /** Stops everything, then forgets the conversation, here and in the store; nothing from before comes back. */
  async clear(): Promise<void> {
    this.epoch++;
    this.stop();
    this.queue.clear();
    this.answerController = null;
    this.answering = null;
    this.streaming = '';
    this.turns = [];
    this.answerErrors.clear();
    this.changed();
    await this.write((store) => store.clear(this.options.conversationKey));
  }

  /** Answers what waits, one question at a time (a drain already running picks new ones up). */
  private drain(): void {
    void this.queue.drain((q) => this.answer(q.text, { ...q.payload, askedAt: q.at }));
  }

  /** Answers one question through the loop; only the queue calls it, so one runs at a time. */
  private async answer(text: string, options: AskOptions): Promise<Answer> {
    if (this.indexStatus !== 'ready') throw createError('INDEX_NOT_READY');
    const epoch = this.epoch;
    const controller = (this.answerController = new AbortController());
    const history = this.turns.slice();
    const asked: ChatTurn = { role: 'user', text, at: options.askedAt ?? Date.now() };
    this.turns = [...this.turns, asked];
    this.streaming = '';
    this.answering = 'analyze';
    this.changed();
    // The composed answer, shown while the reader reads; replaced by the read one.
    let draft: ChatTurn | null = null;
    let loop: AnswerLoop | null = null;
    try {
      loop = await loadAnswerLoop();
      const engine = (this.engine ??= new loop.ExtractiveEngine());
      const answer = await loop.runAnswerLoop(
        { question: text, history, domain: options.domain, lang: options.lang },
        { search: this.options.search, engine, contacts: options.contacts, reader: this.reader.setup() },
        {
          signal: controller.signal,
          onDraft: (composed) => {
            if (controller.signal.aborted) return;
            draft = { role: 'assistant', text: composed.text, answer: composed, at: Date.now() };
            if (this.indexInfo) draft.buildId = this.indexInfo.buildId;
            this.turns = [...this.turns, draft];
            this.changed();
          },
          onState: (state) => {
            if (controller.signal.aborted) return;
            this.answering = state;
            this.changed();
          },
          onText: (t) => {
            if (controller.signal.aborted) return;
            this.streaming = t;
            options.onText?.(t);
            this.changed();
          },
        },
      );
      // Stopped (or cleared) as the answer was finishing: it is not shown, as the customer asked.
      if (controller.signal.aborted) throw createError('ABORTED');
      const answered: ChatTurn = { role: 'assistant', text: answer.text, answer, at: Date.now() };
      if (this.indexInfo) answered.buildId = this.indexInfo.buildId;
      this.turns = draft ? this.turns.map((t) => (t === draft ? answered : t)) : [...this.turns, answered];
      const saved = this.persist();
      // The answer is shown at once; ask() resolves once it is also stored (or SAVE_WAIT_MS passed).
      this.answering = null;
      this.streaming = '';
      this.changed();
      let timer: ReturnType<typeof setTimeout> | undefined;
      await Promise.race([saved, new Promise((resolve) => (timer = setTimeout(resolve, SAVE_WAIT_MS)))]);
      clearTimeout(timer);
      return answer;
    } catch (error) {
      const failure = asHarelError(error);
      // After a clear the question is gone: nothing about it is written back.
      if (epoch === this.epoch) {
        if (isHarelError(failure, 'ABORTED') && draft && loop) {
          // Stopped while the reader read: the composed answer stays, saying the reader was stopped.
          const shown: ChatTurn = draft;
          const kept: ChatTurn = {
            ...shown,
            answer: { ...shown.answer!, reader: loop.skippedReader('stopped', this.reader.state.modelId) },
          };
          this.turns = this.turns.map((t) => (t === shown ? kept : t));
          void this.persist();
        } else if (isHarelError(failure, 'ABORTED')) {
          // Every question asked gets a reply: a stopped answer keeps what was streamed (nothing
          // the customer read disappears), or is an empty reply marked stopped.
          this.turns = [...this.turns, { role: 'assistant', text: this.streaming, at: Date.now(), stopped: true }];
        } else {
          this.answerErrors.set(asked, failure);
        }
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

  /**
   * The customer's rating of an answer (null withdraws it), kept with the turn and saved with the
   * conversation. The turn is replaced, not changed in place, so a view keyed on it renders again.
   * False when `turnIndex` is not an answered turn (e.g. the conversation was cleared since).
   */
  setFeedback(turnIndex: number, feedback: TurnFeedback | null): boolean {
    const turn = this.turns[turnIndex];
    if (turn?.role !== 'assistant' || !turn.answer) return false;
    const next: ChatTurn = { ...turn };
    if (feedback) next.feedback = { ...feedback };
    else delete next.feedback;
    this.turns = this.turns.map((t, i) => (i === turnIndex ? next : t));
    this.changed();
    void this.persist();
    return true;
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

  /** The customer's documents on this device, as the search service last listed them. */
  get documents(): readonly DeviceDocumentInfo[] {
    return this.deviceDocuments.list;
  }

  /**
   * Adds a customer's PDF: read on the device, then kept and indexed by the search service.
   * Resolves with its info once questions are answered from it by BM25 (its vectors follow in the
   * background); rejects with a DOCUMENT_* code, ABORTED, or DOCUMENTS_UNSUPPORTED. A failure
   * changes nothing else: the conversation and the other documents stay as they were.
   */
  addDocument(file: Blob, name?: string, options?: AddDocumentOptions): Promise<DeviceDocumentInfo> {
    return this.deviceDocuments.add(file, name, options);
  }

  /**
   * Deletes one customer document from this device (text, vectors, file), stopping its embedding,
   * and the answers that quote it with their questions: its words must not outlive it, on the
   * screen or in the stored conversation.
   */
  async removeDocument(id: string): Promise<void> {
    await this.deviceDocuments.remove(id);
    await this.forgetAnswersCiting(new Set([id]));
  }

  /** Deletes every customer document from this device, cancelling any addition under way, and every answer that quotes one. */
  async removeAllDocuments(): Promise<void> {
    await this.deviceDocuments.removeAll();
    await this.forgetAnswersCiting(null);
  }

  /** Drops the answers citing these device documents (null: any) and the questions they answer, then saves. */
  private async forgetAnswersCiting(ids: ReadonlySet<string> | null): Promise<void> {
    const cites = (t: ChatTurn) => t.role === 'assistant' && (t.answer?.citations ?? []).some((c) => c.origin === 'device' && (ids === null || ids.has(c.deviceDocument ?? '')));
    const drop = new Set<number>();
    this.turns.forEach((turn, i) => {
      if (!cites(turn)) return;
      drop.add(i);
      if (this.turns[i - 1]?.role === 'user') drop.add(i - 1);
    });
    if (drop.size === 0) return;
    this.turns = this.turns.filter((_, i) => !drop.has(i));
    this.changed();
    await this.persist();
  }

  /** One page's text of a customer document, from this device (what a device citation opens). */
  devicePage(id: string, page: number): Promise<string> {
    return this.deviceDocuments.page(id, page);
  }

  /** Loads the reader model in the background, where the page has one (never throws). */
  loadReader(): Promise<void> {
    return this.reader.load();
  }

  cancelModelLoad(): void {
    this.modelController?.abort();
  }

  setModelUnavailable(unavailable: 'no-webgpu' | 'software-gpu' | 'incompatible', reason: string): void {
    this.model = { status: 'unavailable', modelId: null, progress: null, reason, unavailable };
    this.changed();
  }

  dispose(): void {
    this.epoch++;
    this.loadGeneration++;
    this.queue.cancel();
    this.loadController?.abort();
    this.answerController?.abort();
    this.modelController?.abort();
    this.deviceDocuments.dispose();
    this.settleIndexWaiters(createError('ABORTED'));
    this.reader.dispose();
    this.options.search.dispose();
  }

  /** Resolves once the index answers; rejects with its load's error. */
  private indexReady(): Promise<void> {
    if (this.indexStatus === 'ready') return Promise.resolve();
    if (this.indexStatus === 'error') return Promise.reject(this.indexError ?? createError('INDEX_NOT_READY'));
    return new Promise((resolve, reject) => this.indexWaiters.push({ resolve, reject }));
  }

  private settleIndexWaiters(error: HarelError | null): void {
    const waiters = this.indexWaiters;
    this.indexWaiters = [];
    for (const w of waiters) {
      if (error) w.reject(error);
      else w.resolve();
    }
  }

  private async restoreConversation(): Promise<void> {
    if (!this.options.conversations || this.turns.length) return;
    const epoch = this.epoch;
    let stored: ChatTurn[] = [];
    try {
      const store = await this.options.conversations;
      // After the writes already queued: a clear made while loading is not undone by this read.
      await this.writes;
      stored = await store.load(this.options.conversationKey);
    } catch {
      // A conversation that cannot be read is not worth blocking the widget for.
    }
    if (epoch === this.epoch && !this.turns.length) this.turns = stored;
  }

  /** Saves the turns as they are now (a later write, e.g. a clear, always lands after it). */
  private persist(): Promise<void> {
    const turns = this.turns;
    return this.write((store) => store.save(this.options.conversationKey, turns));
  }

  private write(action: (store: ConversationStore) => Promise<void>): Promise<void> {
    const conversations = this.options.conversations;
    if (!conversations) return Promise.resolve();
    this.writes = this.writes.then(() => conversations.then(action)).catch(() => undefined);
    return this.writes;
  }

  private changed(): void {
    this.options.onChange();
  }
}
