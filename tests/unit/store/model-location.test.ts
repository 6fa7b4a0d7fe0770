import { describe, expect, it } from 'vitest';
import { resolveModelLocation, resolveWasmPaths } from '../../../widget/embed/model-location.ts';

const PAGE = 'https://shop.example/help/page.html';

describe('resolveModelLocation', () => {
  it('uses the hub when no model-base is given', () => {
    expect(resolveModelLocation(null, PAGE)).toEqual({ kind: 'hub' });
    expect(resolveModelLocation('', PAGE)).toEqual({ kind: 'hub' });
  });

  it('gives transformers.js every model-base, same origin or not, as an absolute remote host with a flat template', () => {
    // Never a local path: in a worker started from a blob: URL (widget on another origin) a bare
    // '/models/' resolves against nothing and the embedder silently failed (issue 15, item 4).
    expect(resolveModelLocation('/models', PAGE)).toEqual({ kind: 'folder', remoteHost: 'https://shop.example/models/', remotePathTemplate: '{model}/' });
    expect(resolveModelLocation('models/', PAGE)).toEqual({ kind: 'folder', remoteHost: 'https://shop.example/help/models/', remotePathTemplate: '{model}/' });
    expect(resolveModelLocation('https://cdn.example/m', PAGE)).toEqual({ kind: 'folder', remoteHost: 'https://cdn.example/m/', remotePathTemplate: '{model}/' });
  });

  it('in the worker (no page URL given) takes only absolute URLs, and says so for a relative one', () => {
    expect(resolveModelLocation('https://shop.example/models/')).toEqual({ kind: 'folder', remoteHost: 'https://shop.example/models/', remotePathTemplate: '{model}/' });
    expect(() => resolveModelLocation('/models/')).toThrow(/model-base must be an absolute URL.*\/models\//);
  });
});

describe('resolveWasmPaths', () => {
  it('points at the asyncify runtime the WebGPU bundle loads, under the app folder', () => {
    expect(resolveWasmPaths('/ort', PAGE)).toEqual({
      mjs: 'https://shop.example/ort/ort-wasm-simd-threaded.asyncify.mjs',
      wasm: 'https://shop.example/ort/ort-wasm-simd-threaded.asyncify.wasm',
    });
    expect(resolveWasmPaths('https://cdn.example/w/ort/').wasm).toBe('https://cdn.example/w/ort/ort-wasm-simd-threaded.asyncify.wasm');
    expect(() => resolveWasmPaths('/ort/')).toThrow(/absolute URL/);
  });
});
