/** The report's summary sections: headline figures, retrieval levels, groups, latency, comparison. */
import type { LevelMetrics } from '../../metrics.ts';
import type { Comparison } from '../compare.ts';
import type { BrowserReport } from '../report.ts';
import { STAGES, type Summary } from '../summarize.ts';
import { groupedBars, histogram } from './charts.ts';
import { esc, ms, pct } from './escape.ts';

export function headlineTable(m: Summary, k: number): string {
  const rows: [string, string, string][] = [
    ['Pass rate', pct(m.passRate), 'questions with no failure (right refusal, gold page cited, every citation valid)'],
    ['Page hit@5', pct(m.retrieval.page['hit@5']), `answerable questions with a gold page among the first 5 retrieved pages (of ${k})`],
    ['Page MRR', m.retrieval.page.mrr.toFixed(3), 'mean of 1 / rank of the first gold page (0 when absent)'],
    ['File hit@5', pct(m.retrieval.file['hit@5']), 'a gold document among the first 5 retrieved documents'],
    ['Citation validity', `${pct(m.citations.validity)} of ${m.citations.count}`, 'cited file and page exist in the index and the quote is on that page'],
    ['Citation hit rate', pct(m.citations.hitRate), 'answered (not refused) answerable questions citing a gold page'],
    ['False refusals', pct(m.refusals.falseRefusalRate), 'answerable questions the widget refused (lower is better)'],
    ['Unanswerable refused', m.unanswerable ? pct(m.refusals.unanswerableRefusalRate) : '—', 'questions without an answer in the documents that it refused (higher is better)'],
    [
      'Off-topic reply',
      pct(m.refusals.offTopicRate),
      'questions answered with "I only answer questions about the insurance documents" (all of an off-topic set; none of a set of insurance questions)',
    ],
    ['Answer token F1', m.f1 === null ? '—' : m.f1.toFixed(3), 'word overlap with the reference answer; crude for generated text'],
    ...(m.judge === null ? [] : [['Judge', m.judge.toFixed(3), 'mean score of the --judge command'] as [string, string, string]]),
    ['Latency p50 / p95', `${ms(m.latency.total.p50)} / ${ms(m.latency.total.p95)}`, 'timings.total per question, in the browser'],
    ['Errors', String(m.errors), 'questions whose ask() threw'],
  ];
  return `<table class="headline"><tbody>${rows.map(([name, value, what]) => `<tr><th>${esc(name)}</th><td class="num big">${esc(value)}</td><td class="muted">${esc(what)}</td></tr>`).join('')}</tbody></table>`;
}

const levelCells = (l: LevelMetrics) =>
  `<td class="num">${pct(l['hit@1'])}</td><td class="num">${pct(l['hit@5'])}</td><td class="num">${pct(l['hit@10'])}</td><td class="num">${l.mrr.toFixed(3)}</td>`;

export function retrievalTable(m: Summary): string {
  const r = m.retrieval;
  return `<table><thead><tr><th>level (${m.answerable} answerable)</th><th>hit@1</th><th>hit@5</th><th>hit@10</th><th>MRR</th></tr></thead><tbody>
<tr><th>file</th>${levelCells(r.file)}</tr><tr><th>page</th>${levelCells(r.page)}</tr>
<tr><th>file, twins count</th>${levelCells(r.fileLenient)}</tr><tr><th>page, twins count</th>${levelCells(r.pageLenient)}</tr></tbody></table>`;
}

/** What each confidence tier promised, measured: answers per tier and the share citing a gold page. */
export function reliabilitySection(m: Summary): string {
  const rows = m.reliability
    .map(
      (r) =>
        `<tr><th>${esc(r.tier)}</th><td class="num">${r.answerable}</td><td class="num">${r.citingGold} (${pct(r.share)})</td><td class="num">${r.citingGoldLenient} (${pct(r.shareLenient)})</td><td class="num">${r.unanswerable}</td></tr>`,
    )
    .join('');
  return `<table><thead><tr><th>confidence</th><th>answerable questions</th><th>citing a gold page</th><th>twins count</th><th>unanswerable questions</th></tr></thead><tbody>${rows}</tbody></table>`;
}

export function groupSection(title: string, groups: Record<string, Summary>): string {
  const names = Object.keys(groups);
  const chart = groupedBars(
    names,
    [
      { name: 'page hit@5', values: names.map((n) => groups[n].retrieval.page['hit@5']) },
      { name: 'citation hit', values: names.map((n) => groups[n].citations.hitRateAll) },
      { name: 'pass', values: names.map((n) => groups[n].passRate) },
    ],
    null,
  );
  const rows = names
    .map((n) => {
      const g = groups[n];
      return `<tr><th dir="auto">${esc(n)}</th><td class="num">${g.questions}</td><td class="num">${pct(g.retrieval.page['hit@5'])}</td><td class="num">${g.retrieval.page.mrr.toFixed(3)}</td><td class="num">${pct(g.retrieval.file['hit@5'])}</td><td class="num">${pct(g.citations.hitRateAll)}</td><td class="num">${pct(g.citations.validity)}</td><td class="num">${pct(g.refusals.falseRefusalRate)}</td><td class="num">${g.f1 === null ? '—' : g.f1.toFixed(2)}</td><td class="num">${pct(g.passRate)}</td></tr>`;
    })
    .join('');
  return `<section class="group"><h3>${esc(title)}</h3>${chart}<table><thead><tr><th></th><th>questions</th><th>page hit@5</th><th>page MRR</th><th>file hit@5</th><th>cites gold</th><th>citations valid</th><th>false refusals</th><th>F1</th><th>pass</th></tr></thead><tbody>${rows}</tbody></table></section>`;
}

export function latencySection(report: BrowserReport): string {
  const m = report.metrics.overall;
  const totals = report.records.filter((r) => r.timings).map((r) => r.timings!.total);
  const stages = STAGES.map((s) => `<tr><th>${s}</th><td class="num">${ms(m.latency[s].p50)}</td><td class="num">${ms(m.latency[s].p95)}</td></tr>`).join('');
  const load = report.meta.indexLoad;
  return `<h2>Speed</h2><div class="row">${histogram(totals, 'timings.total per question')}
<table><thead><tr><th>stage</th><th>p50</th><th>p95</th></tr></thead><tbody>${stages}
<tr><th>index load, cold</th><td class="num" colspan="2">${ms(load.cold)}</td></tr><tr><th>index load, warm</th><td class="num" colspan="2">${ms(load.warm)}</td></tr></tbody></table></div>`;
}

export function comparisonSection(c: Comparison | undefined): string {
  if (!c) return '';
  const fmt = (name: string, x: number) => (name.includes('ms') ? x.toFixed(0) : (100 * x).toFixed(1));
  const rows = c.metrics
    .map((d) => {
      const better = d.name.includes('ms') || d.name === 'false refusals' ? d.delta < 0 : d.delta > 0;
      const cls = d.delta === 0 ? '' : better ? 'ok' : 'bad';
      return `<tr><th>${esc(d.name)}</th><td class="num">${fmt(d.name, d.old)}</td><td class="num">${fmt(d.name, d.new)}</td><td class="num ${cls}">${d.delta > 0 ? '+' : ''}${fmt(d.name, d.delta)}</td></tr>`;
    })
    .join('');
  const list = (title: string, xs: Comparison['newlyFailing'], cls: string) =>
    `<h3 class="${cls}">${esc(title)}: ${xs.length}</h3><ul>${xs.map((x) => `<li><b dir="ltr">${esc(x.id)}</b> <span dir="auto">${esc(x.question)}</span> <span class="muted">${esc(x.old.join(', ') || 'pass')} → ${esc(x.new.join(', ') || 'pass')}; page rank ${x.oldPageRank ?? '–'} → ${x.newPageRank ?? '–'}</span></li>`).join('')}</ul>`;
  return `<h2>Compared with the previous run <span class="muted">(figures over the questions both runs asked; shares in %)</span></h2><table><thead><tr><th>figure</th><th>old</th><th>new</th><th>Δ</th></tr></thead><tbody>${rows}</tbody></table>
${list('Newly failing', c.newlyFailing, 'bad')}${list('Newly passing', c.newlyPassing, 'ok')}<p class="muted">Page rank moved with the same verdict: ${c.rankChanged.length}. Only in the old run: ${c.onlyOld.length}; only in the new: ${c.onlyNew.length}.</p>`;
}
