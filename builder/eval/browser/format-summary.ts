/** The run's headline figures as the terminal prints them. */
import type { LevelMetrics } from '../metrics.ts';
import type { BrowserReport } from './report.ts';

const pct = (x: number) => `${(100 * x).toFixed(1)} %`;
const level = (m: LevelMetrics) => `hit@1 ${pct(m['hit@1'])}, hit@5 ${pct(m['hit@5'])}, hit@10 ${pct(m['hit@10'])}, MRR ${m.mrr.toFixed(3)}`;

export function formatSummary(report: BrowserReport): string {
  const m = report.metrics.overall;
  const { index, indexLoad, engine, k } = report.meta;
  const lines = [
    `index ${index.buildId}: ${index.chunkCount} chunks, search ${index.searchMode}, engine ${engine}, k ${k}; load cold ${indexLoad.cold} ms, warm ${indexLoad.warm} ms`,
    `questions ${m.questions} (answerable ${m.answerable}, unanswerable ${m.unanswerable}, errors ${m.errors}); pass ${pct(m.passRate)}`,
    `retrieval file: ${level(m.retrieval.file)}`,
    `retrieval page: ${level(m.retrieval.page)}`,
    `retrieval page, twins count: ${level(m.retrieval.pageLenient)}`,
    `citations: ${m.citations.count}, valid ${pct(m.citations.validity)}; cite a gold page ${pct(m.citations.hitRate)} of answered, ${pct(m.citations.hitRateAll)} of answerable (${pct(m.citations.hitRateAllLenient)} with twins)`,
    `reliability by tier (answerable answers citing a gold page, twins count; unanswerable in the tier): ${m.reliability
      .map((r) => `${r.tier} ${r.citingGoldLenient}/${r.answerable} (${pct(r.shareLenient)}), unanswerable ${r.unanswerable}`)
      .join('; ')}`,
    `refusals: ${pct(m.refusals.falseRefusalRate)} of answerable (false), ${pct(m.refusals.unanswerableRefusalRate)} of unanswerable; ${pct(m.refusals.offTopicRate)} of all with the off-topic reply`,
    `answer token F1: ${m.f1 === null ? '—' : m.f1.toFixed(3)}${m.judge === null ? '' : `; judge ${m.judge.toFixed(3)}`}`,
    `timings.total p50 ${m.latency.total.p50.toFixed(0)} ms, p95 ${m.latency.total.p95.toFixed(0)} ms`,
  ];
  return lines.join('\n');
}
