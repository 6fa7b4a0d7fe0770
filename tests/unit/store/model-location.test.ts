import { describe, expect, it } from 'vitest';
import { resolveModelLocation, resolveWasmPaths } from '../../../widget/embed/model-location.ts';

const PAGE = 'https://shop.example/help/page.html';

describe('resolveModelLocation', () => {
  it('uses the hub when no model-base is given', () => {
    expect(resolveModelLocation(null, PAGE)).toEqual({ kind: 'hub' });
    expect(resolveModelLocation('', PAGE)).toEqual({ kind: 'hub' });
  });

  it('turns a same-origin model-base, relative or absolute, into a local path', () => {
    // transformers.js skips the tokenizer when its local path is a full URL (measured): a path it must be.
    expect(resolveModelLocation('/models', PAGE)).toEqual({ kind: 'same-origin', localModelPath: '/models/' });
    expect(resolveModelLocation('https://shop.example/models/', PAGE)).toEqual({ kind: 'same-origin', localModelPath: '/models/' });
    expect(resolveModelLocation('models/', PAGE)).toEqual({ kind: 'same-origin', localModelPath: '/help/models/' });
  });

  it('serves another origin through the remote host with a flat template', () => {
    expect(resolveModelLocation('https://cdn.example/m', PAGE)).toEqual({ kind: 'cross-origin', remoteHost: 'https://cdn.example/m/', remotePathTemplate: '{model}/' });
  });
});

describe('resolveWasmPaths', () => {
  it('points at the asyncify runtime the WebGPU bundle loads, under the app folder', () => {
    expect(resolveWasmPaths('/ort', PAGE)).toEqual({
      mjs: 'https://shop.example/ort/ort-wasm-simd-threaded.asyncify.mjs',
      wasm: 'https://shop.example/ort/ort-wasm-simd-threaded.asyncify.wasm',
    });
  });
});
