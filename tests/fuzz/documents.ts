/**
 * Document fuzzing (issue 27, item 2): mutated copies of the demo corpus's files (its PDF, HTML,
 * Markdown and text pages, and a parsed-page JSON made from one of them) through the builder's
 * ingest, one file a case. Each is indexed or skipped with a code of the registry; nothing throws,
 * no file passes the builder's per-file limit (FILE_TIMEOUT_MS, which the builder enforces and
 * reports as PARSE_TIMEOUT), and the counts add up: one file in (beside a good one), one document, duplicate or skip out.
 */
import { mkdir, mkdtemp, readFile, readdir, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { extname, join, relative } from 'node:path';
import fc from 'fast-check';
import { ingest } from '../../builder/ingest/index.ts';
import { isHarelError } from '../../widget/core/errors.ts';
import { DEMO_CORPUS } from './corpus.ts';

export type DocMutation =
  | { kind: 'bitflip'; file: number; positions: number[] }
  | { kind: 'truncate'; file: number; at: number }
  | { kind: 'splice'; file: number; at: number; text: string }
  | { kind: 'repeat'; file: number; at: number; length: number; times: number }
  | { kind: 'bytes'; file: number; bytes: number[] }
  | { kind: 'json'; path: string; value: unknown };

const frac = fc.double({ min: 0, max: 1, noNaN: true, maxExcluded: true });
const JUNK = [
  '<',
  '>',
  '</',
  '<!--',
  '-->',
  '<script>',
  '</html>',
  '<table><tr><td>',
  '&#xFFFF;',
  '&amp',
  ']]>',
  '<![CDATA[',
  '#',
  '######',
  '* ',
  '- ',
  '1. ',
  '|',
  '```',
  '**',
  '[',
  '](',
  '\\',
  '\r',
  '\r\n',
  '\u0000',
  '\uFFFE',
  '\u202E',
  '\uD800',
  'obj',
  'endobj',
  'stream',
  'endstream',
  'xref',
  'trailer',
  '%%EOF',
  '/Length 999999999',
  '/Filter /FlateDecode',
  '<<',
  '>>',
  '(',
  ')',
  '999999999 0 R',
  '/Type /Page',
  '/Encrypt',
  '{',
  '}',
  '"',
  ':',
  ',',
  'null',
  '[]',
  '1e999',
];
const JSON_PATHS = ['file', 'domain', 'kind', 'url', 'pages', 'pages.0', 'pages.0.page', 'pages.0.text', ''];
const WEIRD: unknown[] = [true, null, 0, -1, 1e300, 'x', '', '../x', '/abs', [], {}, [1], { page: 'a' }, 'javascript:alert(1)'];

export const docMutation = (files: number): fc.Arbitrary<DocMutation> => {
  const file = fc.nat(files - 1);
  return fc.oneof(
    fc.record({ kind: fc.constant('bitflip' as const), file, positions: fc.array(frac, { minLength: 1, maxLength: 16 }) }),
    fc.record({ kind: fc.constant('truncate' as const), file, at: frac }),
    { weight: 2, arbitrary: fc.record({ kind: fc.constant('splice' as const), file, at: frac, text: fc.array(fc.constantFrom(...JUNK), { minLength: 1, maxLength: 20 }).map((j) => j.join('')) }) },
    fc.record({ kind: fc.constant('repeat' as const), file, at: frac, length: fc.integer({ min: 1, max: 200 }), times: fc.integer({ min: 2, max: 3000 }) }),
    fc.record({ kind: fc.constant('bytes' as const), file, bytes: fc.array(fc.integer({ min: 0, max: 255 }), { maxLength: 64 }) }),
    fc.record({ kind: fc.constant('json' as const), path: fc.constantFrom(...JSON_PATHS), value: fc.constantFrom(...WEIRD) }),
  ) as fc.Arbitrary<DocMutation>;
};

interface SeedFile {
  name: string;
  bytes: Uint8Array;
}

async function seedFiles(): Promise<SeedFile[]> {
  const out: SeedFile[] = [];
  const walk = async (dir: string) => {
    for (const entry of await readdir(dir, { withFileTypes: true })) {
      const path = join(dir, entry.name);
      if (entry.isDirectory()) await walk(path);
      else if (entry.name !== 'manifest.json') out.push({ name: relative(DEMO_CORPUS, path), bytes: new Uint8Array(await readFile(path)) });
    }
  };
  await walk(DEMO_CORPUS);
  out.sort((a, b) => a.name.localeCompare(b.name));
  const faq = out.find((f) => f.name.endsWith('faq.txt'))!;
  const text = new TextDecoder().decode(faq.bytes);
  const json = {
    file: 'car/pages/faq-page.txt',
    domain: 'car',
    kind: 'txt',
    url: 'https://insurer.example/faq',
    pages: [
      { page: 1, text: text.slice(0, 2000) },
      { page: 2, text: text.slice(2000) },
    ],
  };
  out.push({ name: 'car/pages/faq-page.json', bytes: new TextEncoder().encode(JSON.stringify(json)) });
  return out;
}

const at = (f: number, length: number) => Math.min(Math.max(0, length - 1), Math.floor(f * length));

function setPath(target: any, path: string, value: unknown): any {
  if (path === '') return value;
  const keys = path.split('.');
  let o = target;
  for (const k of keys.slice(0, -1)) {
    if (o === null || typeof o !== 'object') return target;
    o = o[k];
  }
  if (o !== null && typeof o === 'object') o[keys.at(-1)!] = value;
  return target;
}

export function mutateDocument(files: readonly SeedFile[], m: DocMutation): SeedFile {
  if (m.kind === 'json') {
    const seed = files.at(-1)!;
    return { name: seed.name, bytes: new TextEncoder().encode(JSON.stringify(setPath(JSON.parse(new TextDecoder().decode(seed.bytes)), m.path, m.value)) ?? 'null') };
  }
  const seed = files[m.file % files.length];
  const b = seed.bytes;
  let bytes: Uint8Array;
  switch (m.kind) {
    case 'bitflip':
      bytes = b.slice();
      m.positions.forEach((p, i) => (bytes[at(p, bytes.length)] ^= 1 << (i % 8)));
      break;
    case 'truncate':
      bytes = b.slice(0, at(m.at, b.length));
      break;
    case 'splice': {
      const i = at(m.at, b.length);
      bytes = Uint8Array.from([...b.subarray(0, i), ...new TextEncoder().encode(m.text), ...b.subarray(i)]);
      break;
    }
    case 'repeat': {
      const i = at(m.at, b.length);
      const piece = b.subarray(i, i + m.length);
      const parts = [b.subarray(0, i), ...Array.from({ length: m.times }, () => piece), b.subarray(i)];
      bytes = new Uint8Array(parts.reduce((n, p) => n + p.length, 0));
      let o = 0;
      for (const p of parts) {
        bytes.set(p, o);
        o += p.length;
      }
      break;
    }
    case 'bytes':
      bytes = Uint8Array.from(m.bytes);
      break;
  }
  return { name: seed.name, bytes };
}

export interface DocumentFuzzReport {
  seed: number;
  runs: number;
  indexed: number;
  skipped: number;
  reasons: Record<string, number>;
  failures: { seed: number; what: string; problem: string }[];
  maxMs: number;
  ms: number;
}

/** `runs` cases from `seed` (case i: seed + i), each one mutated file ingested alone. */
export async function fuzzDocuments(options: { seed: number; runs: number; fileTimeoutMs?: number }): Promise<DocumentFuzzReport> {
  const started = performance.now();
  const files = await seedFiles();
  const limit = options.fileTimeoutMs ?? 30_000;
  const dir = await mkdtemp(join(tmpdir(), 'harel-fuzz-docs-'));
  const report: DocumentFuzzReport = { seed: options.seed, runs: 0, indexed: 0, skipped: 0, reasons: {}, failures: [], maxMs: 0, ms: 0 };
  try {
    for (let i = 0; i < options.runs; i++) {
      const caseSeed = options.seed + i;
      const [m] = fc.sample(docMutation(files.length - 1), { seed: caseSeed, numRuns: 1 });
      const mutant = mutateDocument(files, m);
      const root = join(dir, String(i));
      await mkdir(join(root, 'car'), { recursive: true });
      const name = `car/mutant${extname(mutant.name)}`;
      await writeFile(join(root, name), mutant.bytes);
      // A good file beside it, so a skipped mutant leaves a build (else ingest ends in NO_DOCUMENTS).
      await writeFile(join(root, 'car/control.txt'), 'כיסוי ביטוח רכב: השתתפות עצמית של 250 ש"ח על החלפת שמשה.\n');
      const what = `${mutant.name} ${JSON.stringify(m).slice(0, 200)}`;
      const t = performance.now();
      try {
        const result = await ingest([root], { fileTimeoutMs: limit });
        const ms = performance.now() - t;
        report.maxMs = Math.max(report.maxMs, ms);
        const out = result.documents.length + result.skipped.length + result.duplicates.length;
        if (out !== 2)
          report.failures.push({ seed: caseSeed, what, problem: `2 files in, ${result.documents.length} documents + ${result.skipped.length} skipped + ${result.duplicates.length} duplicates out` });
        if (ms > limit + 5000) report.failures.push({ seed: caseSeed, what, problem: `took ${ms.toFixed(0)} ms, over the ${limit} ms limit` });
        report.indexed += result.documents.length - 1 + result.duplicates.length;
        for (const s of result.skipped) {
          report.skipped++;
          report.reasons[s.code] = (report.reasons[s.code] ?? 0) + 1;
          if (!s.reason) report.failures.push({ seed: caseSeed, what, problem: `skipped without a reason (${s.code})` });
        }
      } catch (error) {
        report.failures.push({
          seed: caseSeed,
          what,
          problem: isHarelError(error)
            ? `${error.code}: ${error.message}`
            : error instanceof Error
              ? `${error.name}: ${error.message}\n${error.stack?.split('\n').slice(1, 4).join('\n')}`
              : String(error),
        });
      }
      report.runs++;
      await rm(root, { recursive: true, force: true });
    }
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
  report.ms = performance.now() - started;
  return report;
}
