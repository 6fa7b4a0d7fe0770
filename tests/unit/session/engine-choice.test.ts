/** The device-aware engine rule (widget/session/engine-choice.ts), one test per branch. */
import { describe, expect, it } from 'vitest';
import type { GpuReport, VariantChoice } from '../../../widget/engines/webllm/gpu-check.ts';
import { chooseEngine, type DeviceFacts } from '../../../widget/session/engine-choice.ts';

const gpu = (verdict: GpuReport['verdict']): GpuReport => ({ verdict, reason: `${verdict} adapter`, adapter: null, features: [], shaderF16: verdict === 'ok', limits: null });
const variantOk: VariantChoice = { ok: true, modelId: 'gemma-2-2b-it-q4f16_1-MLC', requested: 'gemma-2-2b-it-q4f16_1-MLC', switched: false, reason: 'fits', warning: null };
const variantNo: VariantChoice = { ok: false, requested: 'x', code: 'SHADER_F16_MISSING', reason: 'no shader-f16 and no q4f32 twin' };

const device = (facts: Partial<DeviceFacts>): DeviceFacts => ({
  gpu: gpu('ok'),
  webllmVariant: variantOk,
  deviceMemoryGB: 8,
  hasWebAssembly: true,
  ggufAvailable: true,
  ...facts,
});

describe('chooseEngine (auto)', () => {
  it('web-llm on a real GPU with its model and enough memory', () => {
    expect(chooseEngine('auto', device({})).engine).toBe('webllm');
    expect(chooseEngine('auto', device({ deviceMemoryGB: null })).engine).toBe('webllm');
  });

  it('the GGUF engine without WebGPU, on a software adapter, without a web-llm build, or short of memory', () => {
    expect(chooseEngine('auto', device({ gpu: gpu('unsupported') })).engine).toBe('gguf');
    expect(chooseEngine('auto', device({ gpu: gpu('software') })).engine).toBe('gguf');
    expect(chooseEngine('auto', device({ webllmVariant: variantNo })).engine).toBe('gguf');
    const lowMemory = chooseEngine('auto', device({ deviceMemoryGB: 2 }));
    expect(lowMemory).toMatchObject({ engine: 'gguf' });
    expect(lowMemory.reason).toMatch(/2 GB/);
  });

  it('no GGUF engine for a model measured to answer nothing better than quotation (its download would buy no answer)', () => {
    const closed = chooseEngine('auto', device({ gpu: gpu('unsupported'), ggufAnswers: false, ggufModelId: 'gemma-3-270m-q4_k_m' }));
    expect(closed.engine).toBe('extractive');
    expect(closed.reason).toMatch(/gemma-3-270m-q4_k_m was measured/);
    expect(chooseEngine('auto', device({ gpu: gpu('unsupported'), ggufAnswers: true })).engine).toBe('gguf');
    // Asked for by name, it is still loaded: the site owner chose it.
    expect(chooseEngine('gguf', device({ ggufAnswers: false })).engine).toBe('gguf');
  });

  it('the extractive floor when neither can run', () => {
    const floor = chooseEngine('auto', device({ gpu: gpu('unsupported'), ggufAvailable: false }));
    expect(floor.engine).toBe('extractive');
    expect(floor.reason).toMatch(/models fetch/);
    expect(chooseEngine('auto', device({ gpu: gpu('software'), hasWebAssembly: false })).engine).toBe('extractive');
  });
});

describe('chooseEngine (asked for by name)', () => {
  it('llm-engine="gguf" takes the GGUF engine even where web-llm would run, else the floor', () => {
    expect(chooseEngine('gguf', device({})).engine).toBe('gguf');
    expect(chooseEngine('gguf', device({ ggufAvailable: false })).engine).toBe('extractive');
  });

  it('llm-engine="webllm" never falls to GGUF; mode="llm" accepts a software adapter', () => {
    expect(chooseEngine('webllm', device({ gpu: gpu('software') })).engine).toBe('extractive');
    expect(chooseEngine('webllm', device({ gpu: gpu('software'), allowSoftwareGpu: true })).engine).toBe('webllm');
  });
});
