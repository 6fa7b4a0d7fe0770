/**
 * The customer's own documents in one conversation (issue 36): adding one (read on the device by
 * the document reader, then kept and indexed by the search service), removing them, opening a
 * page, and the list as the service last reported it. No DOM: the element renders `list` and
 * `additions` and calls these on the customer's behalf.
 *
 * Nothing is lost on a failure: an addition that fails or is cancelled changes neither the
 * conversation nor the documents already added (the service keeps nothing of a refused document),
 * and the error goes to the caller. Each addition has its own AbortController, so one can be
 * cancelled without touching the others; `dispose()` cancels them all.
 */
import { DEVICE_DOCUMENT_LIMITS, type DeviceDocumentInfo, type ParsedDeviceDocument } from '../core/device/device-document.ts';
import { asHarelError, createError, throwIfAborted } from '../core/errors.ts';
import type { Progress } from '../core/schema.ts';
import type { SearchService } from '../search/search-service.ts';

/** Reads a PDF on the device into its pages and chunks (search/document-reader.ts); injected so tests use a fake. */
export type DocumentReader = (file: Blob, name: string, options?: { signal?: AbortSignal; onProgress?: (progress: Progress) => void }) => Promise<ParsedDeviceDocument>;

export interface AddDocumentOptions {
  signal?: AbortSignal;
  /** The reader's progress while it parses (pages), then `{step: 'index'}` while the service keeps and indexes it. */
  onProgress?: (progress: Progress) => void;
}

/** A document being added, as the panel shows it until it is in the list (or failed). */
export interface DocumentAddition {
  /** Unique in this session (not the document's id: that is known only once its bytes are read). */
  key: number;
  name: string;
  /** 'read': the reader parses its pages; 'index': the service stores and indexes it for BM25. */
  step: 'read' | 'index';
  progress: Progress | null;
}

/** The name a file is shown by: the one given, else the file's own, else a neutral one. */
export function documentName(file: Blob, name?: string): string {
  const given = name?.trim();
  if (given) return given;
  const own = typeof File !== 'undefined' && file instanceof File ? file.name.trim() : '';
  return own || 'document.pdf';
}

export class DeviceDocuments {
  private reported: DeviceDocumentInfo[] = [];
  /** Ids removed here whose removal a later (stale) service report may not have caught up with. */
  private readonly removed = new Set<string>();
  /** Documents added here that no service report has listed yet (a report made before the addition). */
  private readonly unseen = new Map<string, DeviceDocumentInfo>();
  private readonly running = new Map<number, { addition: DocumentAddition; controller: AbortController }>();
  private nextKey = 1;

  constructor(
    private readonly search: SearchService,
    private readonly read: DocumentReader,
    /** Resolves once the index answers (the service adds to a loaded index); rejects when it cannot. */
    private readonly indexReady: () => Promise<void>,
    private readonly onChange: () => void,
  ) {}

  /** Whether the search service can hold customer documents at all. */
  get supported(): boolean {
    return typeof this.search.addDocument === 'function';
  }

  /** The documents on this device, in the order added, with their background embedding's progress. */
  get list(): readonly DeviceDocumentInfo[] {
    return this.reported;
  }

  /** The additions under way, in the order started. */
  get additions(): readonly DocumentAddition[] {
    return [...this.running.values()].map((r) => r.addition);
  }

  /** The service's own list (IndexInfo.deviceDocuments): absent from a service that cannot hold documents. */
  sync(reported: readonly DeviceDocumentInfo[] | undefined): void {
    if (!reported) return;
    for (const id of this.removed) if (!reported.some((d) => d.id === id)) this.removed.delete(id);
    for (const id of this.unseen.keys()) if (reported.some((d) => d.id === id)) this.unseen.delete(id);
    this.reported = [...reported.filter((d) => !this.removed.has(d.id)), ...this.unseen.values()];
    this.onChange();
  }

  /**
   * Reads `file`, then has the service keep and index it. Resolves with its info once search answers
   * from it by BM25 (its vectors follow in the background: `list` shows their progress). Rejects with
   * the reader's or the service's DOCUMENT_* error, ABORTED when cancelled, DOCUMENTS_UNSUPPORTED
   * when the service cannot hold documents, or the index's own error when it could not be loaded.
   */
  async add(file: Blob, name?: string, options: AddDocumentOptions = {}): Promise<DeviceDocumentInfo> {
    const addDocument = this.search.addDocument?.bind(this.search);
    if (!addDocument) throw createError('DOCUMENTS_UNSUPPORTED');
    const shown = documentName(file, name);
    const controller = new AbortController();
    const signal = controller.signal;
    const outer = options.signal;
    const forward = () => controller.abort();
    if (outer?.aborted) throw createError('ABORTED');
    outer?.addEventListener('abort', forward, { once: true });
    const addition: DocumentAddition = { key: this.nextKey++, name: shown, step: 'read', progress: null };
    const entry = { addition, controller };
    this.running.set(addition.key, entry);
    this.onChange();
    const progress = (p: Progress) => {
      if (signal.aborted) return;
      entry.addition = { ...entry.addition, progress: p };
      options.onProgress?.(p);
      this.onChange();
    };
    try {
      // Refused before a byte is read: a file over the limit would only fill memory to be refused by the worker.
      const { maxBytes } = DEVICE_DOCUMENT_LIMITS;
      if (file.size > maxBytes) throw createError('DOCUMENT_TOO_LARGE', shown, Math.round((file.size / 2 ** 20) * 10) / 10, maxBytes / 2 ** 20);
      const parsed = await this.read(file, shown, { signal, onProgress: progress });
      throwIfAborted(signal);
      const bytes = new Uint8Array(await file.arrayBuffer());
      await abortable(this.indexReady(), signal);
      throwIfAborted(signal);
      entry.addition = { ...entry.addition, step: 'index', progress: null };
      progress({ step: 'index', done: 0, total: null, detail: shown });
      const info = await addDocument(parsed, bytes, signal);
      this.removed.delete(info.id);
      if (!this.reported.some((d) => d.id === info.id)) this.unseen.set(info.id, info);
      this.reported = [...this.reported.filter((d) => d.id !== info.id), info];
      return info;
    } catch (error) {
      throw signal.aborted ? createError('ABORTED') : asHarelError(error);
    } finally {
      outer?.removeEventListener('abort', forward);
      this.running.delete(addition.key);
      this.onChange();
    }
  }

  /** Cancels one addition under way (the panel's cancel button); its promise rejects with ABORTED. */
  cancel(key: number): void {
    this.running.get(key)?.controller.abort();
  }

  /** Deletes every trace of one document (text, vectors, file), stopping its embedding. */
  async remove(id: string): Promise<void> {
    const removeDocument = this.search.removeDocument?.bind(this.search);
    if (!removeDocument) throw createError('DOCUMENTS_UNSUPPORTED');
    await removeDocument(id);
    this.removed.add(id);
    this.unseen.delete(id);
    this.reported = this.reported.filter((d) => d.id !== id);
    this.onChange();
  }

  /** Cancels the additions under way and deletes every document on this device. */
  async removeAll(): Promise<void> {
    const removeAllDocuments = this.search.removeAllDocuments?.bind(this.search);
    if (!removeAllDocuments) throw createError('DOCUMENTS_UNSUPPORTED');
    for (const { controller } of this.running.values()) controller.abort();
    await removeAllDocuments();
    for (const d of this.reported) this.removed.add(d.id);
    this.unseen.clear();
    this.reported = [];
    this.onChange();
  }

  /** One page's text from the device's storage (DOCUMENT_NOT_FOUND once the document is removed). */
  page(id: string, page: number): Promise<string> {
    const devicePage = this.search.devicePage?.bind(this.search);
    if (!devicePage) return Promise.reject(createError('DOCUMENTS_UNSUPPORTED'));
    return devicePage(id, page);
  }

  dispose(): void {
    for (const { controller } of this.running.values()) controller.abort();
  }
}

/** `promise`, or ABORTED as soon as `signal` fires (the promise itself runs on). */
function abortable<T>(promise: Promise<T>, signal: AbortSignal): Promise<T> {
  if (signal.aborted) return Promise.reject(createError('ABORTED'));
  return new Promise<T>((resolve, reject) => {
    const stop = () => reject(createError('ABORTED'));
    signal.addEventListener('abort', stop, { once: true });
    promise.then(
      (value) => {
        signal.removeEventListener('abort', stop);
        resolve(value);
      },
      (error: unknown) => {
        signal.removeEventListener('abort', stop);
        reject(error);
      },
    );
  });
}
