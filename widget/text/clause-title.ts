/**
 * The title of the numbered clause a sentence sits in: "2.4 רעידת אדמה – נזק למבנה…
 * ההשתתפות העצמית היא 10%…" states the earthquake's deductible in a sentence that never names
 * the earthquake. Policies title a clause with a few words after its number (the builder keeps
 * each clause on its own line, bold dropped); the title is the condition the clause's later
 * sentences hold under. Pure text, no model.
 */

/**
 * A clause line: its number, a short title without sentence marks, then a dash ("2.4 רעידת אדמה –
 * נזק…") or a full stop ("2.1 Water damage. We cover…"), then the text.
 */
const CLAUSE_LINE = /^\s*\d{1,2}(?:\.\d{1,2}){0,4}\.?\s+([^\n–—:;.?!|"“”]{2,40}?)(?:\s+[–—-]|\.)\s+\S/u;
/** A title is a name of a few words, not the start of a sentence. */
const MAX_TITLE_WORDS = 7;

/** The title of the clause whose line holds `offset` in `text` ("רעידת אדמה"), or null. */
export function clauseTitleAt(text: string, offset: number): string | null {
  const start = text.lastIndexOf('\n', Math.max(0, offset - 1)) + 1;
  const end = text.indexOf('\n', start);
  const line = text.slice(start, end < 0 ? text.length : end);
  const title = CLAUSE_LINE.exec(line)?.[1]?.trim();
  if (!title || title.split(/\s+/u).length > MAX_TITLE_WORDS) return null;
  return title;
}
