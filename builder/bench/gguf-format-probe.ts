/**
 * Whether the prompt's format is why the GGUF model does not answer: the same sources and rules
 * (webllm/prompt.ts, as the loop builds them for each question) rendered in each raw format of
 * gguf-prompt.ts — Gemma's turns, which the engine uses for the PyPI Gemma 3 270M, and a plain
 * completion prompt, the format a base model was trained on — and completed greedily by the model
 * in Chromium, outside the loop (no ground check, no retry), so only the format differs.
 *
 *   npx tsx builder/bench/gguf-format-probe.ts --index .tmp/harel-e5 \
 *       --questions ../shared/data/harel/questions/dev-v2.json --ids v2-001-apartment-easy,… [--out f.json]
 *
 * The page is the demo's with the GGUF engine (`models fetch` puts the model in models/); the
 * probe reaches the engine's llama.cpp instance through the page's element, which no public API
 * offers on purpose: a page only ever asks questions. docs/how-it-answers.md has the result.
 */
import { writeFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { chromium } from '@playwright/test';
import { createServer } from 'vite';
import { parseScriptArgs } from '../../tools/script-args.ts';
import type { GenerateRequest } from '../../widget/engines/engine.ts';
import { ExtractiveEngine } from '../../widget/engines/extractive.ts';
import { renderPrompt } from '../../widget/engines/gguf/gguf-prompt.ts';
import { buildAnswerPrompt } from '../../widget/engines/webllm/prompt.ts';
import { runAnswerLoop } from '../../widget/loop/machine.ts';
import { LocalSearchService } from '../../widget/search/local-search-service.ts';
import { CHROMIUM_ARGS, findChromium } from '../browser/chromium.ts';
import { loadQuestions } from '../eval/questions.ts';
import { withNodeEnv } from '../node-env.ts';
import { readIndexFolder } from '../read-index-folder.ts';

const USAGE = `usage: npx tsx builder/bench/gguf-format-probe.ts --index <dir> --questions <file> --ids <id,id,…> [--max-tokens 120] [--port 4293] [--out <file.json>]
  Each question's prompt in Gemma's turn format and as a plain completion, completed by the GGUF model in Chromium.`;
const { values } = parseScriptArgs(USAGE, {
  options: {
    index: { type: 'string' },
    questions: { type: 'string' },
    ids: { type: 'string' },
    'max-tokens': { type: 'string', default: '120' },
    port: { type: 'string', default: '4293' },
    out: { type: 'string' },
  },
});
if (!values.index || !values.questions || !values.ids) {
  process.stderr.write(`error: --index, --questions and --ids are needed\n\n${USAGE}\n`);
  process.exit(2);
}
const FORMATS = ['gemma-turns', 'plain'] as const;

interface Probe {
  id: string;
  format: (typeof FORMATS)[number];
  prompt: string;
  stop: string[];
}

/** The request the loop hands its engine for each question: the sources the model would be given. */
async function prompts(): Promise<Probe[]> {
  const index = await readIndexFolder(resolve(values.index!));
  const search = LocalSearchService.fromIndex(index);
  const wanted = new Set(values.ids!.split(','));
  const out: Probe[] = [];
  for (const q of (await loadQuestions(values.questions!)).filter((x) => wanted.has(x.id))) {
    const seen: { request?: GenerateRequest } = {};
    const quotation = new ExtractiveEngine();
    const engine = {
      mode: quotation.mode,
      generate: (r: GenerateRequest) => {
        seen.request ??= r;
        return quotation.generate(r);
      },
    };
    await runAnswerLoop({ question: q.question, history: [] }, { search, engine });
    const request = seen.request;
    if (!request) continue;
    // The GGUF engine's own budget (gguf-engine.ts: a 1,024-token prompt, a 160-token answer).
    const built = buildAnswerPrompt(request, { contextWindow: 1024, answerTokens: 160 });
    for (const format of FORMATS) {
      const raw = renderPrompt(built.messages, format);
      out.push({ id: q.id, format, prompt: raw.text, stop: raw.stop });
    }
  }
  return out;
}

const probes = await prompts();
const results = await withNodeEnv('development', async () => {
  process.env.HAREL_INDEX_DIR = resolve('demo/.generated/index');
  process.env.HAREL_NO_HMR = '1';
  const port = Number(values.port);
  const server = await createServer({ configFile: resolve('vite.config.ts'), logLevel: 'error', server: { port, strictPort: true } });
  await server.listen();
  const browser = await chromium.launch({ executablePath: findChromium(), args: CHROMIUM_ARGS });
  const out: { id: string; format: string; ms: number; text: string }[] = [];
  try {
    const page = await browser.newPage();
    page.setDefaultTimeout(0);
    await page.goto(`http://localhost:${port}/?mode=llm&llm-engine=gguf&gguf-answers=all&model-base=/models/`);
    await page.locator('harel-chat [part~="mode-badge"][data-mode="llm"]').waitFor({ state: 'attached', timeout: 900_000 });
    for (const probe of probes) {
      const result = await page.evaluate(
        async ({ prompt, stop, maxTokens }) => {
          // The gated engine's model (answer-gate.ts), and its llama.cpp instance (gguf-engine.ts).
          type Completion = { choices: { text: string }[] };
          type Llama = { createCompletion(o: { prompt: string; stop: string[]; max_tokens: number; temperature: number }): Promise<Completion> };
          const engine = (document.querySelector('harel-chat') as unknown as { session: { engine: { wllama?: Llama; model?: { wllama?: Llama } } } }).session.engine;
          const llama = engine.wllama ?? engine.model?.wllama;
          if (!llama) throw new Error('the page has no GGUF engine: is the model in models/ (npx harel-builder models fetch)?');
          const started = performance.now();
          const completion = await llama.createCompletion({ prompt, stop, max_tokens: maxTokens, temperature: 0 });
          return { ms: Math.round(performance.now() - started), text: completion.choices[0]?.text ?? '' };
        },
        { prompt: probe.prompt, stop: probe.stop, maxTokens: Number(values['max-tokens']) },
      );
      out.push({ id: probe.id, format: probe.format, ...result });
      process.stdout.write(`\n=== ${probe.id}, ${probe.format}, ${result.ms} ms\n${result.text}\n`);
      if (values.out) writeFileSync(values.out, `${JSON.stringify(out, null, 1)}\n`);
    }
  } finally {
    await browser.close();
    await server.close();
  }
  return out;
});
process.stdout.write(`\n${results.length} completions\n`);
