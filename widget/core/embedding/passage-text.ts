/**
 * The text a passage is embedded with: where it sits, then what it says. The builder embeds the
 * site's chunks with it and the widget a customer's own document's, so the two sets of vectors
 * are comparable.
 */
import type { Chunk, IndexedDocument } from '../schema.ts';

export function passageText(chunk: Pick<Chunk, 'sectionPath' | 'text'>, doc: Pick<IndexedDocument, 'title'>): string {
  const context = [doc.title, ...chunk.sectionPath].join(' › ');
  return `${context}\n${chunk.text}`;
}
