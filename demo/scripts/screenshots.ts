/**
 * `npm run screenshots`: pictures of the demo for the README, in Chromium (the one the browser
 * tests use): 360 and 1280 px wide, Hebrew and English, each with an answer and its first
 * citation card open. Writes docs/screenshots/<lang>-<width>.png at device scale 1 (small files).
 * Serves the demo itself (the dev server, on $PORT or 5181) with the demo index built first.
 */
import { mkdir } from 'node:fs/promises';
import { resolve } from 'node:path';
import { chromium } from 'playwright-core';
import { createServer } from 'vite';
import { CHROMIUM_ARGS, findChromium } from '../../builder/browser/chromium.ts';
import { parseScriptArgs } from '../../tools/script-args.ts';
import { prepareDemo } from './prepare-demo.ts';

const OUT = resolve('docs/screenshots');
const SIZES = [
  { width: 360, height: 740 },
  { width: 1280, height: 860 },
];
const QUESTIONS = {
  he: 'כמה השתתפות עצמית אשלם על החלפת שמשה קדמית?',
  en: 'How soon must I report a home insurance claim?',
} as const;

const USAGE = `usage: npm run screenshots
  Pictures of the demo for the README in Chromium: 360 and 1280 px wide, Hebrew and English, each
  with an answer and its first citation card open, written to docs/screenshots/<lang>-<width>.png.
  Serves the demo on $PORT (default 5181) with the demo index built first. No options.
  --help   this text`;
parseScriptArgs(USAGE, { options: {} });

process.env.HAREL_INDEX_DIR = await prepareDemo({ quiet: true });
process.env.HAREL_NO_HMR = '1';
const port = Number(process.env.PORT ?? 5181);
const server = await createServer({ configFile: resolve('vite.config.ts'), logLevel: 'error', server: { port, strictPort: true } });
await server.listen();
const browser = await chromium.launch({ executablePath: findChromium(), args: CHROMIUM_ARGS });
try {
  await mkdir(OUT, { recursive: true });
  for (const lang of ['he', 'en'] as const) {
    for (const size of SIZES) {
      const context = await browser.newContext({ viewport: size, deviceScaleFactor: 1, locale: lang === 'he' ? 'he-IL' : 'en-US' });
      const page = await context.newPage();
      await page.goto(`http://localhost:${port}/?lang=${lang}`);
      await page.locator('harel-chat [part~="status"][data-state="ready"]').waitFor({ state: 'attached', timeout: 60_000 });
      await page.evaluate((q) => document.querySelector('harel-chat')!.ask(q), QUESTIONS[lang]);
      const reply = page.locator('harel-chat article.msg.assistant').last();
      await reply.locator('button.cite').first().click();
      // The opened card scrolls into view smoothly; wait for it to settle before the picture.
      await page.waitForTimeout(600);
      await reply.locator('details.card[open]').first().waitFor();
      const file = resolve(OUT, `${lang}-${size.width}.png`);
      await page.screenshot({ path: file, animations: 'disabled', caret: 'hide' });
      process.stdout.write(`${file}\n`);
      await context.close();
    }
  }
} finally {
  await browser.close();
  await server.close();
}
