/**
 * The difference between two runs, question by question, so that a regression has a name: which
 * questions fail now that passed before (and the reverse), and how each headline figure moved.
 */
import type { ScoredQuestion } from './score-question.ts';
import { summarize, type Summary } from './summarize.ts';

export interface MetricDelta {
  name: string;
  old: number;
  new: number;
  delta: number;
}

export interface QuestionChange {
  id: string;
  question: string;
  /** Failures before and now. */
  old: string[];
  new: string[];
  /** Page rank before and now (retrieval moved even when the verdict did not). */
  oldPageRank: number | null;
  newPageRank: number | null;
}

export interface Comparison {
  metrics: MetricDelta[];
  newlyFailing: QuestionChange[];
  newlyPassing: QuestionChange[];
  /** Same verdict, different page rank. */
  rankChanged: QuestionChange[];
  onlyOld: string[];
  onlyNew: string[];
  /** Questions both runs asked, compared field by field with their timings masked. */
  recordsCompared: number;
  /** Those whose record differs in anything but its timings: which fields. */
  recordsDiffer: { id: string; fields: string[] }[];
}

/** What varies from run to run whatever the widget answers: masked when records are compared. */
const RUN_DEPENDENT_FIELDS: ReadonlySet<string> = new Set(['timings']);

/** The fields of two records of one question that differ, timings masked. */
export function recordDifferences(old: ScoredQuestion, now: ScoredQuestion): string[] {
  const fields = new Set([...Object.keys(old), ...Object.keys(now)]);
  const a = old as unknown as Record<string, unknown>;
  const b = now as unknown as Record<string, unknown>;
  return [...fields].filter((f) => !RUN_DEPENDENT_FIELDS.has(f) && JSON.stringify(a[f]) !== JSON.stringify(b[f])).sort();
}

/** Headline figures by name: the ones the report's first table shows. */
export function headline(s: Summary): Record<string, number> {
  const out: Record<string, number> = {
    'pass rate': s.passRate,
    'file hit@1': s.retrieval.file['hit@1'],
    'file hit@5': s.retrieval.file['hit@5'],
    'file MRR': s.retrieval.file.mrr,
    'page hit@1': s.retrieval.page['hit@1'],
    'page hit@5': s.retrieval.page['hit@5'],
    'page hit@10': s.retrieval.page['hit@10'],
    'page MRR': s.retrieval.page.mrr,
    'citation validity': s.citations.validity,
    'citation hit rate': s.citations.hitRate,
    'false refusals': s.refusals.falseRefusalRate,
    'unanswerable refused': s.refusals.unanswerableRefusalRate,
    'latency p50 ms': s.latency.total.p50,
    'latency p95 ms': s.latency.total.p95,
  };
  if (s.f1 !== null) out['answer F1'] = s.f1;
  if (s.judge !== null) out.judge = s.judge;
  return out;
}

const change = (o: ScoredQuestion, n: ScoredQuestion): QuestionChange => ({
  id: n.id,
  question: n.question,
  old: o.failures,
  new: n.failures,
  oldPageRank: o.pageRank,
  newPageRank: n.pageRank,
});

export function compareReports(old: { records: ScoredQuestion[] }, now: { records: ScoredQuestion[] }): Comparison {
  // Figures over the questions both runs asked: a run over a different set (--limit) must not read as a regression.
  const shared = new Set(old.records.map((r) => r.id).filter((id) => now.records.some((r) => r.id === id)));
  const before = headline(summarize(old.records.filter((r) => shared.has(r.id))));
  const after = headline(summarize(now.records.filter((r) => shared.has(r.id))));
  const metrics = Object.keys(after)
    .filter((name) => name in before)
    .map((name) => ({ name, old: before[name], new: after[name], delta: after[name] - before[name] }));
  const oldById = new Map(old.records.map((r) => [r.id, r]));
  const newIds = new Set(now.records.map((r) => r.id));
  const result: Comparison = { metrics, newlyFailing: [], newlyPassing: [], rankChanged: [], onlyOld: [], onlyNew: [], recordsCompared: 0, recordsDiffer: [] };
  for (const n of now.records) {
    const o = oldById.get(n.id);
    if (o) {
      result.recordsCompared++;
      const fields = recordDifferences(o, n);
      if (fields.length) result.recordsDiffer.push({ id: n.id, fields });
    }
    if (!o) result.onlyNew.push(n.id);
    else if (o.failures.length === 0 && n.failures.length > 0) result.newlyFailing.push(change(o, n));
    else if (o.failures.length > 0 && n.failures.length === 0) result.newlyPassing.push(change(o, n));
    else if (o.pageRank !== n.pageRank) result.rankChanged.push(change(o, n));
  }
  result.onlyOld = old.records.filter((r) => !newIds.has(r.id)).map((r) => r.id);
  return result;
}

export function formatComparison(c: Comparison): string {
  const pct = (name: string, x: number) => (name.includes('ms') ? x.toFixed(0) : (100 * x).toFixed(1));
  const lines = ['metric deltas over the questions both runs asked (old → new):'];
  for (const m of c.metrics) {
    const sign = m.delta > 0 ? '+' : '';
    lines.push(`  ${m.name.padEnd(22)} ${pct(m.name, m.old)} → ${pct(m.name, m.new)} (${sign}${pct(m.name, m.delta)})`);
  }
  const list = (title: string, xs: QuestionChange[]) => {
    lines.push(`${title}: ${xs.length}`);
    for (const x of xs) lines.push(`  ${x.id} [${x.old.join(',') || 'pass'} → ${x.new.join(',') || 'pass'}] ${x.question}`);
  };
  list('newly failing', c.newlyFailing);
  list('newly passing', c.newlyPassing);
  lines.push(`page rank changed, same verdict: ${c.rankChanged.length}`);
  if (c.onlyOld.length || c.onlyNew.length) lines.push(`only in old: ${c.onlyOld.length}, only in new: ${c.onlyNew.length}`);
  lines.push(`records, timings masked: ${c.recordsCompared} compared, ${c.recordsDiffer.length} differ`);
  for (const d of c.recordsDiffer.slice(0, 20)) lines.push(`  ${d.id}: ${d.fields.join(', ')}`);
  if (c.recordsDiffer.length > 20) lines.push(`  … and ${c.recordsDiffer.length - 20} more (report.json: comparison.recordsDiffer)`);
  return lines.join('\n');
}
