/**
 * The Harel corpus as a site owner's crawl would give it: a copy of `../shared/data/harel/corpus`
 * in which each pre-parsed PDF that `../shared/data/harel-feb-raw` holds in the same edition (the
 * same document by its words, builder/eval/reading-order.ts, and the same page count, so the
 * questions' pages stay right) is replaced by that original PDF, which `build` then reads with
 * the project's own parser. Measures what the reversed word order of the pre-parsed text costs
 * the answers (docs/evaluation.md, "Reading order of pre-parsed PDFs").
 *
 *   npx tsx builder/eval/own-parse-corpus.ts --out .tmp/own-corpus [--raw-cache .tmp/raw-parse.json]
 *   npx harel-builder build .tmp/own-corpus --out .tmp/harel-own --no-embed
 *
 * The copy holds the insurer's documents: keep it outside the repository (the data's README).
 */
import { copyFileSync, cpSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { parseArgs } from 'node:util';
import { HAREL_DATA_DIR, hasHarelData, loadCorpus } from './harel-corpus.ts';
import { documentPairs, parseReference, RAW_DIR } from './reading-order.ts';

const USAGE = 'usage: npx tsx builder/eval/own-parse-corpus.ts --out <dir> [--raw-cache <file.json>]';

async function main(): Promise<void> {
  const { values } = parseArgs({ options: { out: { type: 'string' }, 'raw-cache': { type: 'string' } } });
  if (!values.out) throw new Error(USAGE);
  if (!hasHarelData()) throw new Error(`the Harel data is not at ${HAREL_DATA_DIR}: nothing to copy`);
  const corpus = loadCorpus();
  const raw = await parseReference({ cache: values['raw-cache'] });
  const pageCount = (file: string) => (JSON.parse(readFileSync(join(HAREL_DATA_DIR, 'corpus', `${file}.json`), 'utf8')) as { pages: unknown[] }).pages.length;
  const pairs = documentPairs(raw, corpus).filter(([rawFile, file]) => pageCount(file) === raw[rawFile].length);
  rmSync(values.out, { recursive: true, force: true });
  cpSync(join(HAREL_DATA_DIR, 'corpus'), values.out, { recursive: true });
  for (const [rawFile, file] of pairs) {
    rmSync(join(values.out, `${file}.json`));
    mkdirSync(dirname(join(values.out, file)), { recursive: true });
    copyFileSync(join(RAW_DIR, rawFile), join(values.out, file));
  }
  writeFileSync(
    `${values.out}.replaced.json`,
    `${JSON.stringify(
      pairs.map(([, file]) => file),
      null,
      1,
    )}\n`,
  );
  process.stdout.write(`${pairs.length} pre-parsed PDFs replaced by their originals in ${values.out} (listed in ${values.out}.replaced.json)\n`);
}

main().catch((error: unknown) => {
  process.stderr.write(`${error instanceof Error ? error.message : String(error)}\n`);
  process.exit(1);
});
