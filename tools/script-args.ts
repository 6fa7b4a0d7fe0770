/**
 * Options for the project's npm scripts (eval:browser, bench, bench:crawl, screenshots, preview,
 * demo): `--help` (or `-h`) prints the script's usage and exits 0; an unknown or malformed option
 * prints one line and the usage on stderr and exits 2 — never a stack trace.
 */
import { parseArgs, type ParseArgsConfig } from 'node:util';

function isParseArgsError(error: unknown): error is Error {
  return error instanceof Error && 'code' in error && String((error as { code: unknown }).code).startsWith('ERR_PARSE_ARGS');
}

function withNewline(text: string): string {
  return text.endsWith('\n') ? text : `${text}\n`;
}

/** Prints `message` and the usage on stderr and exits 2: a wrong command line. */
export function usageError(usage: string, message: string): never {
  process.stderr.write(`error: ${message}\n\n${withNewline(usage)}`);
  process.exit(2);
}

/** `parseArgs` over `config.args` (default: the process's arguments), with --help and clean errors. */
export function parseScriptArgs<const T extends ParseArgsConfig>(usage: string, config: T): ReturnType<typeof parseArgs<T>> {
  const args = config.args ?? process.argv.slice(2);
  const end = args.indexOf('--');
  const own = end === -1 ? args : args.slice(0, end);
  if (own.includes('--help') || own.includes('-h')) {
    process.stdout.write(withNewline(usage));
    process.exit(0);
  }
  try {
    return parseArgs({ ...config, args }) as ReturnType<typeof parseArgs<T>>;
  } catch (error) {
    if (isParseArgsError(error)) usageError(usage, error.message);
    throw error;
  }
}
