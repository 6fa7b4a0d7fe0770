/** report.json: what was run, the figures (overall and per group), and every question's verdict. */
import type { IndexInfo } from '../../../widget/search/search-service.ts';
import type { Comparison } from './compare.ts';
import type { ScoredQuestion } from './score-question.ts';
import { summarize, summarizeBy, type Summary } from './summarize.ts';

export interface BrowserReport {
  meta: {
    createdAt: string;
    engine: 'extractive' | 'llm';
    k: number;
    questionFiles: string[];
    index: IndexInfo;
    /** Milliseconds from page load to index ready: first visit (download), second (IndexedDB). */
    indexLoad: { cold: number; warm: number };
    judge: string | null;
  };
  metrics: { overall: Summary; byDomain: Record<string, Summary>; byDifficulty: Record<string, Summary>; byLang: Record<string, Summary> };
  records: ScoredQuestion[];
  comparison?: Comparison;
}

export function buildReport(meta: BrowserReport['meta'], records: ScoredQuestion[]): BrowserReport {
  return {
    meta,
    metrics: {
      overall: summarize(records),
      byDomain: summarizeBy(records, (r) => r.domain),
      byDifficulty: summarizeBy(records, (r) => r.difficulty),
      byLang: summarizeBy(records, (r) => r.lang),
    },
    records,
  };
}
