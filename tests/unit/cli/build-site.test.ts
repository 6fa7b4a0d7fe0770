/**
 * `harel-builder build … --site site.json`: the file is checked strictly (BAD_ARGUMENT naming the
 * field), written into the manifest's optional `site` block, and read back by the widget's reader;
 * a manifest without the block, or with a malformed one, still loads.
 */
import { execFile } from 'node:child_process';
import { mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { validateSiteConfig } from '../../../builder/write/site-config.ts';
import { isHarelError } from '../../../builder/errors.ts';
import { INDEX_FORMAT_VERSION, parseManifest } from '../../../widget/core/format/manifest.ts';

const run = promisify(execFile);
const repo = fileURLToPath(new URL('../../../', import.meta.url));
const bin = join(repo, 'builder/bin/harel-builder.mjs');

async function cli(args: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  try {
    const { stdout, stderr } = await run(process.execPath, [bin, ...args], { cwd: repo });
    return { code: 0, stdout, stderr };
  } catch (error) {
    const e = error as { code: number; stdout: string; stderr: string };
    return { code: e.code, stdout: e.stdout, stderr: e.stderr };
  }
}

const SITE = {
  name: { he: 'דמו ביטוח', en: 'Demo Insurance' },
  contacts: { phone: '*1234', website: 'https://demo-insurance.example', email: 'service@demo-insurance.example', hours: { he: 'א׳–ה׳ 8–17', en: 'Sun–Thu 8–17' } },
  starters: { he: ['מה ההשתתפות העצמית?'], en: ['How do I make a claim?'] },
};

function badArgument(site: unknown): string {
  try {
    validateSiteConfig(site, 'site.json');
  } catch (error) {
    expect(isHarelError(error, 'BAD_ARGUMENT')).toBe(true);
    return (error as Error).message;
  }
  throw new Error('accepted');
}

describe('the --site file', () => {
  it('accepts every field, each optional, and trims text', () => {
    expect(validateSiteConfig(SITE)).toEqual(SITE);
    expect(validateSiteConfig({})).toEqual({});
    expect(validateSiteConfig({ name: '  Demo  ', contacts: { phone: '*1234' } })).toEqual({ name: 'Demo', contacts: { phone: '*1234' } });
  });

  it('names the field that is wrong and what it should be', () => {
    expect(badArgument([])).toMatch(/--site site\.json: must be a JSON object/);
    expect(badArgument({ title: 'x' })).toMatch(/unknown field "title" \(allowed: name, contacts, starters\)/);
    expect(badArgument({ name: '' })).toMatch(/name must be a non-empty string/);
    expect(badArgument({ name: { fr: 'x' } })).toMatch(/name has unknown field "fr"/);
    expect(badArgument({ contacts: { phone: 1234 } })).toMatch(/contacts\.phone must be a non-empty string/);
    expect(badArgument({ contacts: { fax: '1' } })).toMatch(/contacts has unknown field "fax"/);
    expect(badArgument({ contacts: { website: 'javascript:alert(1)' } })).toMatch(/contacts\.website must be an absolute http\(s\) URL/);
    expect(badArgument({ contacts: { website: 'demo-insurance.example' } })).toMatch(/absolute http\(s\) URL/);
    expect(badArgument({ contacts: { email: 'nobody' } })).toMatch(/contacts\.email is not an email address/);
    expect(badArgument({ starters: ['a'] })).toMatch(/starters must be an object/);
    expect(badArgument({ starters: { he: 'a' } })).toMatch(/starters\.he must be a list/);
    expect(badArgument({ starters: { en: ['ok', ''] } })).toMatch(/starters\.en\[1\] must be a non-empty string/);
    expect(badArgument({ starters: { en: Array.from({ length: 9 }, (_, i) => `q${i}?`) } })).toMatch(/at most 8/);
    expect(badArgument({ name: 'x'.repeat(201) })).toMatch(/longer than 200 characters/);
  });
});

const fileEntry = (path: string) => ({ path, encoding: 'gzip', bytes: 1, rawBytes: 1, sha256: '0'.repeat(64) });

describe('the manifest reader and the site block', () => {
  const manifest = {
    format: 'harel-chat-index',
    formatVersion: INDEX_FORMAT_VERSION,
    buildId: 'b1',
    fragments: { terms: 1, chunks: 1 },
    files: { documents: fileEntry('documents.json.gz'), 'chunks-0': fileEntry('chunks-0.bin.gz'), bm25: fileEntry('bm25.bin.gz'), 'terms-0': fileEntry('terms-0.bin.gz') },
    counts: { documents: 1, chunks: 1, pages: 1, byDomain: {}, byLang: {} },
  };

  it('loads a manifest without one (no format change) and keeps a well-formed one', () => {
    expect(parseManifest(manifest).site).toBeUndefined();
    expect(parseManifest({ ...manifest, site: SITE }).site).toEqual(SITE);
  });

  it('drops what is malformed instead of refusing the index', () => {
    const parsed = parseManifest({ ...manifest, site: { name: 42, contacts: { phone: '*1', email: [] }, starters: { he: ['ok', 7, ''] } } });
    expect(parsed.site).toEqual({ contacts: { phone: '*1' }, starters: { he: ['ok'] } });
    expect(parseManifest({ ...manifest, site: 'nonsense' }).site).toBeUndefined();
  });
});

describe('harel-builder build --site', () => {
  let work: string;
  beforeAll(async () => {
    work = await mkdtemp(join(tmpdir(), 'harel-site-'));
    await mkdir(join(work, 'corpus', 'car'), { recursive: true });
    await writeFile(join(work, 'corpus', 'car', 'policy.md'), '# פוליסת רכב\n\n## השתתפות עצמית\n\nההשתתפות העצמית בנזק לשמשה היא 250 ש"ח.\n\n## גרירה\n\nהגרירה ניתנת חינם עד 100 ק"מ.\n');
  });
  afterAll(async () => {
    await rm(work, { recursive: true, force: true });
  });

  it('writes the checked block into the manifest, and a changed block makes a new build id', async () => {
    await writeFile(join(work, 'site.json'), JSON.stringify(SITE));
    const out = join(work, 'index');
    const built = await cli(['build', join(work, 'corpus'), '--out', out, '--no-embed', '--site', join(work, 'site.json'), '--quiet']);
    expect(built.code, built.stderr).toBe(0);
    const written = JSON.parse(await readFile(join(out, 'manifest.json'), 'utf8'));
    expect(written.site).toEqual(SITE);
    expect(parseManifest(written).site).toEqual(SITE);

    const plain = await cli(['build', join(work, 'corpus'), '--out', join(work, 'plain'), '--no-embed', '--quiet']);
    expect(plain.code, plain.stderr).toBe(0);
    const withoutSite = JSON.parse(await readFile(join(work, 'plain', 'manifest.json'), 'utf8'));
    expect('site' in withoutSite).toBe(false);
    // Same files, another site block: another build, so a reader holding the old one by id refreshes.
    expect(withoutSite.buildId).not.toBe(written.buildId);
  });

  it('refuses a bad file before any work, with exit code 2 and the field named', async () => {
    await writeFile(join(work, 'bad.json'), JSON.stringify({ contacts: { website: 'ftp://x.example' } }));
    const out = join(work, 'never');
    const bad = await cli(['build', join(work, 'corpus'), '--out', out, '--no-embed', '--site', join(work, 'bad.json')]);
    expect(bad.code).toBe(2);
    expect(bad.stderr).toMatch(/BAD_ARGUMENT.*contacts\.website must be an absolute http\(s\) URL/);
    await writeFile(join(work, 'broken.json'), '{ "name": ');
    const broken = await cli(['build', join(work, 'corpus'), '--out', out, '--no-embed', '--site', join(work, 'broken.json')]);
    expect(broken.code).toBe(2);
    expect(broken.stderr).toMatch(/is not valid JSON/);
    const missing = await cli(['build', join(work, 'corpus'), '--out', out, '--no-embed', '--site', join(work, 'nowhere.json')]);
    expect(missing.code).toBe(2);
    expect(missing.stderr).toMatch(/cannot be read \(ENOENT\)/);
  });
});
