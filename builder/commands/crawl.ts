/** `harel-builder crawl <start-url…> --out <dir>`: argument parsing and the summary; the work is in ../crawl/. */
import { readFileSync } from 'node:fs';
import { parseArgs } from 'node:util';
import { createError } from '../errors.ts';
import { numberOption, positiveInt } from '../cli/args.ts';
import { runCancellable } from '../cli/cancellable.ts';
import { createProgressReporter } from '../cli/progress.ts';
import { CRAWL_DEFAULTS } from '../crawl/crawl-options.ts';
import { crawl, type CrawlSummary } from '../crawl/crawler.ts';
import { parseDomainRules } from '../crawl/domain-map.ts';
import { displayUrl } from '../crawl/normalize-url.ts';

/** `--domain-map` takes rules inline or a JSON file of `{ "<prefix>": "<domain>" }`. */
function domainRuleValues(values: readonly string[]): string[] {
  return values.flatMap((value) => {
    if (!value.endsWith('.json')) return [value];
    let json: unknown;
    try {
      json = JSON.parse(readFileSync(value, 'utf8'));
    } catch (error) {
      throw createError('BAD_ARGUMENT', `--domain-map ${value}: ${error instanceof Error ? error.message : String(error)}.`);
    }
    if (typeof json !== 'object' || json === null || Array.isArray(json)) {
      throw createError('BAD_ARGUMENT', `--domain-map ${value} must hold an object such as {"/insurance/car/": "car"}.`);
    }
    return Object.entries(json).map(([prefix, domain]) => `${prefix}=${String(domain)}`);
  });
}

function seconds(ms: number): string {
  return ms < 60_000 ? `${(ms / 1000).toFixed(1)} s` : `${Math.floor(ms / 60_000)} min ${Math.round((ms % 60_000) / 1000)} s`;
}

function formatSummary(summary: CrawlSummary): string {
  const c = summary.counts;
  const ended = {
    finished: 'finished',
    limit: 'stopped at --max-pages (run again with a higher limit to go on)',
    interrupted: 'interrupted: run the same command again to resume',
  }[summary.end];
  const lines = [
    `crawl ${ended}${summary.resumed ? ' (resumed)' : ''} in ${seconds(summary.ms)}, ${summary.requests} requests`,
    `  ${summary.files} files in ${summary.outDir}/manifest.json: ${c.new} new, ${c.changed} changed, ${c.same} re-downloaded unchanged, ${c.unchanged} not modified (304)`,
    `  ${c.duplicate} duplicate content, ${c.alias} redirected to a URL already crawled, ${c.skipped} skipped, ${c.failed} failed${c.removed ? `, ${c.removed} removed (gone from the site)` : ''}`,
  ];
  const redirects = Object.entries(summary.redirects);
  if (redirects.length) {
    lines.push(`  redirects (${redirects.length}):`);
    for (const [from, to] of redirects) lines.push(`    ${displayUrl(from)} → ${displayUrl(to)}`);
  }
  if (summary.skipped.length) {
    lines.push(`  skipped (${summary.skipped.length}):`);
    for (const s of summary.skipped) lines.push(`    - ${displayUrl(s.url)}: ${s.reason}`);
  }
  if (summary.failures.length) {
    lines.push(`  failed (${summary.failures.length}):`);
    for (const f of summary.failures) lines.push(`    - [${f.code}] ${displayUrl(f.message)}`);
  }
  return `${lines.join('\n')}\n`;
}

export async function crawlCommand(argv: string[]): Promise<number> {
  const { values, positionals } = parseArgs({
    args: argv,
    allowPositionals: true,
    options: {
      out: { type: 'string', short: 'o' },
      include: { type: 'string', multiple: true },
      exclude: { type: 'string', multiple: true },
      'max-pages': { type: 'string' },
      'max-depth': { type: 'string' },
      concurrency: { type: 'string' },
      delay: { type: 'string' },
      timeout: { type: 'string' },
      'render-timeout': { type: 'string' },
      'max-bytes': { type: 'string' },
      retries: { type: 'string' },
      'domain-map': { type: 'string', multiple: true },
      'user-agent': { type: 'string' },
      'no-sitemaps': { type: 'boolean' },
      'no-render': { type: 'boolean' },
      browser: { type: 'string' },
      fresh: { type: 'boolean' },
      quiet: { type: 'boolean', short: 'q' },
    },
  });
  if (positionals.length === 0) throw createError('BAD_ARGUMENT', 'crawl needs at least one start URL.');
  const outDir = values.out;
  if (!outDir) throw createError('BAD_ARGUMENT', 'crawl needs --out <dir>.');
  const progress = createProgressReporter({ quiet: Boolean(values.quiet) });
  const summary = await runCancellable(progress, 'stopping: finishing the requests in flight and saving the state', (signal) =>
    crawl({
      startUrls: positionals,
      outDir,
      include: values.include,
      exclude: values.exclude,
      maxPages: positiveInt(values['max-pages'], '--max-pages', CRAWL_DEFAULTS.maxPages),
      maxDepth: numberOption(values['max-depth'], '--max-depth', CRAWL_DEFAULTS.maxDepth, 0, 1000),
      concurrency: positiveInt(values.concurrency, '--concurrency', CRAWL_DEFAULTS.concurrency),
      delayMs: numberOption(values.delay, '--delay', CRAWL_DEFAULTS.delayMs / 1000, 0, 3600) * 1000,
      timeoutMs: numberOption(values.timeout, '--timeout', CRAWL_DEFAULTS.timeoutMs / 1000, 1, 3600) * 1000,
      renderTimeoutMs: numberOption(values['render-timeout'], '--render-timeout', CRAWL_DEFAULTS.renderTimeoutMs / 1000, 0.1, 600) * 1000,
      maxBytes: numberOption(values['max-bytes'], '--max-bytes', CRAWL_DEFAULTS.maxBytes, 1024, 2 ** 40),
      retries: numberOption(values.retries, '--retries', CRAWL_DEFAULTS.retries, 0, 20),
      domainRules: parseDomainRules(domainRuleValues(values['domain-map'] ?? [])),
      userAgent: values['user-agent'],
      sitemaps: !values['no-sitemaps'],
      render: !values['no-render'],
      browserPath: values.browser,
      fresh: Boolean(values.fresh),
      signal,
      onProgress: progress.onProgress,
      log: progress.log,
    }),
  );
  process.stdout.write(formatSummary(summary));
  return summary.end === 'interrupted' ? 130 : 0;
}
