/**
 * The one registry of error codes. Every failure a user can meet has a code and a sentence that
 * says what to do about it; code elsewhere throws `createError(code, details…)`.
 *
 * The codes here are the ones the widget can meet (and the builder shares: index format, PDF
 * text, models). builder/errors.ts adds the builder's own (its input, crawl, CLI, model fetch)
 * to the same registry for the builder's code: their sentences are half this table's text, and a
 * visitor's browser, which can never meet them, would otherwise download them twice (the page
 * and the search worker).
 */

const MESSAGES = {
  // PDF text (the builder's parse and a customer's document on the device)
  PDF_ENCRYPTED: (file: string) => `${file}: the PDF is password-protected. Provide an unencrypted copy.`,
  PDF_UNREADABLE: (file: string, reason: string) => `${file}: the PDF could not be read (${reason}). Check that the file is complete.`,
  // Index format
  INDEX_NOT_FOUND: (path: string) => `${path}: no index here (manifest.json missing). Build one with "harel-builder build <inputs> --out <dir>".`,
  INDEX_FORMAT_UNSUPPORTED: (found: string, expected: string) => `Index format ${found} is not supported by this version (expects ${expected}). Rebuild the index with the matching builder.`,
  INDEX_INTEGRITY: (file: string, reason: string) => `Index file ${file} failed its integrity check (${reason}). The download is corrupt or the file was changed: rebuild or re-publish the index.`,
  INDEX_CORRUPT: (file: string, reason: string) => `Index file ${file} could not be decoded (${reason}). Rebuild the index.`,
  INDEX_FRAGMENT_MISSING: (fragment: string) =>
    `Part of the index (${fragment}) is needed for this search but is not loaded. Wait until the index has loaded and ask again; if it persists, reload the page.`,
  // Browser storage and loading (the widget)
  STORAGE_UNAVAILABLE: (reason: string) =>
    `The browser's storage (IndexedDB) cannot be used (${reason}): the index is kept in memory for this visit and downloaded again next time. Allow this site to store data (private browsing often blocks it).`,
  INDEX_STORAGE_QUOTA: (reason: string) =>
    `Not enough browser storage to keep the index (${reason}): it is kept in memory for this visit and downloaded again next time. Free up space or allow this site more storage.`,
  INDEX_DOWNLOAD_FAILED: (file: string, reason: string) => `Could not download index file ${file} (${reason}). Check the connection and that the index URL serves this build.`,
  INDEX_WEB_PAGE: (url: string) =>
    `${url}: the server sent a web page (HTML) instead of this index file. Check that the index attribute points at the index's manifest.json and that the whole index folder is published there; a server that answers unknown paths with the site's own page (a single-page-app fallback rewrite) or with a login page must serve that folder as plain files, without the rewrite or the login.`,
  WORKER_BLOCKED: (script: string, reason: string) =>
    `The browser refused to start the worker ${script} (${reason}). A page that loads the widget from another origin must allow blob: workers in its Content-Security-Policy (worker-src blob:), and the widget's host must send CORS headers.`,
  EMBEDDER_UNAVAILABLE: (model: string, reason: string) =>
    `The query embedder "${model}" could not be loaded (${reason}); search runs on words only (BM25). Check the model-base setting and that its files are served.`,
  EMBEDDER_MISMATCH: (index: string, given: string) => `The index was embedded with "${index}" but the query embedder is "${given}". Use the same model, or search with --mode bm25.`,
  // Models (harel-builder models fetch)
  MODEL_FILE_INVALID: (file: string, reason: string) => `${file}: not a usable model file (${reason}). Delete it and run "npx harel-builder models fetch" again.`,
  QUERY_MODEL_MISMATCH: (model: string, trainedAgainst: string, indexModel: string) =>
    `The question model "${model}" was trained against ${trainedAgainst}, this index's passages were embedded with ${indexModel}: use --query-model ${indexModel} (the query-model attribute in the widget) or rebuild the index with ${trainedAgainst}.`,
  // A customer's own document, read on the device (widget/core/device): the customer can fix these
  DOCUMENT_NOT_PDF: (name: string) => `${name} is not a PDF. Add the policy as a PDF file (the one your insurer sent).`,
  DOCUMENT_ENCRYPTED: (name: string) => `${name} is password-protected. Open it, save an unprotected copy, and add that copy.`,
  DOCUMENT_NO_TEXT: (name: string) => `${name} has no text layer (a scan or a photo): it cannot be read here, since nothing is sent to a server for OCR. Add the PDF your insurer sent, not a scan.`,
  DOCUMENT_TOO_LARGE: (name: string, megabytes: number, limit: number) => `${name} is ${megabytes} MB; documents of up to ${limit} MB can be added. Add the policy's own pages only.`,
  DOCUMENT_TOO_MANY_PAGES: (name: string, pages: number, limit: number) => `${name} has ${pages} pages; documents of up to ${limit} pages can be added. Add the policy's own pages only.`,
  DOCUMENT_DUPLICATE: (name: string, first: string) => `${name} is already added (as "${first}"). Nothing changed.`,
  DOCUMENT_STORAGE_QUOTA: (name: string, reason: string) =>
    `There is not enough browser storage to keep ${name} (${reason}). Remove a document you added, free disk space, or leave private browsing; nothing was kept.`,
  DOCUMENT_NOT_FOUND: (id: string) => `No added document ${id} on this device (it was removed). Add it again to ask about it.`,
  DOCUMENT_UNREADABLE: (name: string, reason: string) => `${name} could not be read (${reason}). Check that the file is complete, or save it again from the original.`,
  DOCUMENTS_UNSUPPORTED: () => 'This assistant cannot keep documents of your own here (its search runs without the device store). Ask the site owner, or ask about the documents it already has.',
  ABORTED: () => 'The operation was cancelled.',
  // Widget (chat)
  EMPTY_QUESTION: () => 'Type a question first.',
  INDEX_NOT_READY: () => 'The documents are still loading (or failed to load). Wait for them, or check the index attribute.',
  INDEX_URL_MISSING: () => 'The <harel-chat> element has no index attribute. Set index="<url of the index\'s manifest.json>".',
  UNEXPECTED: (reason: string) => `Something went wrong (${reason}). Reload the page; if it persists, report it to the site owner.`,
  // LLM engine
  WEBGPU_UNAVAILABLE: (reason: string) => `The local model cannot run here: ${reason}. Use a recent Chrome or Edge with WebGPU enabled, or keep the extractive mode (it needs no GPU).`,
  SHADER_F16_MISSING: (model: string) => `"${model}" needs the GPU feature shader-f16, which this device lacks, and has no q4f32 variant. Choose a q4f32 model or keep the extractive mode.`,
  MODEL_UNKNOWN: (model: string, known: string) => `"${model}" is not a supported model id. Use one of: ${known}.`,
  MODEL_DOWNLOAD_FAILED: (url: string, reason: string) => `Could not download the model from ${url} (${reason}). Check the model-base attribute and the network connection.`,
  MODEL_LOAD_FAILED: (model: string, reason: string) =>
    `The model "${model}" was downloaded but could not be started (${reason}). Reload the page; if it persists, clear the site's storage or pick another model.`,
  MODEL_LOAD_ABORTED: (model: string) => `Loading "${model}" was cancelled. Load it again when you are ready; files already downloaded are kept.`,
  GPU_DEVICE_LOST: (reason: string) =>
    `The GPU stopped responding (${reason}), usually from running out of GPU memory. Close other GPU-heavy tabs or choose a smaller model (a -1k variant), then load it again.`,
  STORAGE_QUOTA: (model: string) => `There is not enough browser storage to keep "${model}" (private windows allow little). Free disk space, leave private browsing, or keep the extractive mode.`,
  MODEL_NOT_LOADED: () => 'The local model is not loaded (it was unloaded or lost). Load it again, or keep the extractive mode.',
  // GGUF engine (llama.cpp in WebAssembly): the file is the site owner's, so the fix is theirs
  GGUF_MODEL_MISSING: (url: string, reason: string) =>
    `No GGUF model at ${url} (${reason}). Run "npx harel-builder models fetch" and serve models/ at the model-base, or point the gguf-model attribute at a .gguf file.`,
  GGUF_FILE_INVALID: (url: string, reason: string) =>
    `${url} is not a usable GGUF model (${reason}). Fetch it again ("npx harel-builder models fetch" checks its sha256), or point gguf-model at another .gguf file.`,
  GGUF_ARCH_UNSUPPORTED: (url: string, architecture: string, supported: string) =>
    `${url} is a "${architecture}" model, which this widget does not run. Use a GGUF of one of: ${supported} (Gemma 3 270M, 1B and up work).`,
  // The reader (engines/gguf/gguf-reader.ts): Gemma fine-tuned to read one passage
  READER_PROMPT_TOO_LONG: (limit: number, reason: string) =>
    `The reader's prompt cannot fit its ${limit}-token budget (${reason}). Ask a shorter question; the answer from the documents' own words stands.`,
  READER_MODEL_UNSUPPORTED: (url: string, reason: string) =>
    `${url} cannot run as the reader (${reason}). Run "npx harel-builder models fetch" for gemma-3-270m-harel-reader.gguf, or point the reader at a Gemma 3 GGUF.`,
} as const;

export const ERROR_MESSAGES = MESSAGES;

/** A table of sentences by code: this file's, or the builder's with its own codes added. */
export type ErrorMessages = Readonly<Record<string, (...args: never[]) => string>>;

export type ErrorCode = keyof typeof MESSAGES;

/** `C`: the codes of the registry that made it (the builder's errors carry its wider union). */
export class HarelError<C extends string = ErrorCode> extends Error {
  readonly code: C;
  constructor(code: C, message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = 'HarelError';
    this.code = code;
  }
}

/** The `createError` of a message table; each registry exports the one of its own table. */
export function errorFactory<M extends ErrorMessages>(messages: M) {
  return <C extends keyof M & string>(code: C, ...args: Parameters<M[C]>): HarelError<keyof M & string> => {
    const format = messages[code] as (...a: Parameters<M[C]>) => string;
    return new HarelError<keyof M & string>(code, format(...args));
  };
}

export const createError = errorFactory(MESSAGES);

export function isHarelError(error: unknown, code?: ErrorCode): error is HarelError {
  return error instanceof HarelError && (code === undefined || error.code === code);
}

/** Any thrown value as a HarelError: an abort stays ABORTED, anything unforeseen becomes UNEXPECTED. */
export function asHarelError(error: unknown): HarelError {
  if (error instanceof HarelError) return error;
  if (typeof DOMException !== 'undefined' && error instanceof DOMException && error.name === 'AbortError') return createError('ABORTED');
  return createError('UNEXPECTED', error instanceof Error ? error.message : String(error));
}

/** Throws ABORTED when the signal has fired; call it between units of long work. */
export function throwIfAborted(signal: AbortSignal | undefined): void {
  if (signal?.aborted) throw createError('ABORTED');
}
