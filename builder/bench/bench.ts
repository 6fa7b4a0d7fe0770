/**
 * `npm run bench -- --index <dir> [--questions <file>] [--dims 384]`: timings and sizes that
 * steer the work, never asserted in tests. Measures index load, BM25 and vector search latency,
 * and the index's bytes per chunk beside Orama's own save() of the same chunks with vectors.
 */
import { parseArgs } from 'node:util';
import { gzipSync } from 'node:zlib';
import { create, insertMultiple, save } from '@orama/orama';
import { Retriever } from '../../widget/core/retrieval/retriever.ts';
import { searchVectors } from '../../widget/core/retrieval/vector-search.ts';
import { loadQuestions } from '../eval/questions.ts';
import { readIndexFolder } from '../read-index-folder.ts';

function percentile(values: number[], p: number): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))] ?? 0;
}

function randomUnitVector(dim: number, seed: number): number[] {
  let s = seed * 2654435761 + 1;
  const v = Array.from({ length: dim }, () => {
    s = (s * 1103515245 + 12345) >>> 0;
    return s / 2 ** 32 - 0.5;
  });
  const norm = Math.hypot(...v);
  return v.map((x) => x / norm);
}

const ms = (x: number) => `${x.toFixed(1)} ms`;

async function main(): Promise<void> {
  const { values } = parseArgs({
    args: process.argv.slice(2),
    options: { index: { type: 'string' }, questions: { type: 'string' }, dims: { type: 'string' }, 'skip-orama-save': { type: 'boolean' } },
  });
  if (!values.index) throw new Error('usage: npm run bench -- --index <dir> [--questions <file>] [--dims 384]');
  let t = performance.now();
  const index = await readIndexFolder(values.index);
  const loadMs = performance.now() - t;
  t = performance.now();
  const retriever = new Retriever(index);
  const restoreMs = performance.now() - t;
  const n = index.chunks.length;
  const bytes = Object.values(index.manifest.files).reduce((s, f) => s + f!.bytes, 0);
  console.log(`index ${index.manifest.buildId}: ${n} chunks, ${(bytes / 1024).toFixed(0)} KB on disk, ${(bytes / n).toFixed(0)} bytes/chunk`);
  for (const [role, f] of Object.entries(index.manifest.files)) console.log(`  ${role.padEnd(10)} ${(f!.bytes / 1024).toFixed(0).padStart(7)} KB gz, ${(f!.rawBytes / 1024).toFixed(0).padStart(7)} KB raw`);
  console.log(`read+verify+inflate ${ms(loadMs)}, Orama restore ${ms(restoreMs)}`);

  const queries = values.questions ? (await loadQuestions(values.questions)).map((q) => q.question) : ['ביטוח רכב השתתפות עצמית', 'travel insurance baggage', 'תקופת אכשרה'];
  const times: number[] = [];
  for (let round = 0; round < 3; round++) {
    for (const q of queries) {
      const s = performance.now();
      retriever.search(q, { mode: 'bm25', k: 10 });
      times.push(performance.now() - s);
    }
  }
  console.log(`BM25 search (route + search, k=10) over ${times.length} queries: p50 ${ms(percentile(times, 50))}, p95 ${ms(percentile(times, 95))}`);

  const dims = Number(values.dims ?? index.vectors?.dim ?? 384);
  if (index.vectors) {
    const vt: number[] = [];
    for (let i = 0; i < 20; i++) {
      const q = new Float32Array(randomUnitVector(index.vectors.dim, i));
      const s = performance.now();
      searchVectors(index.vectors, q, { k: 50 });
      vt.push(performance.now() - s);
    }
    console.log(`int8 vector scan (${index.vectors.dim} dims): p50 ${ms(percentile(vt, 50))}, p95 ${ms(percentile(vt, 95))}`);
  }

  if (!values['skip-orama-save']) {
    // Orama's own persistence of the same chunks, text and a `dims`-wide vector each.
    const db = create({ schema: { body: 'string', domain: 'enum', embedding: `vector[${dims}]` } as const });
    const rows = index.chunks.map((c, i) => ({ id: String(i), body: c.text, domain: index.documents[c.doc].domain, embedding: randomUnitVector(dims, i) }));
    await insertMultiple(db, rows, 500);
    try {
      const json = JSON.stringify(save(db));
      const gz = gzipSync(json).byteLength;
      console.log(`Orama save() of the same ${n} chunks with ${dims}-dim vectors: ${(json.length / 1024 / 1024).toFixed(1)} MB JSON (${(json.length / n).toFixed(0)} bytes/chunk), ${(gz / 1024 / 1024).toFixed(1)} MB gzipped (${(gz / n).toFixed(0)} bytes/chunk)`);
    } catch (error) {
      console.log(`Orama save() of the same ${n} chunks with ${dims}-dim vectors failed: ${error instanceof Error ? error.message : String(error)}`);
    }
    const hc = dims + 4;
    console.log(`this format with ${dims}-dim int8 vectors would add ${hc} bytes/chunk raw (${((hc * n) / 1024 / 1024).toFixed(1)} MB)`);
  }
}

await main();
