/**
 * Turns what web-llm throws into the widget's error codes. Across the worker boundary web-llm
 * sends errors as `String(error)` ("ShaderF16SupportError: …"), so the class survives only as
 * the text's first word; the patterns below are web-llm 0.2.86's names and the browsers' own
 * messages for network and storage failures.
 */
import { createError, HarelError, isHarelError } from '../../core/errors.ts';

export interface ErrorContext {
  modelId: string;
  /** Where the model's files come from, named when a download fails without a URL of its own. */
  modelUrl: string;
}

export function toHarelError(error: unknown, context: ErrorContext): HarelError {
  if (isHarelError(error)) return error;
  const text = describe(error);
  if (/AbortError|aborted|Engine\.unload\(\) is called/i.test(text)) return createError('MODEL_LOAD_ABORTED', context.modelId);
  if (/WebGPUNotAvailableError|WebGPUNotFoundError/.test(text)) return createError('WEBGPU_UNAVAILABLE', firstSentence(text));
  if (/ShaderF16SupportError/.test(text)) return createError('SHADER_F16_MISSING', context.modelId);
  if (/DeviceLostError|device (was )?lost/i.test(text)) return createError('GPU_DEVICE_LOST', firstSentence(text));
  if (/QuotaExceeded|quota/i.test(text)) return createError('STORAGE_QUOTA', context.modelId);
  if (/ModelNotLoadedError|EngineNotLoadedError|not loaded/i.test(text)) return createError('MODEL_NOT_LOADED');
  if (/Failed to fetch|NetworkError|network error|Cannot fetch|Cache\.add|Request failed|Failed to execute 'add'|HTTP \d{3}/i.test(text)) {
    const url = /https?:\/\/[^\s"'()]+/.exec(text)?.[0] ?? context.modelUrl;
    return createError('MODEL_DOWNLOAD_FAILED', url, firstSentence(text));
  }
  if (/CompileError|WebAssembly|wasm/i.test(text)) {
    return createError('MODEL_LOAD_FAILED', context.modelId, `its model library is not a valid WebAssembly module for this web-llm version: ${firstSentence(text)}`);
  }
  const wrapped = createError('MODEL_LOAD_FAILED', context.modelId, firstSentence(text));
  return new HarelError(wrapped.code, wrapped.message, { cause: error });
}

function describe(error: unknown): string {
  if (error instanceof Error) return `${error.name}: ${error.message}`;
  if (typeof error === 'object' && error !== null && 'message' in error) return String((error as { message: unknown }).message);
  return String(error);
}

function firstSentence(text: string): string {
  const trimmed = text.trim();
  const end = trimmed.search(/\.\s/);
  return (end > 0 ? trimmed.slice(0, end) : trimmed).slice(0, 300);
}
