/**
 * `harel-builder eval <index> --questions <file>`: retrieval metrics on a question set; with
 * `--reader <gguf>`, the reader as the loop runs it too (eval/reader-eval.ts), added to `--json`
 * as `reader`. `--limit N` / `--every K` take a subset (every K-th question, then the first N).
 * `--answers`: whether the answers state the ground truth's numbers instead (eval-answers.ts).
 * `--by-need`: the index opened with its always-read part, term and chunk fragments read as
 * questions need them (widget/core/format/index-by-need.ts); says what was read (eval/by-need-tally.ts).
 */
import { access, writeFile } from 'node:fs/promises';
import { parseArgs } from 'node:util';
import { createError } from '../errors.ts';
import { Retriever, type SearchMode, type SearchOptions } from '../../widget/core/retrieval/retriever.ts';
import { optionalNumber, positiveInt, searchMode } from '../cli/args.ts';
import { createProgressReporter } from '../cli/progress.ts';
import { createPageBaseline, type BaselineTokenizer } from '../eval/baseline.ts';
import { formatLevelRow, formatReport, TABLE_HEADER } from '../eval/format-report.ts';
import { loadQuestions } from '../eval/questions.ts';
import { aliasMap, runEval, twinLookup, type EvalReport } from '../eval/run-eval.ts';
import { openIndexFolderByNeed, readIndexFolder } from '../read-index-folder.ts';
import { ByNeedTally, formatByNeed } from '../eval/by-need-tally.ts';
import { DEFAULT_READER_CALLS } from '../../widget/loop/read.ts';
import { formatReaderSummary, runReaderEval, summarizeReader, type ReaderEvalRecord, type ReaderEvalSummary } from '../eval/reader-eval.ts';
import { embedQuery, loadQueryEmbedder } from './query-embedder.ts';
import { evalAnswers } from './eval-answers.ts';

export async function evalCommand(argv: string[]): Promise<number> {
  const { values, positionals } = parseArgs({
    args: argv,
    allowPositionals: true,
    options: {
      questions: { type: 'string', multiple: true },
      k: { type: 'string' },
      mode: { type: 'string' },
      json: { type: 'string' },
      baseline: { type: 'boolean' },
      'no-route': { type: 'boolean' },
      'bm25-weight': { type: 'string' },
      fusion: { type: 'string' },
      'rrf-k': { type: 'string' },
      'bm25-pool': { type: 'string' },
      'vector-pool': { type: 'string' },
      'route-min': { type: 'string' },
      'route-boost': { type: 'string' },
      'context-boost': { type: 'string' },
      collapse: { type: 'boolean' },
      'expansion-weight': { type: 'string' },
      'mined-weight': { type: 'string' },
      'no-mined': { type: 'boolean' },
      'no-references': { type: 'boolean' },
      'model-dir': { type: 'string' },
      'allow-remote': { type: 'boolean' },
      quiet: { type: 'boolean' },
      reader: { type: 'string' },
      'reader-calls': { type: 'string' },
      limit: { type: 'string' },
      every: { type: 'string' },
      'query-model': { type: 'string' },
      answers: { type: 'boolean' },
      'vectors-cache': { type: 'string' },
      sample: { type: 'string' },
      'sample-out': { type: 'string' },
      'by-need': { type: 'boolean' },
    },
  });
  const [indexDir] = positionals;
  if (!indexDir || !values.questions?.length) throw createError('BAD_ARGUMENT', 'eval needs an index folder and --questions <file>.');
  const k = positiveInt(values.k, '--k', 10);
  const every = positiveInt(values.every, '--every', 1);
  const limit = values.limit === undefined ? Number.POSITIVE_INFINITY : positiveInt(values.limit, '--limit', 1);
  const readerCalls = positiveInt(values['reader-calls'], '--reader-calls', DEFAULT_READER_CALLS);
  if (values.reader)
    await access(values.reader).catch(() => {
      throw createError('BAD_ARGUMENT', `--reader ${values.reader}: no such file. \`npx harel-builder models fetch\` writes models/gguf/gemma-3-270m-harel-reader.gguf.`);
    });
  const progress = createProgressReporter({ quiet: Boolean(values.quiet) });
  if (values['by-need'] && (values.answers || values.reader || values.baseline)) throw createError('BAD_ARGUMENT', '--by-need measures retrieval alone: leave out --answers, --reader and --baseline.');
  const byNeed = values['by-need'] ? await openIndexFolderByNeed(indexDir, { onProgress: progress.onProgress }) : null;
  const index = byNeed?.index ?? (await readIndexFolder(indexDir, { onProgress: progress.onProgress }));
  progress.finish();
  const mode: SearchMode = searchMode(values.mode, index.vectors ? 'hybrid' : 'bm25');
  if (values.answers) {
    if (mode === 'vector') throw createError('BAD_ARGUMENT', '--answers runs the loop as the widget does: --mode bm25 or hybrid.');
    if (values.sample !== undefined && !values['sample-out']) throw createError('BAD_ARGUMENT', '--sample N needs --sample-out <file.md>.');
    const files = [];
    for (const file of values.questions) files.push({ file, questions: (await loadQuestions(file)).filter((_, i) => i % every === 0).slice(0, limit) });
    const out = await evalAnswers({
      index,
      files,
      hybrid: mode === 'hybrid' && Boolean(index.vectors),
      modelDir: values['model-dir'] ?? 'models',
      vectorsCache: values['vectors-cache'] ?? '.tmp/eval-question-vectors.json',
      progress,
      sample: values['sample-out'] ? { count: positiveInt(values.sample, '--sample', 30), out: values['sample-out'] } : undefined,
    });
    if (values.json) {
      await writeFile(values.json, `${JSON.stringify(out, null, 1)}\n`);
      process.stderr.write(`wrote ${values.json}\n`);
    }
    return 0;
  }
  const retriever = new Retriever(index);
  const bm25Weight = optionalNumber(values['bm25-weight'], '--bm25-weight', 0, 1);
  if (values.fusion !== undefined && values.fusion !== 'rrf' && values.fusion !== 'minmax') {
    throw createError('BAD_ARGUMENT', `--fusion must be rrf or minmax, not "${values.fusion}".`);
  }
  const fusion = values.fusion as 'rrf' | 'minmax' | undefined;
  const rrfK = optionalNumber(values['rrf-k'], '--rrf-k', 0);
  const bm25Pool = values['bm25-pool'] === undefined ? undefined : positiveInt(values['bm25-pool'], '--bm25-pool', 1);
  const vectorPool = values['vector-pool'] === undefined ? undefined : positiveInt(values['vector-pool'], '--vector-pool', 1);
  const embedder = await loadQueryEmbedder(index, { mode, modelDir: values['model-dir'], allowRemote: values['allow-remote'], queryModel: values['query-model'] });
  // Which model embedded the questions: a tuned question model and the stock one are compared by it.
  const queryModel = embedder?.id ?? null;
  if (queryModel)
    process.stdout.write(`questions embedded by ${queryModel}${index.manifest.embedder && queryModel !== index.manifest.embedder.id ? ` (passages: ${index.manifest.embedder.id})` : ''}\n`);

  // The scorer's view (aliases, twin pages) reads every chunk: by need, from a whole read of the
  // build that the tally does not count, as no visitor downloads it for the scoring.
  const scored = byNeed ? await readIndexFolder(indexDir) : index;
  const aliases = aliasMap(scored.documents);
  const twins = twinLookup(scored.documents, scored.chunks);
  const out: Record<
    string,
    { report: EvalReport; queryModel: string | null; baselines?: Record<string, EvalReport>; reader?: ReaderEvalSummary & { records: ReaderEvalRecord[] }; byNeed?: ReturnType<ByNeedTally['summary']> }
  > = {};
  // One tally over every question file, in the order given: a visitor asks them in one visit.
  const tally = byNeed ? new ByNeedTally(byNeed) : null;
  for (const file of values.questions) {
    const questions = (await loadQuestions(file)).filter((_, i) => i % every === 0).slice(0, limit);
    const report = await runEval(
      questions,
      // Pages are ranked from chunks: fetch more chunks than pages wanted so that k distinct pages remain.
      async (q) => {
        const options: SearchOptions = {
          mode,
          k: k * 3,
          route: !values['no-route'],
          queryVector: await embedQuery(embedder, q),
          bm25Weight,
          fusion,
          rrfK,
          bm25Pool,
          vectorPool,
          routeMinConfidence: optionalNumber(values['route-min'], '--route-min', 0),
          routeBoost: optionalNumber(values['route-boost'], '--route-boost', 0),
          contextBoost: optionalNumber(values['context-boost'], '--context-boost', 0),
          ...(values.collapse ? { collapseTwins: true } : {}),
          expansionWeight: optionalNumber(values['expansion-weight'], '--expansion-weight', 0, 1),
          minedExpansionWeight: values['no-mined'] ? 0 : optionalNumber(values['mined-weight'], '--mined-weight', 0, 1),
          crossReferences: !values['no-references'],
        };
        if (!byNeed || !tally) return retriever.search(q, options);
        const result = await retriever.searchByNeed(q, options, byNeed);
        tally.question();
        return result;
      },
      { k, mode, aliases, twins, onProgress: progress.onProgress },
    );
    progress.finish();
    process.stdout.write(`\n== ${file}\n${formatReport(report, 'harel-chat')}\n`);
    const entry: (typeof out)[string] = { report, queryModel };
    // What was read by need so far: after this file and those before it.
    if (tally) entry.byNeed = tally.summary();
    if (values.baseline) {
      entry.baselines = {};
      const rows = [TABLE_HEADER, formatLevelRow('harel-chat', report.answerable, report.file, report.page)];
      for (const tokenizer of ['orama-default', 'project-stock-bm25', 'project'] as BaselineTokenizer[]) {
        const baseline = await createPageBaseline(index, tokenizer);
        const b = await runEval(questions, async (q) => baseline(q, k), { k, mode: 'bm25', aliases, twins });
        entry.baselines[tokenizer] = b;
        rows.push(formatLevelRow(`page BM25 ${tokenizer}`, b.answerable, b.file, b.page));
      }
      process.stdout.write(`\nbaselines (page-level BM25 over the same pages):\n${rows.join('\n')}\n`);
    }
    if (values.reader) {
      const records = await runReaderEval({
        indexDir,
        gguf: values.reader,
        questions,
        aliases,
        maxCalls: readerCalls,
        onRecord: (r, done) =>
          progress.onProgress({ step: 'reader', done, total: questions.length, detail: `${r.id} ${r.verdict}${r.span ? ` "${r.span.slice(0, 40)}"` : ''} ${Math.round(r.ms)} ms` }),
      });
      progress.finish();
      const summary = summarizeReader(records);
      process.stdout.write(`\n${formatReaderSummary(summary)}\n`);
      entry.reader = { ...summary, records };
    }
    out[file] = entry;
  }
  await embedder?.dispose();
  if (tally) process.stdout.write(`\n${formatByNeed(tally.summary())}\n`);
  if (values.json) {
    const files = Object.keys(out);
    // One question file: the report itself (keys questions/file/page/routing at the top level).
    const json = files.length === 1 ? { ...out[files[0]].report, queryModel, baselines: out[files[0]].baselines, reader: out[files[0]].reader, byNeed: out[files[0]].byNeed } : out;
    await writeFile(values.json, `${JSON.stringify(json, null, 2)}\n`);
    process.stderr.write(`wrote ${values.json}\n`);
  }
  return 0;
}
