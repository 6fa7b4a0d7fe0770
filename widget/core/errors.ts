/**
 * The one registry of error codes. Every failure a user can meet has a code here and a sentence
 * that says what to do about it; code elsewhere throws `createError(code, details…)`.
 */

const MESSAGES = {
  // Input (builder)
  UNSUPPORTED_EXTENSION: (file: string) =>
    `${file}: unsupported file type. Use .pdf, .html, .htm, .aspx, .md, .txt or a parsed-page .json file.`,
  INVALID_JSON: (file: string, reason: string) =>
    `${file}: not valid JSON (${reason}). Fix or remove the file.`,
  INVALID_PAGE_JSON: (file: string, reason: string) =>
    `${file}: JSON is not a parsed document ({file, domain, kind, url, pages:[{page, text}]}): ${reason}.`,
  NOT_UTF8: (file: string) =>
    `${file}: text is not valid UTF-8. Re-save it as UTF-8.`,
  EMPTY_DOCUMENT: (file: string) =>
    `${file}: no text found (an empty file, or a scanned PDF without a text layer: run OCR first).`,
  PDF_ENCRYPTED: (file: string) =>
    `${file}: the PDF is password-protected. Provide an unencrypted copy.`,
  PDF_UNREADABLE: (file: string, reason: string) =>
    `${file}: the PDF could not be read (${reason}). Check that the file is complete.`,
  DUPLICATE_FILE: (file: string, first: string) =>
    `${file}: same content as ${first}; indexed once.`,
  INVALID_MANIFEST: (file: string, reason: string) =>
    `${file}: the input manifest is invalid (${reason}). It must map file paths to URLs or {url, domain}.`,
  NO_DOCUMENTS: (inputs: string) =>
    `No usable document in ${inputs}. Check the paths and the skipped-file list above.`,
  INPUT_NOT_FOUND: (path: string) => `${path}: no such file or folder.`,
  DUPLICATE_KEY: (file: string, first: string) =>
    `${file}: another input (${first}) already provides a document under this name; the first one is indexed.`,
  // Embedding
  EMBEDDER_LOAD_FAILED: (model: string, reason: string) =>
    `Could not load the embedder "${model}" (${reason}). Pass --model-dir with a local copy, --allow-remote to download it, or --no-embed for a BM25-only index.`,
  // Index format
  INDEX_NOT_FOUND: (path: string) =>
    `${path}: no index here (manifest.json missing). Build one with "harel-builder build <inputs> --out <dir>".`,
  INDEX_FORMAT_UNSUPPORTED: (found: string, expected: string) =>
    `Index format ${found} is not supported by this version (expects ${expected}). Rebuild the index with the matching builder.`,
  INDEX_INTEGRITY: (file: string, reason: string) =>
    `Index file ${file} failed its integrity check (${reason}). The download is corrupt or the file was changed: rebuild or re-publish the index.`,
  INDEX_CORRUPT: (file: string, reason: string) =>
    `Index file ${file} could not be decoded (${reason}). Rebuild the index.`,
  // CLI and evaluation
  BAD_ARGUMENT: (reason: string) => `${reason} Run "harel-builder --help" for usage.`,
  QUESTIONS_INVALID: (file: string, reason: string) =>
    `${file}: not a question file this tool knows (${reason}). Use the harel questions shape or SQuAD 2.0.`,
  EMBEDDER_MISMATCH: (index: string, given: string) =>
    `The index was embedded with "${index}" but the query embedder is "${given}". Use the same model, or search with --mode bm25.`,
  ABORTED: () => 'The operation was cancelled.',
} as const;

export type ErrorCode = keyof typeof MESSAGES;

type MessageArgs<C extends ErrorCode> = Parameters<(typeof MESSAGES)[C]>;

export class HarelError extends Error {
  readonly code: ErrorCode;
  constructor(code: ErrorCode, message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = 'HarelError';
    this.code = code;
  }
}

export function createError<C extends ErrorCode>(code: C, ...args: MessageArgs<C>): HarelError {
  const format = MESSAGES[code] as (...a: MessageArgs<C>) => string;
  return new HarelError(code, format(...args));
}

export function isHarelError(error: unknown, code?: ErrorCode): error is HarelError {
  return error instanceof HarelError && (code === undefined || error.code === code);
}

/** Throws ABORTED when the signal has fired; call it between units of long work. */
export function throwIfAborted(signal: AbortSignal | undefined): void {
  if (signal?.aborted) throw createError('ABORTED');
}
