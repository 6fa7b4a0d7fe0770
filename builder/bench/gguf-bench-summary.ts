/**
 * `npx tsx builder/bench/gguf-bench-summary.ts <bench.json…>`: the figures of gguf-loop-bench.ts
 * runs — per engine and language: answered, ground-check passes, citation validity, gold-page
 * citations, refusals of unanswerable questions, time to first token and tokens/s — and the gate
 * decision (answer-gate.ts) on two held-out folds: a language goes to the model only where, on
 * the fold it was not decided on, the model cites a gold page at least as often as quotation.
 */
import { readFileSync } from 'node:fs';
import type { BenchRecord } from './gguf-loop-bench.ts';

const all: BenchRecord[] = process.argv.slice(2).flatMap((file) => (JSON.parse(readFileSync(file, 'utf8')) as { records: BenchRecord[] }).records);
// Paired: only the questions both engines answered (a run stopped early measured a prefix).
const both = (id: string) => all.some((r) => r.id === id && r.engine === 'gguf') && all.some((r) => r.id === id && r.engine === 'extractive');
const records = all.filter((r) => both(r.id));
console.log(`${new Set(records.map((r) => r.id)).size} questions measured with both engines`);

const pct = (n: number, d: number) => (d ? `${n}/${d} (${((100 * n) / d).toFixed(0)} %)` : '–');
const median = (xs: number[]) => {
  if (!xs.length) return NaN;
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.floor(s.length / 2)];
};

function figures(rs: BenchRecord[]) {
  const answerable = rs.filter((r) => r.answerable);
  const unanswerable = rs.filter((r) => !r.answerable);
  const generated = rs.filter((r) => r.generations.length > 0);
  const gens = rs.flatMap((r) => r.generations);
  return {
    questions: rs.length,
    answered: pct(answerable.filter((r) => !r.refused).length, answerable.length),
    // An answer citing a gold page: a refusal's "closest clauses" may cite one too, and do not count.
    goldCited: pct(answerable.filter((r) => !r.refused && r.citesGold).length, answerable.length),
    unanswerableRefused: pct(unanswerable.filter((r) => r.refused).length, unanswerable.length),
    groundPassed: pct(generated.filter((r) => !r.refused).length, generated.length),
    citationsValid: pct(generated.filter((r) => r.citationsValid).length, generated.length),
    generations: gens.length,
    // First generations only: a retry's prompt is mostly in llama.cpp's cache (first token in < 2 s).
    ttftMedianS: (median(rs.flatMap((r) => (r.generations[0]?.firstTokenMs == null ? [] : [r.generations[0].firstTokenMs]))) / 1000).toFixed(1),
    promptTokPerS: (rs.reduce((n, r) => n + (r.generations[0]?.promptTokens ?? 0), 0) / (rs.reduce((ms, r) => ms + (r.generations[0]?.firstTokenMs ?? 0), 0) / 1000)).toFixed(1),
    tokPerSMedian: median(gens.flatMap((g) => (g.tokensPerSecond === null ? [] : [g.tokensPerSecond]))).toFixed(1),
    promptTokensMedian: median(rs.flatMap((r) => (r.generations[0] ? [r.generations[0].promptTokens] : []))),
    errors: rs.filter((r) => r.error).length,
  };
}

for (const engine of ['gguf', 'extractive'] as const) {
  for (const lang of ['all', 'he', 'en']) {
    const rs = records.filter((r) => r.engine === engine && (lang === 'all' || r.lang === lang));
    if (rs.length) console.log(engine.padEnd(10), lang.padEnd(3), JSON.stringify(figures(rs)));
  }
}

// The gate, decided on one fold and checked on the other (folds: alternate questions by id).
const ids = [...new Set(records.map((r) => r.id))].sort();
const fold = (id: string) => ids.indexOf(id) % 2;
for (const decideOn of [0, 1]) {
  for (const lang of ['he', 'en']) {
    const score = (f: number, engine: 'gguf' | 'extractive') => {
      const rs = records.filter((r) => r.engine === engine && r.lang === lang && r.answerable && fold(r.id) === f);
      return { gold: rs.filter((r) => !r.refused && r.citesGold).length, n: rs.length };
    };
    const [m, q] = [score(decideOn, 'gguf'), score(decideOn, 'extractive')];
    if (!m.n) continue;
    const open = m.gold >= q.gold && m.gold > 0;
    const [hm, hq] = [score(1 - decideOn, 'gguf'), score(1 - decideOn, 'extractive')];
    console.log(
      `fold ${decideOn} → ${lang}: model ${m.gold}/${m.n} vs quotation ${q.gold}/${q.n} gold-cited: ${open ? 'model answers' : 'quotation stands'}; ` +
        `held-out fold ${1 - decideOn}: model ${hm.gold}/${hm.n} vs quotation ${hq.gold}/${hq.n}`,
    );
  }
}
