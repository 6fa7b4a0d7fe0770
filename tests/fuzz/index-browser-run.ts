/**
 * `npm run fuzz -- --target index-browser`: tests/fuzz/index-browser.ts on a page of its own. One
 * static server serves the page (`<harel-chat index="/index/manifest.json" model-base="/models/"
 * mode="extractive">`), the widget's bundle (built into a temporary folder), the tiny TEST embedder
 * and the builds it publishes; one Chromium page, in a fresh context, meets every case.
 */
import { existsSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { chromium } from 'playwright-core';
import { DEMO_PATHS, prepareTestIndex } from '../../demo/scripts/prepare-demo.ts';
import { buildWidgetBundle } from '../support/build-widget.ts';
import { CHROMIUM_ARGS, findChromium } from '../support/chromium.ts';
import { fuzzIndexInBrowser, type IndexBrowserOptions, type IndexBrowserReport, readIndexFolder, startIndexPublisher } from './index-browser.ts';

const PAGE = `<!doctype html>
<html lang="en" dir="ltr"><head><meta charset="utf-8"><title>index mutants</title>
<script type="module" src="/widget/harel-chat.js"></script></head>
<body><harel-chat index="/index/manifest.json" model-base="/models/" mode="extractive" lang="en"></harel-chat></body></html>`;

export async function runIndexBrowserFuzz(
  options: Pick<IndexBrowserOptions, 'seed' | 'runs' | 'limitMs' | 'onCase' | 'onOutcome'> & { log?: (line: string) => void },
): Promise<IndexBrowserReport & { goodBuildId: string }> {
  const log = options.log ?? (() => {});
  // The browser tests' index (their global setup writes it); built here only when it is missing.
  if (!existsSync(join(DEMO_PATHS.index, 'manifest.json'))) {
    log('index-browser: building the tests’ index…');
    await prepareTestIndex({ quiet: true });
  }
  const good = await readIndexFolder(DEMO_PATHS.index);
  const work = await mkdtemp(join(tmpdir(), 'harel-fuzz-widget-'));
  log('index-browser: building the widget bundle…');
  await buildWidgetBundle(join(work, 'widget'));
  const publisher = await startIndexPublisher({ page: PAGE, mounts: { '/widget/': join(work, 'widget'), '/models/': DEMO_PATHS.modelDir } });
  const browser = await chromium.launch({ executablePath: findChromium(), args: CHROMIUM_ARGS });
  try {
    const context = await browser.newContext();
    const page = await context.newPage();
    const report = await fuzzIndexInBrowser(page, { ...options, good, publisher, appUrl: `${publisher.origin}/` });
    await context.close();
    return { ...report, goodBuildId: good.manifest.buildId };
  } finally {
    await browser.close();
    await publisher.close();
    await rm(work, { recursive: true, force: true });
  }
}
