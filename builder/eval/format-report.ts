/** Plain-text tables of an eval report, for the terminal and for notes. */
import type { GroupMetrics, LevelMetrics } from './metrics.ts';
import type { EvalReport } from './run-eval.ts';

const pct = (x: number) => `${(x * 100).toFixed(1)}%`.padStart(6);
const num = (x: number) => x.toFixed(3).padStart(6);

function row(label: string, n: number, file: LevelMetrics, page: LevelMetrics): string {
  return `${label.padEnd(26)} ${String(n).padStart(4)}  ${pct(file['hit@1'])} ${pct(file['hit@5'])} ${pct(file['hit@10'])} ${num(file.mrr)}  ${pct(page['hit@1'])} ${pct(page['hit@5'])} ${pct(page['hit@10'])} ${num(page.mrr)}`;
}

export const TABLE_HEADER = `${''.padEnd(26)} ${'n'.padStart(4)}  ${'file: h@1'.padStart(6)}   h@5   h@10    mrr   page: h@1  h@5   h@10    mrr`;

export function formatLevelRow(label: string, n: number, file: LevelMetrics, page: LevelMetrics): string {
  return row(label, n, file, page);
}

function groupRows(title: string, groups: Record<string, GroupMetrics>): string[] {
  return [`${title}:`, ...Object.entries(groups).map(([k, g]) => row(`  ${k}`, g.questions, g.file, g.page))];
}

export function formatReport(report: EvalReport, label = 'all'): string {
  const lines = [
    `${report.questions} questions (${report.answerable} answerable, ${report.unanswerable} unanswerable counted apart); mode ${report.mode}, k ${report.k}`,
    TABLE_HEADER,
    row(label, report.answerable, report.file, report.page),
    row(`${label}, twins count`, report.answerable, report.fileLenient, report.pageLenient),
    `page recall@${report.k}: ${pct(report.pageRecall.strict)} (twins count ${pct(report.pageRecall.lenient)})`,
    `with cross-references: page hit@5 ${pct(report.pageWithReferences['hit@5'])} (twins count ${pct(report.pageWithReferences['hit@5Lenient'])}); ${report.pageWithReferences.rescued} found only through a reference (${report.pageWithReferences.rescuedLenient} with twins); ${pct(report.pageWithReferences.withReferences)} of questions had references`,
    ...groupRows('by domain', report.byDomain),
    ...groupRows('by difficulty', report.byDifficulty),
    `routing: accuracy ${pct(report.routing.accuracy)} over ${report.routing.evaluated}; confident on ${pct(report.routing.coverage)}, right when confident ${pct(report.routing.confidentAccuracy)}`,
    `search latency: p50 ${report.latencyMs.p50.toFixed(1)} ms, p95 ${report.latencyMs.p95.toFixed(1)} ms`,
  ];
  return lines.join('\n');
}
