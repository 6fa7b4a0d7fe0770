/**
 * Short content hashes in pure JS: ids must be identical in the builder and, later, in the browser
 * (this file may move to widget/core), so no node:crypto.
 */

/** The murmur3 finaliser: spreads every input bit over the whole 32-bit result. */
export function fmix32(value: number): number {
  let h = value >>> 0;
  h ^= h >>> 16;
  h = Math.imul(h, 0x85ebca6b);
  h ^= h >>> 13;
  h = Math.imul(h, 0xc2b2ae35);
  h ^= h >>> 16;
  return h >>> 0;
}

/** FNV-1a over UTF-16 code units with the given offset basis, 32-bit, then fmix32. */
export function fnv1a(text: string, basis = 0x811c9dc5): number {
  let h = basis >>> 0;
  for (let i = 0; i < text.length; i++) {
    h ^= text.charCodeAt(i);
    h = Math.imul(h, 0x01000193);
  }
  // Plain FNV leaves the low bits weak for short inputs.
  return fmix32(h);
}

/**
 * 16 hex chars from two independent 32-bit passes (different bases, the second also salted with the
 * length): about 2^-64 collision odds per pair in practice, ample for a few hundred thousand chunks.
 */
export function contentHash(text: string): string {
  const a = fnv1a(text, 0x811c9dc5);
  const b = fnv1a(text, (0x9747b28c ^ text.length) >>> 0);
  return a.toString(16).padStart(8, '0') + b.toString(16).padStart(8, '0');
}

/**
 * Id of a section: the same file, heading path and top-level clause always give the same id, so
 * sibling chunks (and chunks of a rebuilt index) can be joined by it.
 */
export function sectionId(file: string, sectionPath: string[], clause: string | null): string {
  return contentHash(['section', file, sectionPath.join('\u001f'), clause ?? ''].join('\u0000'));
}
