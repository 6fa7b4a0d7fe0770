/** report.html: one self-contained file (inline CSS and SVG, no script, no font) that opens offline. */
import type { BrowserReport } from '../report.ts';
import { esc } from './escape.ts';
import { questionTable } from './question-table.ts';
import { comparisonSection, groupSection, headlineTable, latencySection, reliabilitySection, retrievalTable } from './sections.ts';
import { STYLE } from './style.ts';

export function renderHtml(report: BrowserReport): string {
  const { meta, metrics } = report;
  const m = metrics.overall;
  return `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
<title>harel-chat browser eval · ${esc(meta.questionFiles.join(', '))}</title><style>${STYLE}</style></head>
<body><main>
<h1>harel-chat browser eval</h1>
<p class="meta">${esc(meta.questionFiles.join(', '))} · ${m.questions} questions (${m.answerable} answerable, ${m.unanswerable} unanswerable) · engine <b>${esc(meta.engine)}</b> · search ${esc(meta.index.searchMode)} · index ${esc(meta.index.buildId)} (${meta.index.documentCount} documents, ${meta.index.chunkCount} chunks) · k ${meta.k} · ${esc(meta.createdAt)}</p>
${comparisonSection(report.comparison)}
<h2>Headline</h2>${headlineTable(m, meta.k)}
<h2>Retrieval <span class="muted">(the widget's ranked passages, as pages)</span></h2>${retrievalTable(m)}
<h2>Reliability by confidence <span class="muted">(what each tier promised: answers citing a page that answers)</span></h2>${reliabilitySection(m)}
<h2>By group</h2><div class="row">${groupSection('By domain', metrics.byDomain)}${groupSection('By difficulty', metrics.byDifficulty)}${groupSection('By language of the question', metrics.byLang)}</div>
${latencySection(report)}
${questionTable(report.records)}
</main></body></html>
`;
}
