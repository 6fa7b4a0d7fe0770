/**
 * Every npm script that takes options answers as a newcomer expects (tools/script-args.ts):
 * `--help` prints its usage and exits 0; an unknown option prints one line and the usage on stderr
 * and exits 2, never a stack trace. Each script runs for real, in its own Node process.
 */
import { spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';

const ROOT = new URL('../../../', import.meta.url);
const SCRIPTS = (JSON.parse(readFileSync(new URL('package.json', ROOT), 'utf8')) as { scripts: Record<string, string> }).scripts;

/** npm script → the file it runs. */
const WITH_OPTIONS: Record<string, string> = {
  'eval:browser': 'builder/eval/browser/cli.ts',
  bench: 'builder/bench/bench.ts',
  'bench:crawl': 'builder/bench/crawl-bench.ts',
  screenshots: 'demo/scripts/screenshots.ts',
  preview: 'demo/scripts/preview.ts',
  demo: 'demo/scripts/demo.ts',
  'demo:prepare': 'demo/scripts/prepare-demo.ts',
  'bench:query-model': 'demo/scripts/query-model-bench.ts',
  soak: 'demo/scripts/soak.ts',
};

function run(file: string, args: string[]): Promise<{ code: number | null; stdout: string; stderr: string }> {
  return new Promise((done, fail) => {
    const child = spawn(process.execPath, ['--import', 'tsx', file, ...args], { cwd: ROOT, env: { ...process.env, PORT: '0' } });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d) => (stdout += d));
    child.stderr.on('data', (d) => (stderr += d));
    child.on('error', fail);
    child.on('close', (code) => done({ code, stdout, stderr }));
  });
}

describe('npm scripts with options', () => {
  for (const [script, file] of Object.entries(WITH_OPTIONS)) {
    it(`${script}: --help prints the usage, an unknown option one line and the usage`, async () => {
      expect(SCRIPTS[script], `package.json runs ${file} as "${script}"`).toContain(file);
      const [help, wrong] = await Promise.all([run(file, ['--help']), run(file, ['--no-such-option'])]);
      expect(help.code, help.stderr).toBe(0);
      expect(help.stdout).toMatch(/^usage: npm run /);
      expect(help.stdout).toContain('--help');
      expect(wrong.code, wrong.stderr).toBe(2);
      expect(wrong.stderr).toMatch(/^error: .*--no-such-option.*\n\nusage: npm run /);
      expect(wrong.stderr).not.toMatch(/^\s+at /m);
      expect(wrong.stdout).toBe('');
    });
  }
});
