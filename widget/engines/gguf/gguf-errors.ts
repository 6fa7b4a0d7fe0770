/**
 * Turns what wllama and llama.cpp throw into the widget's codes. wllama's own errors carry a
 * `type` ('download_error', 'load_error', …); llama.cpp's failures arrive as text from the worker.
 */
import { createError, HarelError, isHarelError } from '../../core/errors.ts';

export function toGgufError(error: unknown, context: { url: string; model: string }): HarelError {
  if (isHarelError(error)) return error;
  const text = error instanceof Error ? `${error.name}: ${error.message}` : String(error);
  const type = typeof error === 'object' && error !== null && 'type' in error ? String((error as { type: unknown }).type) : '';
  if (/AbortError|aborted/i.test(text)) return createError('MODEL_LOAD_ABORTED', context.model);
  if (/QuotaExceeded|quota/i.test(text)) return createError('STORAGE_QUOTA', context.model);
  if (/not within the file bounds|unexpectedly reached end of file|failed to read/i.test(text)) {
    return createError('GGUF_FILE_INVALID', context.url, `llama.cpp could not read it: ${firstLine(text)}`);
  }
  if (/unknown model architecture/i.test(text)) return createError('GGUF_FILE_INVALID', context.url, firstLine(text));
  if (type === 'download_error' || /Failed to fetch|NetworkError|HTTP \d{3}/i.test(text)) {
    return createError('MODEL_DOWNLOAD_FAILED', context.url, firstLine(text));
  }
  if (type === 'model_not_loaded') return createError('MODEL_NOT_LOADED');
  const wrapped = createError('MODEL_LOAD_FAILED', context.model, firstLine(text));
  return new HarelError(wrapped.code, wrapped.message, { cause: error });
}

function firstLine(text: string): string {
  return text.trim().split('\n')[0].slice(0, 300);
}
