/**
 * `npm run eval` (Node, the retriever directly) and `npm run eval:browser` (the widget in
 * Chromium, `answer.retrieved`) must report the same retrieval figures for the same index and
 * questions: a difference means the widget searches differently from what the Node eval measures.
 * Runs its own server (port 4293) beside the main e2e server on 4178.
 */
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { expect, test } from '@playwright/test';
import { loadQuestions } from '../../builder/eval/questions.ts';
import { aliasMap, twinLookup, type EvalReport } from '../../builder/eval/run-eval.ts';
import { readIndexFolder } from '../../builder/read-index-folder.ts';
import { pageTexts } from '../../builder/eval/browser/citation-validity.ts';
import { runBrowserEval } from '../../builder/eval/browser/run-browser-eval.ts';
import { scoreQuestion } from '../../builder/eval/browser/score-question.ts';
import { summarize } from '../../builder/eval/browser/summarize.ts';

const INDEX = 'demo/.generated/index';
const QUESTIONS = 'demo/questions.json';

test('the Node eval and the browser eval agree on retrieval', async () => {
  test.setTimeout(90_000);
  const out = join(mkdtempSync(join(tmpdir(), 'eval-agreement-')), 'node.json');
  // The demo serves the test embedder to the widget; the Node eval must embed queries with it too.
  execFileSync('node', ['builder/bin/harel-builder.mjs', 'eval', INDEX, '--questions', QUESTIONS, '--model-dir', 'tests/fixtures/.generated', '--json', out, '--quiet'], {
    stdio: ['ignore', 'ignore', 'inherit'],
  });
  const node = JSON.parse(readFileSync(out, 'utf8')) as EvalReport;

  const questions = await loadQuestions(QUESTIONS);
  const index = await readIndexFolder(INDEX);
  const run = await runBrowserEval({ indexDir: INDEX, questions, port: 4293 });
  const ctx = { k: node.k, pages: pageTexts(index.documents, index.chunks), aliases: aliasMap(index.documents), twins: twinLookup(index.documents, index.chunks) };
  const scored = run.records.map((r, i) => scoreQuestion(r, questions[i], ctx));
  expect(scored.filter((s) => s.error)).toEqual([]);
  expect(run.index.searchMode, `embedder: ${run.index.embedderError}`).toBe(node.mode);

  // Per question first, so a failure names the question that ranks differently.
  const ranks = (r: { id: string; fileRank: number | null; pageRank: number | null; fileRankLenient: number | null; pageRankLenient: number | null }) => [
    r.id,
    r.fileRank,
    r.pageRank,
    r.fileRankLenient,
    r.pageRankLenient,
  ];
  expect(scored.filter((s) => s.answerable).map(ranks)).toEqual(node.perQuestion.filter((r) => r.answerable).map(ranks));
  const browser = summarize(scored).retrieval;
  expect(browser.file).toEqual(node.file);
  expect(browser.page).toEqual(node.page);
  expect(browser.fileLenient).toEqual(node.fileLenient);
  expect(browser.pageLenient).toEqual(node.pageLenient);
});
