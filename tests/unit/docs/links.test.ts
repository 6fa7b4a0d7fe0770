/**
 * Every relative link in README.md and docs/*.md leads somewhere: the file exists, and an #anchor
 * names a heading of the page it points to (GitHub's heading ids). Links inside code are not links.
 */
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

const ROOT = fileURLToPath(new URL('../../../', import.meta.url));
const PAGES = [
  'README.md',
  ...readdirSync(join(ROOT, 'docs'))
    .filter((f) => f.endsWith('.md'))
    .map((f) => `docs/${f}`),
];

/** The text outside fenced code blocks and inline code spans. */
function prose(markdown: string): string {
  return markdown.replace(/^(```|~~~)[^\n]*\n[\s\S]*?^\1[^\n]*$/gm, '').replace(/`[^`\n]*`/g, '');
}

/** GitHub's id for each heading of a page (github-slugger: lower case, punctuation dropped, spaces to hyphens, repeats numbered). */
function headingIds(markdown: string): Set<string> {
  const ids = new Set<string>();
  const seen = new Map<string, number>();
  const withoutFences = markdown.replace(/^(```|~~~)[^\n]*\n[\s\S]*?^\1[^\n]*$/gm, '');
  for (const match of withoutFences.matchAll(/^#{1,6}\s+(.+?)\s*#*\s*$/gm)) {
    const text = match[1].replace(/!?\[([^\]]*)\]\([^)]*\)/g, '$1');
    const base = text
      .toLowerCase()
      .replace(/[^\p{L}\p{M}\p{N}\p{Pc}\- ]/gu, '')
      .replace(/ /g, '-');
    const n = seen.get(base) ?? 0;
    seen.set(base, n + 1);
    ids.add(n ? `${base}-${n}` : base);
  }
  return ids;
}

function links(markdown: string): string[] {
  return [...prose(markdown).matchAll(/!?\[[^\]]*\]\(\s*<?([^)\s>]+)>?(?:\s+"[^"]*")?\s*\)/g)].map((m) => m[1]);
}

describe('links in the README and docs/', () => {
  it('finds the pages and their links', () => {
    expect(PAGES).toContain('docs/site-owners.md');
    expect(links(readFileSync(join(ROOT, 'README.md'), 'utf8')).length).toBeGreaterThan(10);
  });

  for (const page of PAGES) {
    it(`${page}: every relative link and #anchor resolves`, () => {
      const file = join(ROOT, page);
      const broken: string[] = [];
      for (const target of links(readFileSync(file, 'utf8'))) {
        if (/^[a-z][a-z0-9+.-]*:/i.test(target)) continue; // https:, mailto:
        const [pathPart, anchor] = target.split('#', 2) as [string, string | undefined];
        const destination = pathPart ? resolve(dirname(file), decodeURIComponent(pathPart)) : file;
        if (!existsSync(destination)) {
          broken.push(`${target}: no ${relative(ROOT, destination)}`);
          continue;
        }
        if (anchor !== undefined && statSync(destination).isFile() && destination.endsWith('.md')) {
          if (!headingIds(readFileSync(destination, 'utf8')).has(decodeURIComponent(anchor))) broken.push(`${target}: no heading #${anchor} in ${relative(ROOT, destination)}`);
        }
      }
      expect(broken).toEqual([]);
    });
  }

  it('keeps the README short: at most 200 lines', () => {
    expect(readFileSync(join(ROOT, 'README.md'), 'utf8').split('\n').length).toBeLessThanOrEqual(201);
  });
});
