/** Every question as a table row, failures first: what was asked, answered and cited, and what missed. */
import type { ScoredQuestion } from '../score-question.ts';
import { esc } from './escape.ts';

const rank = (r: number | null) => (r === null ? '<span class="bad">–</span>' : r <= 5 ? `<span class="ok">${r}</span>` : `${r}`);

function citationCell(q: ScoredQuestion): string {
  if (q.citations.length === 0) return '<span class="muted">none</span>';
  return q.citations
    .map((c) => {
      const mark = c.problem ? `<span class="bad" title="${esc(c.problem)}">⚠ ${esc(c.problem)}</span>` : c.gold ? '<span class="ok">✓ gold</span>' : '';
      return `<div class="cite"><b>[${c.n}]</b> <span dir="ltr">${esc(c.file)} p.${c.page}</span> ${mark}<details><summary>quote</summary><div dir="auto">${esc(c.quote)}</div></details></div>`;
    })
    .join('');
}

function answerCell(q: ScoredQuestion): string {
  if (q.error) return `<span class="bad">error ${esc(q.error)}</span>`;
  const text = q.text ?? '';
  const head = text.length > 280 ? `${esc(text.slice(0, 280))}…<details><summary>full answer</summary><div dir="auto" class="pre">${esc(text)}</div></details>` : esc(text);
  const ref = q.reference ? `<div class="ref" dir="auto"><b>expected:</b> ${esc(q.reference)}</div>` : '';
  return `<div dir="auto" class="pre">${head}</div>${ref}`;
}

export function questionRow(q: ScoredQuestion): string {
  const verdict = q.failures.length ? q.failures.map((f) => `<span class="tag bad">${esc(f)}</span>`).join(' ') : '<span class="tag ok">pass</span>';
  const kind = q.answerable ? '' : '<span class="tag">unanswerable</span>';
  return `<tr class="${q.failures.length ? 'fail' : 'pass'}">
<td>${verdict}</td>
<td><div class="id" dir="ltr">${esc(q.id)}</div><div class="muted">${esc(q.domain ?? '')} · ${esc(q.difficulty ?? '')} · ${q.lang}</div>${kind}</td>
<td dir="auto">${esc(q.question)}</td>
<td dir="auto">${answerCell(q)}</td>
<td>${citationCell(q)}</td>
<td class="num">${q.answerable ? rank(q.fileRank) : ''}</td>
<td class="num">${q.answerable ? rank(q.pageRank) : ''}</td>
<td class="num">${q.f1 === null ? '' : q.f1.toFixed(2)}${q.judge === null ? '' : `<div class="muted">judge ${q.judge.toFixed(2)}</div>`}</td>
<td class="num">${q.timings ? q.timings.total.toFixed(0) : ''}</td>
</tr>`;
}

const SEVERITY = ['error', 'missed-refusal', 'false-refusal', 'invalid-citation', 'no-gold-citation'];

/** Failing questions first, the gravest failures at the top; passing ones by id. */
export function sortForReading(records: readonly ScoredQuestion[]): ScoredQuestion[] {
  const severity = (q: ScoredQuestion) => (q.failures.length ? Math.min(...q.failures.map((f) => SEVERITY.indexOf(f))) : SEVERITY.length);
  return [...records].sort((a, b) => severity(a) - severity(b) || a.id.localeCompare(b.id));
}

export function questionTable(records: readonly ScoredQuestion[]): string {
  const failing = records.filter((r) => r.failures.length).length;
  return `<h2 id="questions">Every question <span class="muted">(${failing} failing of ${records.length}, failures first)</span></h2>
<table class="questions"><thead><tr><th>verdict</th><th>id</th><th>question</th><th>answer</th><th>citations</th><th title="rank of the first gold file among retrieved files">file rank</th><th title="rank of the first gold page among retrieved pages">page rank</th><th title="token F1 against the reference answer">F1</th><th>ms</th></tr></thead>
<tbody>${sortForReading(records).map(questionRow).join('\n')}</tbody></table>`;
}
