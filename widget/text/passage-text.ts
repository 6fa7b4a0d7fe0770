/** The text a passage is matched on, shared by grading, the evidence and grounding. */

/** What of a passage its words are read from (a search result, a graded passage, a customer's page). */
export interface MatchablePassage {
  title: string;
  sectionPath: readonly string[];
  text: string;
  /** The passage widened to its neighbours; empty where the search gave none. */
  context?: string;
}

/** What BM25 saw (body, title, section path) widened to its context. */
export function passageMatchText(p: MatchablePassage): string {
  return [p.title, ...p.sectionPath, p.context || p.text].join('\n');
}
