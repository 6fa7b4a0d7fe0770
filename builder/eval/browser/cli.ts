/**
 * `npm run eval:browser -- --index <dir> --questions <file> [--engine extractive|llm] [--limit n]
 * [--k 10] [--out <dir>] [--compare <old report.json>] [--judge <cmd>]`: the widget's answers on
 * real questions, measured in Chromium. Writes report.json and report.html.
 */
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { basename, join, resolve } from 'node:path';
import { parseScriptArgs, usageError } from '../../../tools/script-args.ts';
import { positiveInt } from '../../cli/args.ts';
import { loadQuestions } from '../questions.ts';
import { aliasMap, twinLookup } from '../run-eval.ts';
import { readIndexFolder } from '../../read-index-folder.ts';
import { pageTexts } from './citation-validity.ts';
import { compareReports, formatComparison } from './compare.ts';
import { formatSummary } from './format-summary.ts';
import { runJudge } from './judge.ts';
import { buildReport, type BrowserReport } from './report.ts';
import { renderHtml } from './html/render-html.ts';
import { runBrowserEval } from './run-browser-eval.ts';
import { scoreQuestion } from './score-question.ts';

const USAGE = `usage: npm run eval:browser -- --index <dir> --questions <file> [options]
  Asks every question through the widget in Chromium (el.ask(), a fresh conversation each) and
  writes report.json and report.html (docs/evaluation.md says what each figure means).
  --index <dir>            the index folder to serve with the demo page
  --questions <file>       a question file (Harel format or SQuAD 2.0); repeatable
  --engine extractive|llm  the demo's ?mode= (default extractive)
  --limit <n>              only the first n questions
  --k <n>                  pages scored for retrieval hit@k (default 10)
  --out <dir>              where report.json and report.html go (default .tmp/eval-browser)
  --compare <report.json>  an earlier report: each figure's change, newly failing and passing questions
  --judge <cmd>            a grader: gets {question, answer, reference} as JSON on stdin, prints 0..1
  --port <n>               the demo server's port (default 4290)
  --help                   this text`;
const { values } = parseScriptArgs(USAGE, {
  options: {
    index: { type: 'string' },
    questions: { type: 'string', multiple: true },
    engine: { type: 'string' },
    limit: { type: 'string' },
    k: { type: 'string' },
    out: { type: 'string' },
    compare: { type: 'string' },
    judge: { type: 'string' },
    port: { type: 'string' },
  },
});
const engine = values.engine ?? 'extractive';
if (!values.index) usageError(USAGE, '--index <dir> is required.');
if (!values.questions?.length) usageError(USAGE, '--questions <file> is required.');
if (engine !== 'extractive' && engine !== 'llm') usageError(USAGE, `--engine must be extractive or llm, not "${engine}".`);
let questions = (await Promise.all(values.questions.map((f) => loadQuestions(f)))).flat();
if (values.limit) questions = questions.slice(0, positiveInt(values.limit, '--limit', questions.length));
const k = positiveInt(values.k, '--k', 10);
const index = await readIndexFolder(resolve(values.index));
const run = await runBrowserEval({
  indexDir: values.index,
  questions,
  mode: engine,
  port: values.port ? positiveInt(values.port, '--port', 4290) : undefined,
  onProgress: (done, total, r) => process.stderr.write(`\r${done}/${total} ${r.error ? `error ${r.error}` : r.answer!.refused ? 'refused' : 'answered'}        `),
});
process.stderr.write('\n');
const ctx = { k, pages: pageTexts(index.documents, index.chunks), aliases: aliasMap(index.documents), twins: twinLookup(index.documents, index.chunks) };
const scored = run.records.map((r, i) => scoreQuestion(r, questions[i], ctx));
if (values.judge) {
  for (const s of scored) {
    if (s.text !== null) s.judge = runJudge(values.judge, { question: s.question, answer: s.text, reference: s.reference });
  }
}
const report: BrowserReport = buildReport(
  {
    createdAt: new Date().toISOString(),
    engine,
    k,
    questionFiles: values.questions.map((f) => basename(f)),
    index: run.index,
    indexLoad: run.indexLoad,
    judge: values.judge ?? null,
  },
  scored,
);
process.stdout.write(`${formatSummary(report)}\n`);
if (values.compare) {
  report.comparison = compareReports(JSON.parse(readFileSync(values.compare, 'utf8')) as BrowserReport, report);
  process.stdout.write(`\ncompared with ${values.compare}\n${formatComparison(report.comparison)}\n`);
}
const out = resolve(values.out ?? '.tmp/eval-browser');
mkdirSync(out, { recursive: true });
writeFileSync(join(out, 'report.json'), JSON.stringify(report, null, 1));
writeFileSync(join(out, 'report.html'), renderHtml(report));
process.stderr.write(`report: ${join(out, 'report.html')} (and report.json)\n`);
