/** `harel-builder build <input…> --out <dir>`: argument parsing and the summary; the work is in ../pipeline/. */
import { readFile, stat } from 'node:fs/promises';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { checkQueryModelPairing, type QueryModelConfig } from '../../widget/core/embedding/query-model.ts';
import { createError, isHarelError } from '../errors.ts';
import { FILE_TIMEOUT_MS } from '../ingest/index.ts';
import { buildIndex, type BuildSummary } from '../pipeline/build-index.ts';
import { numberOption, optionalNumber, positiveInt } from '../cli/args.ts';
import { runCancellable } from '../cli/cancellable.ts';
import { createProgressReporter } from '../cli/progress.ts';
import { defaultEmbedder } from '../embed/local-model.ts';
import { readSiteConfig } from '../write/site-config.ts';
import { FRAGMENT_MIN_CHUNKS } from '../write/write-index.ts';

/** `--file-timeout` in build's usage (builder/cli.ts), repeated in the error for a bad value. */
export const FILE_TIMEOUT_USAGE = `--file-timeout <seconds>  per-file parse limit (default ${FILE_TIMEOUT_MS / 1000}); a file over it is skipped as PARSE_TIMEOUT`;

/** The largest delay setTimeout keeps (2^31 - 1 ms, about 24.8 days); a longer one would fire at once. */
const MAX_TIMEOUT_MS = 2 ** 31 - 1;

/** `--file-timeout <seconds>` → ms for the ingest step; undefined (its 30 s default) when not given. */
export function fileTimeoutOption(value: string | undefined): number | undefined {
  if (value === undefined) return undefined;
  const seconds = value.trim() === '' ? Number.NaN : Number(value);
  const ms = Math.round(seconds * 1000);
  if (!Number.isFinite(seconds) || ms < 1 || ms > MAX_TIMEOUT_MS) {
    throw createError(
      'BAD_ARGUMENT',
      `--file-timeout must be a positive number of seconds (at most ${Math.floor(MAX_TIMEOUT_MS / 1000)}), not "${value}". Usage: harel-builder build <input…> --out <dir> ${FILE_TIMEOUT_USAGE}.`,
    );
  }
  return ms;
}

/**
 * `--query-model`: refused before any work when the model folder says it was trained against
 * other passages (a folder --model-dir does not hold is written as given: a site may serve it).
 */
async function checkBuildQueryModel(queryModel: string, embedder: string, modelDir: string | undefined, noEmbed: boolean): Promise<void> {
  if (!queryModel) throw createError('BAD_ARGUMENT', '--query-model needs a model id.');
  if (noEmbed) throw createError('BAD_ARGUMENT', '--query-model names the model that embeds questions, and --no-embed builds an index without vectors: leave one out.');
  if (!modelDir) return;
  const config = await readFile(join(modelDir, queryModel, 'config.json'), 'utf8').then(
    (text) => JSON.parse(text) as QueryModelConfig,
    () => null,
  );
  checkQueryModelPairing(embedder, queryModel, config);
}

export async function buildCommand(argv: string[]): Promise<number> {
  const { values, positionals } = parseArgs({
    args: argv,
    allowPositionals: true,
    options: {
      out: { type: 'string', short: 'o' },
      'no-embed': { type: 'boolean' },
      embedder: { type: 'string' },
      'model-dir': { type: 'string' },
      'allow-remote': { type: 'boolean' },
      dtype: { type: 'string' },
      'max-tokens': { type: 'string' },
      overlap: { type: 'string' },
      'cache-dir': { type: 'string' },
      'embed-threads': { type: 'string' },
      'bm25-weight': { type: 'string' },
      'term-match': { type: 'string' },
      site: { type: 'string' },
      'file-timeout': { type: 'string' },
      'reading-order': { type: 'boolean' },
      'query-model': { type: 'string' },
      fragments: { type: 'string' },
      quiet: { type: 'boolean', short: 'q' },
    },
  });
  if (positionals.length === 0) throw createError('BAD_ARGUMENT', 'build needs at least one input folder.');
  const outDir = values.out;
  if (!outDir) throw createError('BAD_ARGUMENT', 'build needs --out <dir>.');
  for (const input of positionals) {
    try {
      await stat(input);
    } catch {
      throw createError('INPUT_NOT_FOUND', input);
    }
  }
  const dtype = values.dtype;
  if (dtype !== undefined && dtype !== 'q8' && dtype !== 'q4' && dtype !== 'fp32') throw createError('BAD_ARGUMENT', `--dtype must be q8, q4 or fp32, not "${dtype}".`);
  const termMatch = values['term-match'];
  // Prefix matching measured 22 % page hit@5 against whole terms' 28 % and needs a walk over the
  // whole dictionary per query term; index format 2 keeps whole terms only.
  if (termMatch !== undefined && termMatch !== 'whole') {
    throw createError('BAD_ARGUMENT', `--term-match ${termMatch} is not supported since index format 2: BM25 terms match whole. Leave the option out.`);
  }
  const fragments = values.fragments ?? 'auto';
  if (fragments !== 'auto' && fragments !== 'whole' && fragments !== 'split') {
    throw createError('BAD_ARGUMENT', `--fragments must be auto (split from ${FRAGMENT_MIN_CHUNKS.toLocaleString('en')} chunks on), whole or split, not "${fragments}".`);
  }
  const fileTimeoutMs = fileTimeoutOption(values['file-timeout']);
  // Checked before any work: a typo in the site file fails at once, not after the embedding.
  const site = values.site === undefined ? null : await readSiteConfig(values.site);
  const embedder = await defaultEmbedder(values.embedder, values['model-dir']);
  const queryModel = values['query-model'];
  if (queryModel !== undefined) await checkBuildQueryModel(queryModel, embedder, values['model-dir'], Boolean(values['no-embed']));
  const progress = createProgressReporter({ quiet: Boolean(values.quiet) });
  let summary: BuildSummary;
  let cancelled = (): boolean => false;
  try {
    summary = await runCancellable(progress, 'cancelling: the index already in --out stays as it was', (signal) => {
      cancelled = () => signal.aborted;
      return buildIndex({
        inputs: positionals,
        outDir,
        embed: !values['no-embed'],
        embedder,
        modelDir: values['model-dir'],
        allowRemote: Boolean(values['allow-remote']),
        dtype,
        embedThreads: values['embed-threads'] === undefined ? undefined : Math.min(8, positiveInt(values['embed-threads'], '--embed-threads', 1)),
        maxTokens: numberOption(values['max-tokens'], '--max-tokens', 350, 32, 512),
        overlap: numberOption(values.overlap, '--overlap', 0.15, 0, 0.5),
        cacheDir: values['cache-dir'],
        bm25Weight: optionalNumber(values['bm25-weight'], '--bm25-weight', 0, 1),
        site,
        termMatch,
        fileTimeoutMs,
        readingOrder: Boolean(values['reading-order']),
        queryModel,
        fragments,
        signal,
        onProgress: progress.onProgress,
        log: progress.log,
        // A repair of --out after an interrupted build is said even with --quiet.
        notice: (message) => (values.quiet ? process.stderr.write(`${message}\n`) : progress.log(message)),
      });
    });
  } catch (error) {
    // Ctrl-C: every step stops at its next pause, the write deletes its temporary folder and never
    // touches --out. 130 = 128 + SIGINT, as shells report it.
    if (!isHarelError(error, 'ABORTED')) throw error;
    process.stderr.write(`cancelled: nothing was written; ${outDir} is as it was before the build\n`);
    return 130;
  }
  // Ctrl-C in the instant between the swap and the end: the new build is already in place.
  if (cancelled()) process.stderr.write(`too late to cancel: the new index was already in place in ${outDir}\n`);
  const lines = [
    `index ${summary.manifest.buildId} written to ${values.out} in ${(summary.ms / 1000).toFixed(1)} s`,
    `  ${summary.manifest.counts.documents} documents, ${summary.manifest.counts.pages} pages, ${summary.manifest.counts.chunks} chunks, ${(summary.bytes / 1024).toFixed(0)} KB (${(summary.bytes / Math.max(1, summary.manifest.counts.chunks)).toFixed(0)} bytes/chunk)`,
    `  chunks vs previous build: ${summary.diff.added} added, ${summary.diff.removed} removed, ${summary.diff.kept} unchanged; ${summary.embedded} embedded, ${summary.embedCacheHits} from the embedding cache or repeating another chunk's text`,
    summary.manifest.embedder
      ? `  embedder ${summary.manifest.embedder.id}${summary.manifest.embedder.fixture ? ' (test fixture)' : ''}${summary.manifest.embedder.queryModel ? `; questions: ${summary.manifest.embedder.queryModel}` : ''}`
      : '  BM25-only (no vectors)',
  ];
  if (summary.readingOrder.reordered > 0) {
    lines.push(`  ${summary.readingOrder.reordered} of ${summary.readingOrder.lines} lines of pre-parsed PDFs put back in reading order`);
  }
  if (summary.skipped.length) {
    lines.push(`  skipped ${summary.skipped.length} file(s):`);
    for (const s of summary.skipped) lines.push(`    - [${s.code}] ${s.reason}`);
  }
  if (summary.warnings.length) {
    lines.push(`  ${summary.warnings.length} warning(s):`);
    for (const w of summary.warnings) lines.push(`    - ${w.message}`);
  }
  // Duplicates are expected on a real site (the same PDF linked from several pages): --quiet
  // counts them on one line instead of listing each.
  if (summary.duplicates.length && values.quiet) {
    lines.push(`  ${summary.duplicates.length} duplicate file(s) indexed once (run without --quiet to list them)`);
  } else if (summary.duplicates.length) {
    lines.push(`  ${summary.duplicates.length} duplicate file(s) indexed once:`);
    for (const s of summary.duplicates) lines.push(`    - ${s.reason}`);
  }
  process.stdout.write(`${lines.join('\n')}\n`);
  return 0;
}
