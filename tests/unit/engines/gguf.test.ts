/**
 * The GGUF engine's pure parts: the file checks (a synthetic GGUF written here, so the tests need
 * no model), the prompt formats, the backend and location rules. The real model runs in
 * tests/e2e/gguf.spec.ts.
 */
import { describe, expect, it } from 'vitest';
import { isHarelError } from '../../../widget/core/errors.ts';
import type { AnswerEngine, GenerateRequest } from '../../../widget/engines/engine.ts';
import { gateFor, GatedEngine, modelAnswers, OPEN_GATE, type AnswerGate } from '../../../widget/engines/gguf/answer-gate.ts';
import { chooseGgufBackend } from '../../../widget/engines/gguf/gguf-backend.ts';
import { inspectGguf, inspectGgufBlob, probeGgufHeader } from '../../../widget/engines/gguf/gguf-inspect.ts';
import { ggufModelName, resolveGgufUrl } from '../../../widget/engines/gguf/gguf-location.ts';
import { renderPrompt } from '../../../widget/engines/gguf/gguf-prompt.ts';
import type { GpuReport } from '../../../widget/engines/webllm/gpu-check.ts';
import { encodeGguf, type GgufValue } from '../../fixtures/gguf/write-gguf.ts';
import { readStandalone, readText } from '../../../widget/text/question-reading.ts';

type Kv = readonly [string, GgufValue];

/** A GGUF v3 file: the key/values, one Q4_K tensor of 512 elements (2 blocks × 144 bytes) and its data. */
function gguf(kvs: readonly Kv[], options: { cut?: number; magic?: string } = {}): Uint8Array {
  const data = Uint8Array.from({ length: 288 }, (_, i) => i & 0xff);
  const bytes = encodeGguf(kvs, [{ name: 'blk.0.weight', elements: 512, type: 12, offset: 0 }], data, { magic: options.magic });
  return options.cut ? bytes.subarray(0, bytes.length - options.cut) : bytes;
}

const gemmaKvs: Kv[] = [
  ['general.architecture', 'gemma3'],
  ['general.name', 'Gemma 3 270m'],
  ['tokenizer.ggml.tokens', ['<pad>', '<eos>', '<bos>', '<start_of_turn>', '<end_of_turn>', 'a']],
];
const url = 'http://localhost/models/gguf/x.gguf';

function codeOf(run: () => unknown): string | null {
  try {
    run();
    return null;
  } catch (error) {
    return isHarelError(error) ? error.code : `not a HarelError: ${String(error)}`;
  }
}

describe('GGUF file checks', () => {
  it('reads the header and architecture from the first bytes, and refuses what is not a GGUF', () => {
    expect(probeGgufHeader(gguf(gemmaKvs).subarray(0, 200), url)).toEqual({ version: 3, architecture: 'gemma3' });
    expect(codeOf(() => probeGgufHeader(new TextEncoder().encode('<!doctype html><html><body>Not found</body></html>'), url))).toBe('GGUF_FILE_INVALID');
    expect(codeOf(() => probeGgufHeader(gguf(gemmaKvs, { magic: 'GGML' }), url))).toBe('GGUF_FILE_INVALID');
  });

  it('refuses an architecture the widget does not run, early and after the download', () => {
    const bert = gguf([
      ['general.architecture', 'bert'],
      ['general.name', 'e5'],
    ]);
    expect(codeOf(() => probeGgufHeader(bert, url))).toBe('GGUF_ARCH_UNSUPPORTED');
    expect(codeOf(() => inspectGguf(bert, bert.length, url))).toBe('GGUF_ARCH_UNSUPPORTED');
  });

  it('finds a truncated file from its tensors, before llama.cpp does', () => {
    const whole = gguf(gemmaKvs);
    expect(inspectGguf(whole, whole.length, url).expectedBytes).toBe(whole.length);
    const cut = gguf(gemmaKvs, { cut: 100 });
    expect(codeOf(() => inspectGguf(cut, cut.length, url))).toBe('GGUF_FILE_INVALID');
    try {
      inspectGguf(cut, cut.length, url);
    } catch (error) {
      expect(String(error)).toMatch(/truncated/);
    }
  });

  it("picks the prompt format: the file's template, else Gemma turns when the vocabulary has them, else plain", () => {
    const base = gguf(gemmaKvs);
    expect(inspectGguf(base, base.length, url).format).toBe('gemma-turns');
    const templated = gguf([...gemmaKvs, ['tokenizer.chat_template', '{{ messages }}']]);
    expect(inspectGguf(templated, templated.length, url).format).toBe('chat-template');
    const llama = gguf([
      ['general.architecture', 'llama'],
      ['tokenizer.ggml.tokens', ['a', 'b']],
    ]);
    expect(inspectGguf(llama, llama.length, url).format).toBe('plain');
  });

  it('inspects a Blob (as the download is kept), growing its head while the metadata runs past it', async () => {
    const whole = gguf(gemmaKvs);
    const inspection = await inspectGgufBlob(new Blob([new Uint8Array(whole)]), url);
    expect(inspection.summary).toMatchObject({ architecture: 'gemma3', name: 'Gemma 3 270m', kind: 'base', chatTemplate: null });
  });
});

describe('GGUF prompts', () => {
  const messages = [
    { role: 'user' as const, content: 'first question' },
    { role: 'assistant' as const, content: 'first answer [1]' },
    { role: 'user' as const, content: 'rules\n\nQuestion: second' },
  ];

  it('writes Gemma turns ending in an open model turn, and stops at the next turn', () => {
    const prompt = renderPrompt(messages, 'gemma-turns');
    expect(prompt.text).toBe(
      '<start_of_turn>user\nfirst question<end_of_turn>\n<start_of_turn>model\nfirst answer [1]<end_of_turn>\n' + '<start_of_turn>user\nrules\n\nQuestion: second<end_of_turn>\n<start_of_turn>model\n',
    );
    expect(prompt.stop).toContain('<end_of_turn>');
    // BOS is llama.cpp's to add (the file says add_bos_token): not written twice.
    expect(prompt.text).not.toContain('<bos>');
  });

  it('writes a plain completion prompt for a model without turn tokens', () => {
    const prompt = renderPrompt(messages, 'plain');
    expect(prompt.text.endsWith('\n\nAnswer:')).toBe(true);
    expect(prompt.text).toContain('Answer: first answer [1]');
  });
});

describe('GGUF backend and location', () => {
  const report = (verdict: GpuReport['verdict']): GpuReport => ({ verdict, reason: verdict, adapter: null, features: [], shaderF16: false, limits: null });

  it('uses WebGPU only on a real adapter; WebAssembly threads only when cross-origin isolated', () => {
    expect(chooseGgufBackend({ gpu: report('ok'), crossOriginIsolated: false, cores: 8 })).toMatchObject({ backend: 'webgpu', gpuLayers: 999 });
    expect(chooseGgufBackend({ gpu: report('software'), crossOriginIsolated: false, cores: 8 })).toMatchObject({ backend: 'wasm', threads: 1, gpuLayers: 0 });
    expect(chooseGgufBackend({ gpu: null, crossOriginIsolated: true, cores: 2 })).toMatchObject({ backend: 'wasm-threads', threads: 2, gpuLayers: 0 });
    expect(chooseGgufBackend({ gpu: report('unsupported'), crossOriginIsolated: true, cores: 64 }).threads).toBe(8);
  });

  it('finds the fetched model under the model-base, or the file gguf-model names', () => {
    const page = 'https://site.example/help/';
    expect(resolveGgufUrl({ modelBase: 'https://cdn.example/models', baseUrl: page })).toBe('https://cdn.example/models/gguf/gemma-3-270m-q4_k_m.gguf');
    expect(resolveGgufUrl({ modelBase: '/models/', ggufModel: 'gguf/gemma-3-1b-it-q4_k_m.gguf', baseUrl: page })).toBe('https://site.example/models/gguf/gemma-3-1b-it-q4_k_m.gguf');
    expect(resolveGgufUrl({ ggufModel: 'https://hub.example/g.gguf', baseUrl: page })).toBe('https://hub.example/g.gguf');
    expect(resolveGgufUrl({ baseUrl: page })).toBe('https://site.example/help/models/gguf/gemma-3-270m-q4_k_m.gguf');
    expect(ggufModelName('https://x.example/a/gemma-3-270m-q4_k_m.gguf')).toBe('gemma-3-270m-q4_k_m');
  });
});

describe('the answer gate', () => {
  const fake = (mode: 'llm' | 'extractive'): AnswerEngine => ({ mode, generate: async () => ({ text: mode }) });
  const request = (question: string, lang: 'he' | 'en'): GenerateRequest => ({ question, reading: readStandalone(question), lang, passages: [], history: [] });

  it('sends a question to the model only where the gate lets it, and says which engine wrote', async () => {
    const gate: AnswerGate = { answers: { en: ['amount'] } };
    expect(modelAnswers(gate, readText('How much is the deductible?').type, 'en')).toBe(true);
    expect(modelAnswers(gate, readText('How do I file a claim?').type, 'en')).toBe(false);
    expect(modelAnswers(gate, readText('כמה ההשתתפות העצמית?').type, 'he')).toBe(false);
    const engine = new GatedEngine(fake('llm'), fake('extractive'), gate);
    expect((await engine.generate(request('How much is the deductible?', 'en'))).text).toBe('llm');
    expect(engine.mode).toBe('llm');
    expect((await engine.generate(request('כמה ההשתתפות העצמית?', 'he'))).text).toBe('extractive');
    expect(engine.mode).toBe('extractive');
  });

  it('lets an unmeasured model (a larger GGUF) answer everything, and gguf-answers="all" open any gate', () => {
    expect(gateFor('gemma-3-1b-it-q4_k_m', 'measured')).toBe(OPEN_GATE);
    expect(gateFor('gemma-3-270m-q4_k_m', 'all')).toBe(OPEN_GATE);
    // The 270M base model earned no question (README): quotation answers in both languages.
    expect(modelAnswers(gateFor('gemma-3-270m-q4_k_m', 'measured'), readText('How much is the deductible?').type, 'en')).toBe(false);
    expect(modelAnswers(gateFor('gemma-3-270m-q4_k_m', 'measured'), readText('כמה ההשתתפות העצמית?').type, 'he')).toBe(false);
  });
});
