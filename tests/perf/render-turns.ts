/**
 * How long one state change of <harel-chat> takes to render as the conversation grows: a figure to
 * report, not a test (timings depend on the machine, and nothing here asserts them).
 *
 *   npx vite --config vite.config.ts --port 4193 --strictPort &   # HAREL_INDEX_DIR=demo/.generated/index
 *   npx tsx tests/perf/render-turns.ts http://localhost:4193
 *
 * Opens the demo, asks one real question (an answer with citations), then fills the conversation
 * with copies of that exchange (each turn its own object, as a restored conversation would be)
 * and times, with performance.now in the page, from a state change to the end of Lit's update
 * ("update") and to the end of the layout it causes ("+layout"). Two changes are timed:
 * - state: the answer loop moves a step (the streaming bubble and the stop button appear or go),
 *   what happens several times per question and on every streamed token;
 * - append: one exchange is added to the conversation, what happens once per answer.
 */
import { chromium } from 'playwright-core';
import { CHROMIUM_ARGS, findChromium } from '../support/chromium.ts';

const base = process.argv[2] ?? 'http://localhost:4178';
const SIZES = [2, 100, 200, 400];
const RUNS = 15;

interface Figures {
  turns: number;
  state: { update: number; layout: number };
  append: { update: number; layout: number };
}

const browser = await chromium.launch({ executablePath: findChromium(), args: CHROMIUM_ARGS });
try {
  const page = await browser.newPage();
  // tsx keeps function names with a `__name` helper that the page does not have.
  await page.addInitScript('globalThis.__name = (f) => f');
  await page.goto(`${base}/?lang=en&mode=extractive`);
  await page.locator('harel-chat [part~="status"][data-state="ready"]').waitFor({ timeout: 60_000 });
  await page.evaluate(() => document.querySelector('harel-chat')!.ask('How soon must I report a home insurance claim?'));

  const figures: Figures[] = [];
  for (const size of SIZES) {
    figures.push(
      await page.evaluate(
        async ({ size, runs }) => {
          type El = HTMLElement & {
            updateComplete: Promise<boolean>;
            requestUpdate(): void;
            session: { turns: unknown[]; answering: string | null };
          };
          const el = document.querySelector('harel-chat') as unknown as El;
          const session = el.session;
          const pair = session.turns.slice(-2);
          const fill = (n: number) => Array.from({ length: n }, (_, i) => structuredClone(pair[i % 2]));
          const layout = () => (el.shadowRoot!.querySelector('.log') as HTMLElement).offsetHeight;
          const median = (xs: number[]) => xs.slice().sort((a, b) => a - b)[Math.floor(xs.length / 2)];
          async function time(change: () => void) {
            const t0 = performance.now();
            change();
            el.requestUpdate();
            await el.updateComplete;
            const t1 = performance.now();
            layout();
            return { update: t1 - t0, layout: performance.now() - t0 };
          }
          session.turns = fill(size);
          el.requestUpdate();
          await el.updateComplete;
          layout();
          const state: { update: number; layout: number }[] = [];
          for (let r = 0; r < runs; r++) {
            state.push(await time(() => (session.answering = session.answering ? null : 'search')));
          }
          session.answering = null;
          const append: { update: number; layout: number }[] = [];
          for (let r = 0; r < runs; r++) {
            session.turns = fill(size);
            el.requestUpdate();
            await el.updateComplete;
            layout();
            append.push(await time(() => (session.turns = [...session.turns, ...fill(2)])));
          }
          const pick = (xs: { update: number; layout: number }[]) => ({ update: median(xs.map((x) => x.update)), layout: median(xs.map((x) => x.layout)) });
          return { turns: size, state: pick(state), append: pick(append) };
        },
        { size, runs: RUNS },
      ),
    );
  }
  const ms = (x: number) => `${x.toFixed(1)} ms`;
  console.log(`median of ${RUNS} runs, ${base}`);
  console.log('turns  state: update / +layout    append: update / +layout');
  for (const f of figures) {
    console.log(`${String(f.turns).padStart(5)}  ${ms(f.state.update).padStart(9)} / ${ms(f.state.layout).padStart(9)}    ${ms(f.append.update).padStart(9)} / ${ms(f.append.layout).padStart(9)}`);
  }
} finally {
  await browser.close();
}
