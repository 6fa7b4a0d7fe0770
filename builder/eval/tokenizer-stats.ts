/**
 * Tokenizer statistics on the real corpus: terms per page, vocabulary, how often Hebrew prefix
 * stripping fires. Run: npx tsx builder/eval/tokenizer-stats.ts [dataDir]
 */
import { analyze, TOKENIZER_VERSION } from '../../widget/core/tokenizer/index.ts';
import { hasHarelData, loadCorpus, HAREL_DATA_DIR } from './harel-corpus.ts';

const dataDir = process.argv[2] ?? HAREL_DATA_DIR;
if (!hasHarelData(dataDir)) {
  console.error(`No Harel corpus under ${dataDir}.`);
  process.exit(1);
}

const started = performance.now();
const perPage: number[] = [];
const vocabulary = new Map<string, number>();
const surfaceVocabulary = new Set<string>();
let words = 0,
  hebrewWords = 0,
  strippedWords = 0,
  candidates = 0,
  dropped = 0,
  numbers = 0,
  latin = 0,
  chars = 0;

for (const doc of loadCorpus(dataDir)) {
  for (const page of doc.pages) {
    chars += page.text.length;
    let terms = 0;
    for (const word of analyze(page.text)) {
      words++;
      terms += word.terms.length;
      if (word.terms.length === 0) dropped++;
      else surfaceVocabulary.add(word.terms[0]);
      for (const t of word.terms) vocabulary.set(t, (vocabulary.get(t) ?? 0) + 1);
      if (word.kind === 'he') {
        hebrewWords++;
        if (word.stripped > 0) strippedWords++;
        candidates += word.stripped;
      } else if (word.kind === 'number') numbers++;
      else latin++;
    }
    perPage.push(terms);
  }
}
const seconds = (performance.now() - started) / 1000;

perPage.sort((a, b) => a - b);
const total = perPage.reduce((a, b) => a + b, 0);
const pct = (n: number, d: number) => `${((100 * n) / d).toFixed(1)}%`;
const quantile = (q: number) => perPage[Math.min(perPage.length - 1, Math.floor(q * perPage.length))];
const top = [...vocabulary.entries()].sort((a, b) => b[1] - a[1]).slice(0, 25);

console.log(`tokenizer ${TOKENIZER_VERSION} on ${dataDir}`);
console.log(`pages ${perPage.length}, characters ${chars}, words ${words} (Hebrew ${pct(hebrewWords, words)}, Latin ${pct(latin, words)}, numbers ${pct(numbers, words)})`);
console.log(`terms ${total}; per page mean ${(total / perPage.length).toFixed(0)}, median ${quantile(0.5)}, p90 ${quantile(0.9)}, max ${perPage[perPage.length - 1]}`);
console.log(`words dropped (stop words, lone letters) ${pct(dropped, words)}`);
console.log(`vocabulary: ${vocabulary.size} distinct terms, ${surfaceVocabulary.size} distinct surface terms, ${[...vocabulary.values()].filter((n) => n === 1).length} seen once`);
console.log(
  `prefix stripping fired on ${pct(strippedWords, hebrewWords)} of Hebrew words, ${(candidates / Math.max(1, strippedWords)).toFixed(2)} candidates each; terms per word ${(total / words).toFixed(2)}`,
);
console.log(`most frequent terms: ${top.map(([t, n]) => `${t}:${n}`).join(' ')}`);
console.log(`time ${seconds.toFixed(1)} s (${(chars / 1e6 / seconds).toFixed(1)} M chars/s)`);
