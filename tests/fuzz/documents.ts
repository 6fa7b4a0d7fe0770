/**
 * Document fuzzing (docs/reliability.md): mutated copies of the demo corpus's files (its PDF, HTML,
 * Markdown and text pages, and a parsed-page JSON made from one of them) and of 20 real PDFs
 * (`realPdfSeeds`: read from ../shared/data beside the checkout, never copied into the repository;
 * without it the fuzzer says so and mutates the demo's files alone) through the builder's ingest,
 * one file a case. Each is indexed or skipped with a code of the registry; nothing throws,
 * no file passes the builder's per-file limit (FILE_TIMEOUT_MS, which the builder enforces and
 * reports as PARSE_TIMEOUT), and the counts add up: one file in (beside a good one), one document, duplicate or skip out.
 */
import { existsSync } from 'node:fs';
import { mkdir, mkdtemp, readFile, readdir, rm, stat, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { extname, join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import fc from 'fast-check';
import { ingest } from '../../builder/ingest/index.ts';
import { isHarelError } from '../../widget/core/errors.ts';
import { DEMO_CORPUS } from './corpus.ts';
import { setPath } from './json-path.ts';

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

/** Where the real documents live: `<repo>/../shared/data`, beside the checkout (never in it). */
export const SHARED_DATA = fileURLToPath(new URL('../../../shared/data/', import.meta.url));
/** The folders of real PDFs, in this order: Harel's policies (Hebrew), QBE's (English), synthetic claim forms with tables. */
export const REAL_PDF_FOLDERS = ['harel-feb-raw', 'qbe', 'claims'] as const;
/** Real PDFs above this size are left out of the choice, to keep a case within seconds on 2 cores (the largest Harel PDFs are 2–3 MB; QBE's 0.7–0.9 MB are in). */
export const REAL_PDF_MAX_BYTES = 1024 * 1024;

/**
 * A fixed choice of `count` real PDFs: every `.pdf` of REAL_PDF_FOLDERS up to REAL_PDF_MAX_BYTES,
 * sorted by `<folder>/<path>`, then `count` of them evenly spaced over that list (so each folder and
 * domain is represented). The same data gives the same choice, on any machine. `missing` says why
 * there are none (the shared data absent).
 */
export async function realPdfSeeds(count = 20, root = SHARED_DATA): Promise<{ files: SeedFile[]; missing: string | null; pool: number }> {
  const folders = REAL_PDF_FOLDERS.filter((f) => existsSync(join(root, f)));
  if (folders.length === 0)
    return { files: [], missing: `no real PDFs: ${root} has none of ${REAL_PDF_FOLDERS.join(', ')} (the shared data sits beside the checkout); only the demo's files are mutated`, pool: 0 };
  const pool: { name: string; path: string }[] = [];
  const walk = async (folder: string, dir: string) => {
    for (const entry of await readdir(dir, { withFileTypes: true })) {
      const path = join(dir, entry.name);
      if (entry.isDirectory()) await walk(folder, path);
      else if (/\.pdf$/i.test(entry.name) && (await stat(path)).size <= REAL_PDF_MAX_BYTES) pool.push({ name: `${folder}/${relative(join(root, folder), path)}`, path });
    }
  };
  for (const folder of folders) await walk(folder, join(root, folder));
  pool.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
  if (pool.length === 0)
    return { files: [], missing: `no real PDFs of at most ${REAL_PDF_MAX_BYTES} bytes in ${folders.map((f) => join(root, f)).join(', ')}; only the demo's files are mutated`, pool: 0 };
  const chosen = pool.length <= count ? pool : Array.from({ length: count }, (_, i) => pool[Math.floor(((i + 0.5) * pool.length) / count)]);
  const files = await Promise.all(chosen.map(async (f) => ({ name: `real:${f.name}`, bytes: new Uint8Array(await readFile(f.path)) })));
  return { files, missing: files.length < count ? `only ${files.length} real PDFs of at most ${REAL_PDF_MAX_BYTES} bytes (${count} wanted)` : null, pool: pool.length };
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
      const text = new TextEncoder().encode(m.text);
      bytes = new Uint8Array(b.length + text.length);
      bytes.set(b.subarray(0, i));
      bytes.set(text, i);
      bytes.set(b.subarray(i), i + text.length);
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
  /** The files mutated: the demo's, then the real PDFs (`real:<folder>/<path>`). */
  seeds: { demo: number; real: string[] };
  /** Why fewer than 20 real PDFs are mutated (the shared data absent), else null. */
  missing: string | null;
  /** Cases whose file was a mutant of a real PDF, and how they ended. */
  realCases: { runs: number; indexed: number; skipped: number };
  indexed: number;
  skipped: number;
  reasons: Record<string, number>;
  failures: { seed: number; what: string; problem: string }[];
  maxMs: number;
  /** The slowest case: its seed, file and mutation, and how it ended. */
  slowest: { seed: number; what: string; ms: number; outcome: string } | null;
  ms: number;
}

/** `runs` cases from `seed` (case i: seed + i), each one mutated file ingested alone. */
export async function fuzzDocuments(options: { seed: number; runs: number; fileTimeoutMs?: number; realPdfs?: number; onCase?: (i: number, caseSeed: number) => void }): Promise<DocumentFuzzReport> {
  const started = performance.now();
  const demo = await seedFiles();
  const real = options.realPdfs === 0 ? { files: [], missing: null } : await realPdfSeeds(options.realPdfs ?? 20);
  // The parsed-page JSON stays last: the 'json' mutation edits it, the byte mutations pick among the others.
  const files = [...demo.slice(0, -1), ...real.files, demo.at(-1)!];
  const limit = options.fileTimeoutMs ?? 30_000;
  const dir = await mkdtemp(join(tmpdir(), 'harel-fuzz-docs-'));
  const report: DocumentFuzzReport = {
    seed: options.seed,
    runs: 0,
    seeds: { demo: demo.length, real: real.files.map((f) => f.name) },
    missing: real.missing,
    realCases: { runs: 0, indexed: 0, skipped: 0 },
    indexed: 0,
    skipped: 0,
    reasons: {},
    failures: [],
    maxMs: 0,
    slowest: null,
    ms: 0,
  };
  try {
    for (let i = 0; i < options.runs; i++) {
      const caseSeed = options.seed + i;
      options.onCase?.(i, caseSeed);
      const [m] = fc.sample(docMutation(files.length - 1), { seed: caseSeed, numRuns: 1 });
      const mutant = mutateDocument(files, m);
      const isReal = mutant.name.startsWith('real:');
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
        if (ms > report.maxMs) {
          const mine = result.skipped.find((x) => x.file === name);
          report.slowest = { seed: caseSeed, what, ms, outcome: mine ? mine.code : 'indexed' };
        }
        report.maxMs = Math.max(report.maxMs, ms);
        const out = result.documents.length + result.skipped.length + result.duplicates.length;
        if (out !== 2)
          report.failures.push({ seed: caseSeed, what, problem: `2 files in, ${result.documents.length} documents + ${result.skipped.length} skipped + ${result.duplicates.length} duplicates out` });
        // The per-file limit is the builder's behaviour; a case past twice the limit (10 s at least)
        // means it did not stop the file. The slack is generous so that a loaded machine never fails it.
        if (ms > limit + Math.max(limit, 10_000)) report.failures.push({ seed: caseSeed, what, problem: `took ${ms.toFixed(0)} ms: the ${limit} ms per-file limit did not stop it` });
        report.indexed += result.documents.length - 1 + result.duplicates.length;
        if (isReal) {
          report.realCases.runs++;
          report.realCases.indexed += result.documents.length - 1 + result.duplicates.length;
          report.realCases.skipped += result.skipped.length;
        }
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
