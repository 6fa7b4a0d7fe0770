/**
 * Where the GGUF model is. `npx harel-builder models fetch` writes it to models/gguf/, so a site
 * that serves models/ as its `model-base` needs no other setting; `gguf-model` names another file,
 * relative to the model-base (a larger Gemma dropped beside it) or as a full URL (any host).
 */

/** The file `models fetch --only gemma` writes, relative to models/. */
export const DEFAULT_GGUF_PATH = 'gguf/gemma-3-270m-q4_k_m.gguf';

export function resolveGgufUrl(options: { ggufModel?: string | null; modelBase?: string | null; baseUrl?: string }): string {
  const page = options.baseUrl ?? (typeof location === 'undefined' ? 'http://localhost/' : location.href);
  const base = new URL(options.modelBase ? withSlash(options.modelBase) : 'models/', page).href;
  return new URL(options.ggufModel || DEFAULT_GGUF_PATH, base).href;
}

/** The model's name for the badge and details: the file name without `.gguf`. */
export function ggufModelName(url: string): string {
  const file = new URL(url).pathname.split('/').pop() ?? url;
  return decodeURIComponent(file).replace(/\.gguf$/i, '');
}

function withSlash(base: string): string {
  return base.endsWith('/') ? base : `${base}/`;
}
