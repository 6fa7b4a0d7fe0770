/**
 * Bidi controls that make text display in an order other than the one it is stored in, so that
 * what a customer reads is not what the document says ("invoice\u202Efdp.exe" shows as
 * "invoiceexe.pdf"). Removed from document text when the builder parses it (builder/ingest/
 * parse-file.ts) and again when the widget renders any text that came from a document or a model
 * (an index can be hand-edited or hostile); the widget also isolates such text (`<bdi>`,
 * `dir="auto"`), so whatever direction it has cannot reorder the text around it.
 *
 * Removed:
 * - U+202A–U+202E: left-to-right / right-to-left embedding, pop, and the two overrides (the
 *   override is the classic spoof; an unclosed embedding carries over into the text after it);
 * - U+2066–U+2069: the isolates (an unclosed isolate swallows what follows it, and the widget's
 *   own answers use FSI…PDI to mark quoted document text, widget/answer/document-text.ts, which a
 *   document must not be able to forge);
 * - U+206A–U+206F: deprecated format characters (symmetric swapping turned off shows `[1]` as
 *   `]1[`; digit shapes and Arabic form shaping switched).
 *
 * Kept: U+200E LEFT-TO-RIGHT MARK, U+200F RIGHT-TO-LEFT MARK and U+061C ARABIC LETTER MARK. They
 * are zero-width letters with a direction and no scope: they can move a neighbouring neutral
 * (punctuation, a space) to the other side of a word, never reverse a run of letters or digits,
 * and Hebrew word processors put them in ordinary documents to keep a full stop or a parenthesis
 * where the writer meant it. Inside an isolated quote their reach ends at the quote's edge.
 * (The search tokenizer removes them, with the controls above, before it makes terms:
 * core/tokenizer/normalize.ts, so neither choice changes what a search finds.)
 */

/** The characters removed. */
export const BIDI_CONTROLS = /[\u202A-\u202E\u2066-\u2069\u206A-\u206F]/g;

/** `text` without bidi embeddings, overrides, isolates and deprecated format characters. */
export function stripBidiControls(text: string): string {
  return text.replace(BIDI_CONTROLS, '');
}

/** True when `text` holds one of them. */
export function hasBidiControls(text: string): boolean {
  return /[\u202A-\u202E\u2066-\u2069\u206A-\u206F]/.test(text);
}

/** Pages with bidi controls removed from every block's text (the same objects when there are none): what the builder indexes and the device keeps. */
export function pagesWithoutBidiControls<P extends { blocks: { text: string }[] }>(pages: P[]): P[] {
  if (!pages.some((p) => p.blocks.some((b) => hasBidiControls(b.text)))) return pages;
  return pages.map((p) => ({ ...p, blocks: p.blocks.map((b) => (hasBidiControls(b.text) ? { ...b, text: stripBidiControls(b.text) } : b)) }));
}
