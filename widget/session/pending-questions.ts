/**
 * Questions waiting for their answer: asked before search works, or while another question is
 * being answered. They wait here, outside the conversation's persisted turns, and are answered one
 * after another in the order asked (each leaves the queue as its answer starts, and becomes the
 * conversation's turn then); when the index fails to load, each keeps its text and says why it
 * was not answered; when the customer stops, each stays in view, marked stopped. Keeping them out
 * of the turns until answered is what keeps the stored conversation whole: a question that is
 * never answered is never saved, and the conversation restored from storage is not overwritten
 * by questions typed before it was read.
 *
 * Pure: no DOM, no storage, no timers; the session decides when to drain, fail or cancel.
 */
import { createError } from '../core/errors.ts';

/** waiting: not answered yet; failed: the index did not load; cancelled: the customer stopped it. */
export type PendingState = 'waiting' | 'failed' | 'cancelled';

export interface PendingQuestion<P = unknown> {
  readonly id: number;
  readonly text: string;
  /** When the customer asked (ms since the epoch): the question's place in the conversation. */
  readonly at: number;
  /** What the question is to be answered with (the session's ask options). */
  readonly payload: P;
  state: PendingState;
  /** For 'failed': why, as the load reported it. */
  error: { code: string; message: string } | null;
}

interface Entry<P, A> extends PendingQuestion<P> {
  resolve(answer: A): void;
  reject(error: unknown): void;
}

export class PendingQuestions<P, A> {
  private entries: Entry<P, A>[] = [];
  private nextId = 1;
  private draining = false;

  /** @param onChange called whenever what `list` returns changes */
  constructor(private readonly onChange: () => void = () => undefined) {}

  /** Every question not (yet) in the conversation's turns, in the order asked. */
  get list(): readonly PendingQuestion<P>[] {
    return this.entries;
  }

  get waiting(): number {
    return this.entries.filter((e) => e.state === 'waiting').length;
  }

  /**
   * True while a question waits or one taken from the queue is being answered: a new question
   * must then queue behind them, or it would overtake (or, in the session, stop) them.
   */
  get busy(): boolean {
    return this.draining || this.waiting > 0;
  }

  /** Queues a question; the promise settles when it is answered, fails or is cancelled. */
  add(text: string, payload: P, at: number): Promise<A> {
    let resolve!: (answer: A) => void;
    let reject!: (error: unknown) => void;
    const settled = new Promise<A>((res, rej) => {
      resolve = res;
      reject = rej;
    });
    this.entries.push({ id: this.nextId++, text, at, payload, state: 'waiting', error: null, resolve, reject });
    this.onChange();
    return settled;
  }

  /**
   * Answers the waiting questions one at a time, oldest first, including any queued while this
   * runs. Each question leaves the queue as it is handed to `answer` (it becomes the
   * conversation's turn then). A failed answer fails that question only; a second call while one
   * drains does nothing (the running one picks up its questions).
   */
  async drain(answer: (question: PendingQuestion<P>) => Promise<A>): Promise<void> {
    if (this.draining) return;
    this.draining = true;
    try {
      for (let next = this.take(); next; next = this.take()) {
        try {
          next.resolve(await answer(next));
        } catch (error) {
          next.reject(error);
        }
      }
    } finally {
      this.draining = false;
      this.onChange();
    }
  }

  /** The index could not be loaded: every waiting question stays, marked failed with `error`. */
  fail(error: { code: string; message: string }): void {
    this.settleWaiting('failed', error);
  }

  /** The customer stopped: every waiting question stays in view, marked cancelled, and is not answered. */
  cancel(): void {
    this.settleWaiting('cancelled', null);
  }

  /** Cancels what waits and forgets everything (the conversation was cleared). */
  clear(): void {
    this.cancel();
    this.entries = [];
    this.onChange();
  }

  private take(): Entry<P, A> | null {
    const i = this.entries.findIndex((e) => e.state === 'waiting');
    if (i < 0) return null;
    const [entry] = this.entries.splice(i, 1);
    this.onChange();
    return entry;
  }

  private settleWaiting(state: 'failed' | 'cancelled', error: { code: string; message: string } | null): void {
    const waiting = this.entries.filter((e) => e.state === 'waiting');
    if (!waiting.length) return;
    for (const entry of waiting) {
      entry.state = state;
      entry.error = error;
      entry.reject(state === 'cancelled' ? createError('ABORTED') : error);
    }
    this.onChange();
  }
}

/** One row of the conversation as shown: a persisted turn (by its index in the turns) or a pending question. */
export type ConversationRow<P> = { kind: 'turn'; index: number } | { kind: 'pending'; question: PendingQuestion<P> };

/**
 * The conversation in the order it was asked: turns and settled pending questions (failed,
 * cancelled) merged by time, a turn first on a tie. A settled question goes only before a
 * question turn, never between a question and its reply: a question stopped while the one before
 * it was being answered was asked before that reply was written, yet belongs after it. Waiting
 * questions are not rows here: nothing can have been answered after them, so they go last, after
 * the answer being written. A merge rather than a sort: turns keep their stored order even if
 * their clocks disagree.
 */
export function conversationRows<P>(turns: readonly { at: number; role?: string }[], pending: readonly PendingQuestion<P>[]): ConversationRow<P>[] {
  const settled = pending.filter((q) => q.state !== 'waiting');
  const rows: ConversationRow<P>[] = [];
  let p = 0;
  turns.forEach((turn, index) => {
    if (turn.role !== 'assistant') {
      while (p < settled.length && settled[p].at < turn.at) rows.push({ kind: 'pending', question: settled[p++] });
    }
    rows.push({ kind: 'turn', index });
  });
  for (; p < settled.length; p++) rows.push({ kind: 'pending', question: settled[p] });
  return rows;
}
