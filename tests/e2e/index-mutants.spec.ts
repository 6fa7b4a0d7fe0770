/**
 * Index mutants published over a stored good build (the short version of
 * `npm run fuzz -- --target index-browser`, tests/fuzz/index-browser.ts). The demo page on the tests'
 * dev server points its `<harel-chat>` at a static server of its own, which publishes the tests'
 * index (stored in IndexedDB on the first load), then 8 mutants of it from the index fuzzer's
 * generator, one per reload. Each is refused while the stored build answers with citations and the
 * details give the code, or read as a new build that answers; never a page error, a page with no
 * index or a hang. A failure names its case seed: `npm run fuzz -- --target index-browser --seed
 * <case seed> --runs 1` replays it.
 */
import { expect, test } from '@playwright/test';
import { DEMO_PATHS } from '../../demo/scripts/prepare-demo.ts';
import { fuzzIndexInBrowser, type IndexPublisher, readIndexFolder, startIndexPublisher } from '../fuzz/index-browser.ts';

/**
 * Cases 66–73: a mix (in Node's reader: 5 INDEX_CORRUPT — a documents field, bm25 and chunks
 * headers, the manifest's format —, 2 INDEX_INTEGRITY — flipped chunk bits, a cut vector file not
 * vouched for —, and one read as a new build).
 */
const SEED = 66;
const RUNS = 8;

let publisher: IndexPublisher | undefined;

test.afterAll(async () => {
  await publisher?.close();
});

test(`${RUNS} index mutants published over a stored good build: the good build keeps answering, the details say why`, async ({ page, baseURL }) => {
  test.setTimeout(90_000);
  const good = await readIndexFolder(DEMO_PATHS.index);
  publisher = await startIndexPublisher();
  const appUrl = `${baseURL}/?lang=en&mode=extractive&index=${encodeURIComponent(publisher.manifestUrl)}`;
  const outcomes: string[] = [];
  const report = await fuzzIndexInBrowser(page, { seed: SEED, runs: RUNS, good, publisher, appUrl, onOutcome: (seed, _m, outcome) => outcomes.push(`${seed}: ${outcome}`) });
  expect(report.failures).toEqual([]);
  expect(report.runs).toBe(RUNS);
  const refused = Object.values(report.refused).reduce((a, b) => a + b, 0);
  expect(refused + report.readOk).toBe(RUNS);
  expect(refused, outcomes.join('\n')).toBeGreaterThan(0);
  expect(report.goodAnswers).toBe(refused);
});
