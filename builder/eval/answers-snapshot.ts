/**
 * Every answer the real loop gives, written down so a change that should not change answers can
 * prove it did not: dev-v2 and dev-v3 (every question, answerable or not) on the Harel corpus, BM25
 * and hybrid, the project's off-topic set, the demo's starters and questions on the demo index, and
 * a few follow-ups (each asked after the question before it, with that answer as history).
 *
 *   npx tsx builder/eval/answers-snapshot.ts --out .tmp/answers-before.json
 *   npx tsx builder/eval/answers-snapshot.ts --out .tmp/answers-after.json --compare .tmp/answers-before.json
 *
 * Recorded per answer: the text, tier, refusal, mode, search mode, domain, language, searched query,
 * the citations (chunk, page, quote, section, clause), the ranked passages' ids and the evidence
 * (question type, features, probabilities); timings are left out. `--compare` prints each answer
 * that differs, field by field, and exits 1 when any does.
 *
 * Indexes (build them first): `--bm25` (default .tmp/harel: `npx harel-builder build
 * ../shared/data/harel/corpus --out .tmp/harel --no-embed`), `--hybrid` (default .tmp/harel-e5,
 * the same with `--model-dir models`; skipped, said so, when absent), the demo's
 * (demo/.generated/demo-index, `npm run demo -- --setup-only`).
 */
import { existsSync } from 'node:fs';
import { mkdir, readFile, writeFile } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseScriptArgs } from '../../tools/script-args.ts';
import type { Answer, ChatTurn } from '../../widget/answer/types.ts';
import { ExtractiveEngine } from '../../widget/engines/extractive.ts';
import { runAnswerLoop } from '../../widget/loop/machine.ts';
import { LocalSearchService } from '../../widget/search/local-search-service.ts';
import { readIndexFolder } from '../read-index-folder.ts';
import { cachedQueryEmbedder } from './fit/query-vectors.ts';
import { loadOffTopicSet } from './fit/collect.ts';
import { loadQuestions } from './questions.ts';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));
const DATA = join(ROOT, '../shared/data');
const USAGE = `usage: npx tsx builder/eval/answers-snapshot.ts --out <file.json> [--compare <before.json>] [--bm25 <dir>] [--hybrid <dir>] [--model-dir models] [--only <set>]
  Writes every answer the real loop gives on the dev sets and the demo; --compare prints the answers that differ.`;

const { values } = parseScriptArgs(USAGE, {
  options: {
    out: { type: 'string' },
    compare: { type: 'string' },
    bm25: { type: 'string', default: '.tmp/harel' },
    hybrid: { type: 'string', default: '.tmp/harel-e5' },
    demo: { type: 'string', default: 'demo/.generated/demo-index' },
    'model-dir': { type: 'string', default: 'models' },
    'vectors-cache': { type: 'string', default: '.tmp/answers-snapshot-vectors.json' },
    only: { type: 'string' },
  },
});
if (!values.out) throw new Error(USAGE);

/** One question as asked: its history is the answer to the question before it, for a follow-up. */
interface Asked {
  set: string;
  id: string;
  question: string;
  /** The question asked just before, whose answer is this one's history. */
  after?: string;
}

/** What an answer shows and decides on, timings left out. */
type Recorded = Record<string, unknown>;

function record(answer: Answer): Recorded {
  return {
    text: answer.text,
    confidence: answer.confidence,
    refused: answer.refused,
    refusal: answer.refusal,
    mode: answer.mode,
    searchMode: answer.searchMode,
    domain: answer.domain,
    lang: answer.lang,
    searchedQuery: answer.searchedQuery,
    citations: answer.citations.map((c) => ({ n: c.n, chunkId: c.chunkId, file: c.file, page: c.page, quote: c.quote, sectionPath: c.sectionPath, clause: c.clause, alsoIn: c.alsoIn.length })),
    retrieved: answer.retrieved.map((p) => p.chunkId),
    evidence: answer.evidence ?? null,
    reader: answer.reader?.verdict ?? null,
  };
}

/** Follow-ups written for this check: the second of each pair is asked with the first's answer as history. */
const FOLLOW_UPS: [string, string][] = [
  ['מה ההשתתפות העצמית בביטוח הרכב?', 'ומה לגבי שמשה?'],
  ['האם ביטוח הנסיעות מכסה ביטול טיסה?', 'ואם הטיסה התעכבה?'],
  ['תוך כמה זמן צריך לדווח על נזק בדירה?', 'תודה רבה'],
  ['What does the travel policy cover if my flight is cancelled?', 'And lost luggage?'],
];
const STARTERS = [
  'מה ההשתתפות העצמית בביטוח הרכב?',
  'האם ביטוח הנסיעות מכסה ביטול טיסה?',
  'תוך כמה זמן צריך לדווח על נזק בדירה?',
  'What does the travel policy cover if my flight is cancelled?',
  'How many days do I have to report a home insurance claim?',
  'שלום',
  'מה מזג האוויר מחר?',
];

async function harelSets(): Promise<Asked[]> {
  const asked: Asked[] = [];
  if (existsSync(DATA)) {
    for (const set of ['dev-v2', 'dev-v3']) {
      for (const q of await loadQuestions(join(DATA, `harel/questions/${set}.json`))) asked.push({ set, id: q.id, question: q.question });
    }
  } else {
    console.log(`${DATA} is absent: the dev sets are left out.`);
  }
  for (const q of await loadOffTopicSet(join(ROOT, 'builder/eval/sets/off-topic.json'))) asked.push({ set: 'off-topic', id: q.id, question: q.question });
  return asked;
}

async function demoSets(): Promise<Asked[]> {
  const asked: Asked[] = STARTERS.map((question, i) => ({ set: 'demo-starters', id: `starter-${i}`, question }));
  for (const q of await loadQuestions(join(ROOT, 'demo/questions.json'))) asked.push({ set: 'demo-questions', id: q.id, question: q.question });
  FOLLOW_UPS.forEach(([first, second], i) => asked.push({ set: 'demo-follow-ups', id: `follow-${i}`, question: second, after: first }));
  return asked;
}

async function answerAll(label: string, indexDir: string, asked: Asked[], hybrid: boolean): Promise<Record<string, Recorded>> {
  const index = await readIndexFolder(indexDir);
  const embedder = hybrid ? await cachedQueryEmbedder(index, values['model-dir'] as string, values['vectors-cache'] as string) : null;
  const search = LocalSearchService.fromIndex(index, embedder ? { embedQuery: embedder.embedQuery } : { embedQuery: null });
  const engine = new ExtractiveEngine();
  const out: Record<string, Recorded> = {};
  try {
    for (const [i, q] of asked.entries()) {
      let history: ChatTurn[] = [];
      if (q.after) {
        const first = await runAnswerLoop({ question: q.after, history: [] }, { search, engine });
        history = [
          { role: 'user', text: q.after, at: 0 },
          { role: 'assistant', text: first.text, answer: first, at: 0 },
        ];
      }
      const answer = await runAnswerLoop({ question: q.question, history }, { search, engine });
      out[`${label}/${q.set}/${q.id}`] = record(answer);
      if (i % 20 === 19 || i === asked.length - 1) process.stderr.write(`\r${label}: ${i + 1}/${asked.length}${i === asked.length - 1 ? '\n' : ''}`);
    }
  } finally {
    await embedder?.save();
    await embedder?.dispose();
  }
  return out;
}

const runs: { label: string; dir: string; asked: () => Promise<Asked[]>; hybrid: boolean }[] = [
  { label: 'bm25', dir: values.bm25 as string, asked: harelSets, hybrid: false },
  { label: 'hybrid', dir: values.hybrid as string, asked: harelSets, hybrid: true },
  { label: 'demo-bm25', dir: values.demo as string, asked: demoSets, hybrid: false },
  { label: 'demo-hybrid', dir: values.demo as string, asked: demoSets, hybrid: true },
];
const answers: Record<string, Recorded> = {};
for (const run of runs) {
  if (values.only && run.label !== values.only) continue;
  if (!existsSync(join(run.dir, 'manifest.json'))) {
    console.log(`${run.label}: ${run.dir} holds no index; left out (build it: see this file's head).`);
    continue;
  }
  Object.assign(answers, await answerAll(run.label, run.dir, await run.asked(), run.hybrid));
}
await mkdir(dirname(values.out), { recursive: true });
await writeFile(values.out, `${JSON.stringify(answers, null, 1)}\n`);
console.log(`${Object.keys(answers).length} answers → ${values.out}`);

if (values.compare) {
  const before = JSON.parse(await readFile(values.compare, 'utf8')) as Record<string, Recorded>;
  let differ = 0;
  // With --only, the other runs of the earlier file are not compared.
  const keys = new Set([...Object.keys(before), ...Object.keys(answers)].filter((k) => !values.only || k.startsWith(`${values.only}/`)));
  for (const key of keys) {
    const a = before[key];
    const b = answers[key];
    if (!a || !b) {
      differ++;
      console.log(`${key}: only ${a ? 'before' : 'after'}`);
      continue;
    }
    const fields = Object.keys({ ...a, ...b }).filter((f) => JSON.stringify(a[f]) !== JSON.stringify(b[f]));
    if (fields.length === 0) continue;
    differ++;
    console.log(`${key}: ${fields.join(', ')}`);
    for (const f of fields.slice(0, 3)) console.log(`  before ${f}: ${JSON.stringify(a[f]).slice(0, 300)}\n  after  ${f}: ${JSON.stringify(b[f]).slice(0, 300)}`);
  }
  console.log(`${keys.size} answers compared, ${differ} differ`);
  if (differ > 0) process.exitCode = 1;
}
