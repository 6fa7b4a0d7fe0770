/**
 * The reader model of one conversation (engines/reader.ts): loaded once, when the page turns it on
 * (the reader-model attribute), in the background — answers before it is in say the reader was
 * skipped and why, and nothing else waits for it. Async state is a status and
 * an AbortController for the load.
 */
import { asHarelError, isHarelError } from '../core/errors.ts';
import type { Progress } from '../core/schema.ts';
import type { PassageReader } from '../engines/reader.ts';
import type { ReaderSetup } from '../loop/machine.ts';

export type ReaderStatus = 'none' | 'loading' | 'ready' | 'error';

/** Loads the reader; injected so the GGUF runtime is imported only where a page asks for it. */
export type ReaderLoader = (options: { signal: AbortSignal; onProgress: (p: Progress) => void }) => Promise<PassageReader>;

export interface ReaderSettings {
  loader: ReaderLoader;
  /** Reader calls per answer (reader-calls). */
  maxCalls: number;
  /** Refuse on the reader's word (reader-refuses). */
  refuses: boolean;
}

export interface ReaderState {
  status: ReaderStatus;
  modelId: string | null;
  progress: Progress | null;
  /** Why it failed, in words (shown in the details panel and in each answer's `reader.reason`). */
  reason: string | null;
}

export class ReaderSlot {
  state: ReaderState = { status: 'none', modelId: null, progress: null, reason: null };
  private reader: PassageReader | null = null;
  private controller: AbortController | null = null;

  constructor(
    private readonly settings: ReaderSettings | null,
    private readonly onChange: () => void,
  ) {}

  /** Starts loading (once); resolves when loaded or failed, never throws. */
  async load(): Promise<void> {
    if (!this.settings || this.state.status === 'loading' || this.state.status === 'ready') return;
    const controller = (this.controller = new AbortController());
    this.state = { status: 'loading', modelId: null, progress: null, reason: null };
    this.onChange();
    try {
      this.reader = await this.settings.loader({
        signal: controller.signal,
        onProgress: (progress) => {
          this.state = { ...this.state, progress };
          this.onChange();
        },
      });
      this.state = { status: 'ready', modelId: this.reader.modelId, progress: null, reason: null };
    } catch (error) {
      const failure = asHarelError(error);
      const message = failure.message;
      const cancelled = isHarelError(failure, 'ABORTED') || isHarelError(failure, 'MODEL_LOAD_ABORTED');
      this.state = { status: cancelled ? 'none' : 'error', modelId: null, progress: null, reason: cancelled ? null : message };
    } finally {
      if (this.controller === controller) this.controller = null;
      this.onChange();
    }
  }

  /** What the loop gets: undefined where the page has no reader, else the reader or why there is none yet. */
  setup(): ReaderSetup | undefined {
    if (!this.settings) return undefined;
    const { maxCalls, refuses } = this.settings;
    if (this.reader) return { reader: this.reader, maxCalls, refuses };
    const unavailable =
      this.state.status === 'error' ? `the reader could not load: ${this.state.reason}` : this.state.status === 'loading' ? 'the reader is still loading' : 'the reader was not loaded';
    return { reader: null, unavailable, maxCalls, refuses };
  }

  dispose(): void {
    this.controller?.abort();
    void this.reader?.unload();
    this.reader = null;
  }
}
