/**
 * Retrieval over a customer's own document (issue 36, item 5): each document of
 * builder/eval/device-questions.json is parsed and chunked by the widget's own code
 * (core/device/parse-device-document.ts), added to the widget's search service over a site's index
 * (search/local-search-service.ts, which searches the site and the customer's documents together),
 * and asked its questions: first by BM25 (what answers at once), then, with --hybrid, once the
 * service has embedded the document with the site's question model, as the worker does. A hit is
 * the right page of the customer's document among the results (a site page with the same words
 * does not count). Unanswerable questions report what the top result looks like.
 *
 * With --answers each answerable question is also answered by the real loop (extractive, as the
 * widget answers without a model), and the answer's first citation judged: the customer's
 * document at a right page, one page either side allowed (a clause that starts at the foot of a
 * page is read on the next).
 *
 *   npx tsx builder/eval/device-retrieval.ts [--index demo/.generated/demo-index]… [--hybrid]
 *     [--answers] [--model-dir models] [--data ../shared/data] [--k 10] [--json <out>]
 */
import { readFile, writeFile } from 'node:fs/promises';
import { basename, join, resolve } from 'node:path';
import { parseArgs } from 'node:util';
import type { ParsedDeviceDocument } from '../../widget/core/device/device-document.ts';
import { parseDeviceDocument } from '../../widget/core/device/parse-device-document.ts';
import type { LoadedIndex } from '../../widget/core/format/read-index.ts';
import { ExtractiveEngine } from '../../widget/engines/extractive.ts';
import { runAnswerLoop } from '../../widget/loop/machine.ts';
import { LocalSearchService } from '../../widget/search/local-search-service.ts';
import type { ContextPassage } from '../../widget/search/search-service.ts';
import { positiveInt } from '../cli/args.ts';
import { loadQueryEmbedder } from '../commands/query-embedder.ts';
import { loadPdfJs, PDF_ASSETS } from '../parse/pdf.ts';
import type { Embedder } from '../embed/embedder.ts';
import { readIndexFolder } from '../read-index-folder.ts';

interface DeviceQuestion {
  id: string;
  question: string;
  pages: number[];
}
interface DeviceQuestionDocument {
  file: string;
  lang: 'he' | 'en';
  pageCount: number;
  questions: DeviceQuestion[];
}

interface Spread {
  min: number;
  median: number;
  max: number;
}

/** One question's outcome in one mode. */
interface QuestionResult {
  id: string;
  /** 1-based rank of the first result that is a right page of the customer's document; null: none in the k results. */
  rank: number | null;
  /** The same among the customer's document's results only (the site's left out). */
  deviceRank: number | null;
  top: { origin: 'site' | 'device'; file: string; page: number; score: number; bm25: number | null; vector: number | null } | null;
  /** The best result from the customer's document, where one is among the k. */
  topDevice: { rank: number; page: number; score: number } | null;
}

interface ModeSummary {
  mode: 'bm25' | 'hybrid';
  answerable: number;
  hit1: number;
  hit5: number;
  /** hit@5 counting the customer's document's results only. */
  deviceHit5: number;
  mrr: number;
  /** Answerable questions whose first result is from the customer's document. */
  deviceFirst: number;
  unanswerable: { id: string; top: QuestionResult['top']; topDevice: QuestionResult['topDevice'] }[];
  /** The answerable questions' first results: fused score, raw BM25 and cosine (for comparison with the unanswerable ones). */
  answerableTop: { score: Spread; bm25: Spread; vector: Spread | null };
  questions: QuestionResult[];
  /** Mean ms per search (the question's embedding included in hybrid). */
  msPerQuestion: number;
  /** With --answers: the answerable questions whose answer's first citation is a right page (±1) of the customer's document. */
  answers: {
    firstCitesOwn: number;
    firstCitesOwnPage: number;
    unanswerableRefused: number;
    questions: { id: string; first: { origin: string; file: string; page: number } | null; hit: boolean }[];
  } | null;
}

interface DocumentReport {
  file: string;
  index: string;
  pages: number;
  chunks: number;
  lang: string;
  parseMs: number;
  /** From addDocument's call until BM25 answers from it. */
  addMs: number;
  /** From the passage embedder's arrival until every chunk is embedded (hybrid only; Node, not Chromium). */
  embedMs: number | null;
  modes: ModeSummary[];
}

const median = (values: number[]): number => {
  if (values.length === 0) return Number.NaN;
  const sorted = [...values].sort((a, b) => a - b);
  const mid = Math.floor(sorted.length / 2);
  return sorted.length % 2 ? sorted[mid] : (sorted[mid - 1] + sorted[mid]) / 2;
};

const spread = (values: number[]): Spread => ({ min: Math.min(...values), median: median(values), max: Math.max(...values) });

function judge(question: DeviceQuestion, passages: ContextPassage[], documentId: string): QuestionResult {
  const isDevice = (p: ContextPassage) => p.origin === 'device' && p.deviceDocument === documentId;
  const right = (p: ContextPassage) => isDevice(p) && question.pages.includes(p.page);
  const index = passages.findIndex(right);
  const own = passages.filter(isDevice);
  const deviceIndex = own.findIndex(right);
  const first = passages[0];
  const firstOwn = own[0];
  return {
    id: question.id,
    rank: index < 0 ? null : index + 1,
    deviceRank: deviceIndex < 0 ? null : deviceIndex + 1,
    top: first ? { origin: isDevice(first) ? 'device' : 'site', file: first.file, page: first.page, score: first.score, bm25: first.bm25, vector: first.vector } : null,
    topDevice: firstOwn ? { rank: passages.indexOf(firstOwn) + 1, page: firstOwn.page, score: firstOwn.score } : null,
  };
}

/** The answerable questions answered by the loop, each first citation judged (see the header). */
async function runAnswers(service: LocalSearchService, doc: DeviceQuestionDocument, documentId: string): Promise<NonNullable<ModeSummary['answers']>> {
  const engine = new ExtractiveEngine();
  const questions: NonNullable<ModeSummary['answers']>['questions'] = [];
  let unanswerableRefused = 0;
  for (const question of doc.questions) {
    const answer = await runAnswerLoop({ question: question.question, history: [] }, { search: service, engine });
    if (question.pages.length === 0) {
      if (answer.refused) unanswerableRefused++;
      continue;
    }
    const first = answer.citations[0] ?? null;
    const own = first !== null && first.origin === 'device' && first.deviceDocument === documentId;
    const hit = own && question.pages.some((p) => Math.abs(p - first.page) <= 1);
    questions.push({ id: question.id, first: first ? { origin: first.origin ?? 'site', file: first.file, page: first.page } : null, hit });
  }
  return {
    firstCitesOwn: questions.filter((q) => q.first?.origin === 'device').length,
    firstCitesOwnPage: questions.filter((q) => q.hit).length,
    unanswerableRefused,
    questions,
  };
}

async function runQuestions(service: LocalSearchService, doc: DeviceQuestionDocument, documentId: string, mode: 'bm25' | 'hybrid', k: number, answers: boolean): Promise<ModeSummary> {
  const results: QuestionResult[] = [];
  const started = performance.now();
  for (const question of doc.questions) {
    const response = await service.search({ query: question.question, k });
    if (response.result.mode !== mode) throw new Error(`${question.id}: searched ${response.result.mode}, expected ${mode}`);
    results.push(judge(question, response.passages, documentId));
  }
  const msPerQuestion = (performance.now() - started) / doc.questions.length;
  const answerable = results.filter((_, i) => doc.questions[i].pages.length > 0);
  const count = (test: (r: QuestionResult) => boolean) => answerable.filter(test).length;
  const tops = answerable.flatMap((r) => (r.top ? [r.top] : []));
  const vectors = tops.flatMap((t) => (t.vector === null ? [] : [t.vector]));
  return {
    mode,
    answerable: answerable.length,
    hit1: count((r) => r.rank === 1),
    hit5: count((r) => r.rank !== null && r.rank <= 5),
    deviceHit5: count((r) => r.deviceRank !== null && r.deviceRank <= 5),
    mrr: answerable.reduce((sum, r) => sum + (r.rank ? 1 / r.rank : 0), 0) / Math.max(1, answerable.length),
    deviceFirst: count((r) => r.top?.origin === 'device'),
    unanswerable: results.filter((_, i) => doc.questions[i].pages.length === 0).map((r) => ({ id: r.id, top: r.top, topDevice: r.topDevice })),
    answerableTop: {
      score: spread(tops.map((t) => t.score)),
      bm25: spread(tops.map((t) => t.bm25 ?? 0)),
      vector: vectors.length ? spread(vectors) : null,
    },
    questions: results,
    msPerQuestion,
    answers: answers ? await runAnswers(service, doc, documentId) : null,
  };
}

/** Resolves once every chunk of the service's customer documents is embedded (or embedding failed). */
async function embedded(service: LocalSearchService, signal: AbortSignal): Promise<void> {
  for (;;) {
    const states = service.info().deviceDocuments.map((d) => d.embedding);
    const failed = states.find((s) => s.status === 'failed' || s.status === 'none');
    if (failed) throw new Error(`the document was not embedded: ${failed.status}${failed.error ? ` (${failed.error})` : ''}`);
    if (states.length > 0 && states.every((s) => s.status === 'done')) return;
    if (signal.aborted) throw new Error('stopped');
    await new Promise((r) => setTimeout(r, 100));
  }
}

async function measureDocument(options: {
  index: LoadedIndex;
  indexName: string;
  doc: DeviceQuestionDocument;
  parsed: ParsedDeviceDocument;
  bytes: Uint8Array;
  parseMs: number;
  k: number;
  embedder: Embedder | null;
  answers: boolean;
}): Promise<DocumentReport> {
  const { index, doc, parsed, bytes, k, embedder, answers } = options;
  // BM25 first: a service with no question model answers by words alone, as the widget does until the model is in.
  const service = LocalSearchService.fromIndex(index);
  const t0 = performance.now();
  const info = await service.addDocument(parsed, bytes);
  const addMs = performance.now() - t0;
  const modes = [await runQuestions(service, doc, info.id, 'bm25', k, answers)];
  let embedMs: number | null = null;
  if (embedder) {
    const manifest = index.manifest.embedder;
    if (!manifest || !index.vectors) throw new Error(`${options.indexName} has no vectors: hybrid needs an index built with embeddings`);
    // The worker's wiring: one model embeds questions (query prefix) and the customer's passages (passage prefix), texts carrying their prefix.
    const embed = async (text: string) => (await embedder.embed([text]))[0] ?? null;
    service.setQueryEmbedder(embed);
    const t1 = performance.now();
    service.setPassageEmbedder({ id: manifest.id, dim: manifest.dimensions, prefix: manifest.passagePrefix, embed });
    await embedded(service, AbortSignal.timeout(60 * 60 * 1000));
    embedMs = performance.now() - t1;
    modes.push(await runQuestions(service, doc, info.id, 'hybrid', k, answers));
  }
  service.dispose();
  return { file: doc.file, index: options.indexName, pages: parsed.pageCount, chunks: parsed.chunks.length, lang: parsed.lang, parseMs: options.parseMs, addMs, embedMs, modes };
}

const pct = (n: number, of: number) => `${((100 * n) / Math.max(1, of)).toFixed(0)}%`.padStart(4);
const fixed = (n: number | null | undefined, digits = 3) => (n === null || n === undefined ? '—' : n.toFixed(digits));

function printReport(reports: DocumentReport[], k: number): void {
  const out = (line = '') => process.stdout.write(`${line}\n`);
  out(`Retrieval over a customer's own document (device pages only count; k = ${k})`);
  out();
  out('document                              index        mode    n  hit@1 hit@5 dev-hit@5  MRR  device-first  ms/q');
  for (const r of reports) {
    for (const m of r.modes) {
      out(
        `${basename(r.file).slice(0, 36).padEnd(37)} ${r.index.slice(0, 12).padEnd(12)} ${m.mode.padEnd(6)} ${String(m.answerable).padStart(3)}  ${pct(m.hit1, m.answerable)}  ${pct(m.hit5, m.answerable)}   ${pct(m.deviceHit5, m.answerable)}   ${m.mrr.toFixed(2)}   ${pct(m.deviceFirst, m.answerable)}      ${m.msPerQuestion.toFixed(0).padStart(5)}`,
      );
    }
  }
  out();
  for (const r of reports) {
    out(
      `${r.file} over ${r.index}: ${r.pages} pages, ${r.chunks} chunks (${r.lang}); parsed and chunked in ${(r.parseMs / 1000).toFixed(1)} s, BM25 answers ${r.addMs.toFixed(0)} ms after addDocument${r.embedMs === null ? '' : `; embedded in ${(r.embedMs / 1000).toFixed(1)} s (Node)`}`,
    );
    for (const m of r.modes) {
      const { score, bm25, vector } = m.answerableTop;
      const range = (s: Spread, digits = 3) => `${fixed(s.min, digits)} / ${fixed(s.median, digits)} / ${fixed(s.max, digits)}`;
      out(`  ${m.mode}: answerable questions' first result (min / median / max): score ${range(score)}, bm25 ${range(bm25, 2)}${vector ? `, vector ${range(vector)}` : ''}`);
      for (const u of m.unanswerable) {
        const top = u.top
          ? `${u.top.origin} ${basename(u.top.file).slice(0, 40)} p${u.top.page} score ${fixed(u.top.score)} (bm25 ${fixed(u.top.bm25, 2)}, vector ${fixed(u.top.vector)})`
          : 'no result';
        const own = u.topDevice ? `; best of the document: rank ${u.topDevice.rank}, p${u.topDevice.page}, score ${fixed(u.topDevice.score)}` : '';
        out(`    unanswerable ${u.id}: top ${top}${own}`);
      }
      if (m.answers) {
        const a = m.answers;
        out(
          `    answers: first citation the customer's document ${a.firstCitesOwn} of ${m.answerable}, at a right page (±1) ${a.firstCitesOwnPage} of ${m.answerable} (${pct(a.firstCitesOwnPage, m.answerable).trim()}); unanswerable refused ${a.unanswerableRefused} of ${m.unanswerable.length}`,
        );
        const wrong = a.questions.filter((q) => !q.hit).map((q) => `${q.id} (${q.first ? `${q.first.origin} ${basename(q.first.file).slice(0, 30)} p${q.first.page}` : 'no citation'})`);
        if (wrong.length) out(`      not: ${wrong.join(', ')}`);
      }
      const missed = m.questions.filter((q) => q.rank === null && !m.unanswerable.some((u) => u.id === q.id));
      if (missed.length) out(`    missed in ${k}: ${missed.map((q) => `${q.id}${q.deviceRank ? ` (device rank ${q.deviceRank})` : ''}`).join(', ')}`);
    }
  }
}

async function main(): Promise<void> {
  const { values } = parseArgs({
    options: {
      index: { type: 'string', multiple: true },
      questions: { type: 'string' },
      data: { type: 'string' },
      hybrid: { type: 'boolean' },
      'model-dir': { type: 'string' },
      k: { type: 'string' },
      only: { type: 'string' },
      json: { type: 'string' },
      answers: { type: 'boolean' },
    },
  });
  const root = resolve(import.meta.dirname, '../..');
  const questionsFile = values.questions ?? join(root, 'builder/eval/device-questions.json');
  const data = values.data ?? join(root, '../shared/data');
  const indexes = values.index?.length ? values.index : [join(root, 'demo/.generated/demo-index')];
  const k = positiveInt(values.k, '--k', 10);
  const set = JSON.parse(await readFile(questionsFile, 'utf8')) as { documents: DeviceQuestionDocument[] };
  const documents = set.documents.filter((d) => !values.only || d.file.includes(values.only));

  const pdfjs = await loadPdfJs();
  const parsed = new Map<string, { parsed: ParsedDeviceDocument; bytes: Uint8Array; parseMs: number }>();
  for (const doc of documents) {
    const bytes = new Uint8Array(await readFile(join(data, doc.file)));
    const t0 = performance.now();
    const document = await parseDeviceDocument(pdfjs, bytes, basename(doc.file), { assets: PDF_ASSETS });
    parsed.set(doc.file, { parsed: document, bytes, parseMs: performance.now() - t0 });
    if (document.pageCount !== doc.pageCount) throw new Error(`${doc.file}: ${document.pageCount} pages, the question set says ${doc.pageCount}`);
  }

  const reports: DocumentReport[] = [];
  for (const dir of indexes) {
    const index = await readIndexFolder(dir);
    const embedder = values.hybrid ? await loadQueryEmbedder(index, { mode: 'hybrid', modelDir: values['model-dir'] ?? join(root, 'models'), prefix: '' }) : null;
    if (values.hybrid && !embedder) throw new Error(`${dir}: no vectors, so no hybrid search (build it with embeddings, or leave out --hybrid)`);
    try {
      for (const doc of documents) {
        const { parsed: document, bytes, parseMs } = parsed.get(doc.file)!;
        process.stderr.write(`${basename(doc.file)} over ${basename(dir)}…\n`);
        reports.push(await measureDocument({ index, indexName: basename(dir), doc, parsed: document, bytes, parseMs, k, embedder, answers: values.answers === true }));
      }
    } finally {
      await embedder?.dispose();
    }
  }
  printReport(reports, k);
  if (values.json) {
    await writeFile(values.json, `${JSON.stringify({ k, questions: questionsFile, reports }, null, 2)}\n`);
    process.stderr.write(`figures written to ${values.json}\n`);
  }
}

await main();
