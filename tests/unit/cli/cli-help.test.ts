/** `--help` after any command prints that command's usage and exits 0 (it used to fail as an unknown option). */
import { readFileSync } from 'node:fs';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { main } from '../../../builder/cli.ts';

function captured(): { out: () => string } {
  let out = '';
  vi.spyOn(process.stdout, 'write').mockImplementation((chunk: string | Uint8Array) => {
    out += String(chunk);
    return true;
  });
  return { out: () => out };
}

afterEach(() => vi.restoreAllMocks());

describe('harel-builder <command> --help', () => {
  const commands: [string, RegExp][] = [
    ['crawl', /--max-pages/],
    ['build', /--no-embed/],
    ['inspect', /--samples/],
    ['search', /--mode bm25\|vector\|hybrid/],
    ['eval', /--questions <file>/],
    ['fixture-embedder', /TEST embedder/],
  ];
  it.each(commands)('%s --help prints its own usage, not the others', async (command, option) => {
    const io = captured();
    expect(await main([command, '--help'])).toBe(0);
    expect(io.out()).toMatch(option);
    expect(io.out()).toContain(`harel-builder ${command} `);
    for (const [other] of commands) if (other !== command) expect(io.out()).not.toContain(`harel-builder ${other} `);
  });

  it('takes -h anywhere among the arguments, and "help <command>"', async () => {
    const io = captured();
    expect(await main(['build', 'some/folder', '--out', 'x', '-h'])).toBe(0);
    expect(await main(['help', 'inspect'])).toBe(0);
    expect(io.out()).toMatch(/--no-embed[\s\S]*--samples/);
  });

  it('eval --help names every option eval takes', async () => {
    const source = readFileSync(new URL('../../../builder/commands/eval.ts', import.meta.url), 'utf8');
    const block = /options: \{([\s\S]*?)\n {4}\},\n {2}\}\);/.exec(source)?.[1] ?? '';
    const options = [...block.matchAll(/^\s+'?([a-z0-9-]+)'?: \{ type:/gm)].map((m) => m[1]);
    expect(options.length).toBeGreaterThan(15);
    const io = captured();
    expect(await main(['eval', '--help'])).toBe(0);
    for (const option of options) expect(io.out()).toContain(`--${option}`);
  });
});
