/**
 * How much of what the corpus states in numbers the answer's readers can state as facts (issue 55,
 * item 3): every number of every chunk (answer-numbers.ts: clause and page references, markers and
 * clause numbers left out; a phone or a date is one number), and whether it lies inside a fact
 * that text/facts.ts finds in its sentence (an amount, a percentage, a period, an age, a count), in
 * a value cell of a table that text/table-cells.ts reads, or neither. A seeded sample of the
 * facts, with their sentences, is written to judge by hand (`--sample N --sample-out f.md`).
 *
 *   npx tsx builder/eval/fact-coverage.ts [--index .tmp/harel] [--json f] [--sample 50 --sample-out f.md]
 */
import { mkdir, writeFile } from 'node:fs/promises';
import { dirname } from 'node:path';
import { parseScriptArgs } from '../../tools/script-args.ts';
import { findFacts, type FactKind } from '../../widget/text/facts.ts';
import { oneLine, sentenceSpans } from '../../widget/text/sentences.ts';
import { passageTables } from '../../widget/text/table-cells.ts';
import { readIndexFolder } from '../read-index-folder.ts';
import { digitNumbers } from './answer-numbers.ts';
import { seededRandom } from './seeded-random.ts';

const KINDS: readonly FactKind[] = ['amount', 'percentage', 'duration', 'age', 'count'];

interface SampledFact {
  file: string;
  page: number;
  kind: FactKind;
  fact: string;
  label: string | null;
  sentence: string;
}

/**
 * What a number no fact holds looks like: a clause-like decimal ("4.1", ".5"), a year, a phone
 * or a date, a small whole number (a list item, a count in reversed text), or another.
 */
function numberShape(text: string): string {
  if (/^\d{1,2}\.\d{1,2}$/u.test(text)) return 'clause-like (4.1)';
  if (/^(?:19|20)\d{2}$/u.test(text)) return 'year';
  if (/^\*?\d[\d-]{6,}$/u.test(text) || /^\d{1,2}[./]\d{1,2}[./]\d{2,4}$/u.test(text)) return 'phone or date';
  if (/^\d{1,2}$/u.test(text)) return 'whole number < 100';
  return 'other';
}

const USAGE = 'npx tsx builder/eval/fact-coverage.ts [--index .tmp/harel] [--json f] [--sample 50 --sample-out f.md]';

async function main(): Promise<void> {
  const { values: args } = parseScriptArgs(USAGE, { options: { index: { type: 'string' }, json: { type: 'string' }, sample: { type: 'string' }, 'sample-out': { type: 'string' } } });
  const index = await readIndexFolder(args.index ?? '.tmp/harel');
  const counts = {
    numbers: 0,
    inFacts: 0,
    inTableCells: 0,
    neither: 0,
    neitherByShape: {} as Record<string, number>,
    byKind: Object.fromEntries(KINDS.map((k) => [k, 0])) as Record<FactKind, number>,
  };
  const facts: SampledFact[] = [];
  const twinsSeen = new Set<number>();
  for (const chunk of index.chunks) {
    // One copy of text that repeats elsewhere (editions, twins) counts once.
    if (chunk.twin !== undefined) {
      if (twinsSeen.has(chunk.twin)) continue;
      twinsSeen.add(chunk.twin);
    }
    const cellValues = new Set(passageTables(chunk.text).flatMap((t) => t.rows.flat()));
    for (const span of sentenceSpans(chunk.text)) {
      const sentence = oneLine(span.text);
      const found = KINDS.flatMap((kind) => {
        let from = 0;
        return findFacts(sentence, kind).map((f) => {
          const start = sentence.indexOf(f.text, from);
          from = start + f.text.length;
          return { kind, start, end: start + f.text.length, fact: f };
        });
      });
      for (const f of found) facts.push({ file: index.documents[chunk.doc].file, page: chunk.page, kind: f.kind, fact: f.fact.text, label: f.fact.label, sentence });
      for (const n of digitNumbers(sentence)) {
        if (n.values.length === 0) continue;
        counts.numbers++;
        const fact = found.find((f) => f.start <= n.start && n.end <= f.end);
        if (fact) {
          counts.inFacts++;
          counts.byKind[fact.kind]++;
        } else if ([...cellValues].some((cell) => cell.includes(sentence.slice(n.start, n.end)) && /\d/.test(cell) && cell.length <= 40)) counts.inTableCells++;
        else {
          counts.neither++;
          const shape = numberShape(sentence.slice(n.start, n.end));
          counts.neitherByShape[shape] = (counts.neitherByShape[shape] ?? 0) + 1;
        }
      }
    }
  }
  const pct = (n: number) => `${((100 * n) / Math.max(1, counts.numbers)).toFixed(1)} %`;
  process.stdout.write(
    [
      `${index.chunks.length} chunks, ${counts.numbers} numbers (one copy of repeated text)`,
      `  in a fact of its sentence: ${counts.inFacts} (${pct(counts.inFacts)}): ${KINDS.map((k) => `${k} ${counts.byKind[k]}`).join(', ')}`,
      `  in a table's value cell: ${counts.inTableCells} (${pct(counts.inTableCells)})`,
      `  neither: ${counts.neither} (${pct(counts.neither)}): ${Object.entries(counts.neitherByShape)
        .sort((a, b) => b[1] - a[1])
        .map(([k, v]) => `${k} ${v}`)
        .join(', ')}`,
      `  facts found: ${facts.length}, with a label: ${facts.filter((f) => f.label).length}`,
      '',
    ].join('\n'),
  );
  if (args.json) await writeFile(args.json, `${JSON.stringify(counts, null, 2)}\n`);
  const size = Number(args.sample ?? 0);
  if (size > 0 && args['sample-out']) {
    const random = seededRandom(55);
    const pool = [...facts];
    const picked: SampledFact[] = [];
    while (picked.length < size && pool.length > 0) picked.push(pool.splice(Math.floor(random() * pool.length), 1)[0]);
    const lines = picked.map(
      (f, i) => `## ${i + 1}. ${f.kind}: ${f.fact}${f.label ? ` (label: ${f.label})` : ''}\n${f.file} p${f.page}\n> ${f.sentence.slice(0, 400)}\n\n**Verdict:** right / wrong kind / wrong scope\n`,
    );
    await mkdir(dirname(args['sample-out']), { recursive: true });
    await writeFile(args['sample-out'], `# Facts to judge (seed 55)\n\n${lines.join('\n')}`);
    process.stderr.write(`wrote ${args['sample-out']}\n`);
  }
}

await main();
