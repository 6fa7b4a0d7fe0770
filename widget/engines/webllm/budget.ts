/**
 * Token arithmetic without the tokenizer: the prompt is built on the main thread before the model
 * (and its tokenizer) answers, so sizes are estimated, on the safe side. Gemma's 256k vocabulary
 * spends roughly a token per 3.5–4 Latin characters and per 2–2.5 Hebrew ones.
 */

const HEBREW = /[\u0590-\u05FF]/g;

export function estimateTokens(text: string): number {
  const hebrew = text.match(HEBREW)?.length ?? 0;
  return Math.ceil(hebrew / 2 + (text.length - hebrew) / 3.2);
}

/** Cuts `text` to about `maxTokens`, at a sentence end when one is near, else at a word. */
export function trimToTokens(text: string, maxTokens: number): string {
  if (estimateTokens(text) <= maxTokens) return text;
  let lo = 0;
  let hi = text.length;
  while (lo < hi) {
    const mid = Math.ceil((lo + hi) / 2);
    if (estimateTokens(text.slice(0, mid)) <= maxTokens - 1) lo = mid;
    else hi = mid - 1;
  }
  const cut = text.slice(0, lo);
  const sentenceEnd = Math.max(cut.lastIndexOf('. '), cut.lastIndexOf('.\n'), cut.lastIndexOf('? '), cut.lastIndexOf('! '));
  if (sentenceEnd > cut.length * 0.6) return `${cut.slice(0, sentenceEnd + 1)} …`;
  const space = cut.lastIndexOf(' ');
  return `${space > cut.length * 0.8 ? cut.slice(0, space) : cut} …`;
}
