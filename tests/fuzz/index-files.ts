/**
 * Index-file fuzzing (docs/reliability.md): mutations of a real build, read by the widget's reader
 * (readIndex, then searches through the Retriever) and by `harel-builder inspect`. Each mutant is
 * refused with a code of the registry (widget/core/errors.ts) or read correctly; never a hang
 * (over 2 s), never another exception.
 *
 * Each case has its own seed (the run's seed + its number): a failure prints it, and
 * `npm run fuzz -- --target index --seed <case seed> --runs 1` replays that case alone.
 */
import { mkdir, mkdtemp, readFile, readdir, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createHash } from 'node:crypto';
import { gunzipSync, gzipSync } from 'node:zlib';
import fc from 'fast-check';
import { buildIndex } from '../../builder/pipeline/build-index.ts';
import { inspectCommand } from '../../builder/commands/inspect.ts';
import { HarelError } from '../../widget/core/errors.ts';
import type { IndexManifest } from '../../widget/core/format/manifest.ts';
import { readIndex, type IndexFileSource } from '../../widget/core/format/read-index.ts';
import { encodeVectorTable } from '../../widget/core/format/vector-file.ts';
import { Retriever } from '../../widget/core/retrieval/retriever.ts';
import { DEMO_CORPUS } from './corpus.ts';
import { setPath } from './json-path.ts';

/** A build as files: name → bytes as stored (gzip), plus the manifest as JSON. */
export interface IndexFiles {
  manifest: IndexManifest;
  files: Record<string, Uint8Array>;
}

/** Builds the demo corpus BM25-only and adds a vector file (seeded random unit vectors), so every file kind is there to mutate. */
export async function buildSeedIndex(): Promise<IndexFiles> {
  const dir = await mkdtemp(join(tmpdir(), 'harel-fuzz-index-'));
  try {
    const out = join(dir, 'index');
    await buildIndex({ inputs: [DEMO_CORPUS], outDir: out, embed: false, embedder: 'none', allowRemote: false, dtype: 'q8', maxTokens: 350, overlap: 0.15 });
    const manifest = JSON.parse(await readFile(join(out, 'manifest.json'), 'utf8'));
    const files: Record<string, Uint8Array> = {};
    for (const name of await readdir(out)) if (name !== 'manifest.json') files[name] = new Uint8Array(await readFile(join(out, name)));
    const count = manifest.counts.chunks as number;
    const dim = 16;
    const rand = fc.sample(fc.integer({ min: -127, max: 127 }), { seed: 1, numRuns: count * dim });
    const vectors = encodeVectorTable({ count, dim, scales: new Float32Array(count).fill(1 / 127 / 4), data: Int8Array.from(rand) });
    const gz = new Uint8Array(gzipSync(vectors));
    files['vectors.bin.gz'] = gz;
    manifest.files.vectors = { path: 'vectors.bin.gz', encoding: 'gzip', bytes: gz.length, rawBytes: vectors.length, sha256: sha(gz) };
    manifest.embedder = { id: 'fuzz/random', dimensions: dim, quantization: 'int8-per-vector-scale', passagePrefix: '', queryPrefix: '', fixture: true };
    return { manifest, files };
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}

const sha = (bytes: Uint8Array) => createHash('sha256').update(bytes).digest('hex');
// The seed build is one fragment of each kind (the demo corpus): its chunks are chunks-0, its
// BM25 terms terms-0. The arbitraries keep the shape they had in format 2 (each list as long),
// so that a case seed draws the same kind of mutation as before; the postings' cases went from
// bm25.bin to the term fragment that now holds them.
const ROLES = ['documents', 'chunks-0', 'bm25', 'vectors', 'router'] as const;
type Role = (typeof ROLES)[number] | 'terms-0';

/** What one case does to the build; plain data, so a failing case prints whole. */
export type Mutation =
  | { kind: 'bitflip'; role: Role; positions: number[]; bits: number[]; vouch: boolean }
  | { kind: 'truncate'; role: Role; at: number; vouch: boolean }
  | { kind: 'append'; role: Role; bytes: number[]; vouch: boolean }
  | { kind: 'overwrite'; role: Role; at: number; bytes: number[]; vouch: boolean }
  | { kind: 'header-length'; role: Role; value: number }
  | { kind: 'swap-sections'; role: Role; a: number; b: number }
  | { kind: 'section-range'; role: Role; section: number; offset: number | string | null; length: number | string | null }
  | { kind: 'header-field'; role: Role; path: string; value: unknown }
  | { kind: 'varint-overflow'; role: Role; at: number; length: number }
  | { kind: 'vector-scale'; index: number; value: number }
  | { kind: 'duplicate-ids'; role: 'chunks-0' | 'documents'; from: number; to: number }
  | { kind: 'json-field'; role: 'documents' | 'router'; path: string; value: unknown }
  | { kind: 'manifest-field'; path: string; value: unknown }
  | { kind: 'manifest-bytes'; text: string }
  | { kind: 'raw-gzip'; role: Role; positions: number[] }
  | { kind: 'unlist'; role: Role };

const WEIRD: unknown[] = [true, false, null, 0, -1, 1.5, 1e300, -1e300, 2 ** 32, 2 ** 53, Number.MAX_SAFE_INTEGER, 'x', '', '../../../etc/passwd', '/abs', [], {}, [1, 2], { a: 1 }, 'NaN', '1e9'];
const weird = fc.constantFrom(...WEIRD);
const frac = fc.double({ min: 0, max: 1, noNaN: true, maxExcluded: true });
const role = fc.constantFrom(...ROLES);
const sectionRole = fc.constantFrom('chunks-0' as const, 'terms-0' as const);

const MANIFEST_PATHS = [
  'files',
  'files.documents',
  'files.chunks-0',
  'files.bm25',
  'files.vectors',
  'files.router',
  'files.documents.path',
  'files.documents.bytes',
  'files.documents.rawBytes',
  'files.documents.sha256',
  'files.documents.encoding',
  'files.chunks-0.path',
  'files.chunks-0.bytes',
  'files.chunks-0.rawBytes',
  'files.chunks-0.sha256',
  'files.bm25.path',
  'files.bm25.bytes',
  'files.bm25.sha256',
  'files.vectors.path',
  'files.vectors.bytes',
  'files.router.path',
  'files.router.sha256',
  'files.lexicon',
  'files.__proto__',
  'buildId',
  'format',
  'formatVersion',
  'createdAt',
  'builderVersion',
  'tokenizerVersion',
  'embedder',
  'embedder.dimensions',
  'embedder.id',
  'embedder.dtype',
  'embedder.queryPrefix',
  'counts',
  'counts.chunks',
  'counts.documents',
  'counts.byDomain',
  'counts.byLang',
  'counts.byDomain.car',
  'counts.byLang.he',
  'retrieval',
  'retrieval.bm25Weight',
  'retrieval.fusion',
  'retrieval.rrfK',
  'retrieval.bm25Pool',
  'retrieval.vectorPool',
  'retrieval.routeMinConfidence',
  'retrieval.termMatch',
  'retrieval.routeBoost',
  'retrieval.contextBoost',
  'retrieval.collapseTwins',
  'retrieval.expansionWeight',
  'retrieval.minedExpansionWeight',
  'site',
  'site.name',
  'site.starters',
];
const CHUNK_HEADER_PATHS = ['count', 'first', 'ids', 'parentIds', 'strings', 'ids.0', 'strings.0', 'sections', 'sections.text'];
const TERMS_HEADER_PATHS = ['chunks', 'fields', 'fragment', 'fragments', 'terms', 'blockSize', 'fields.0', 'sections', 'sections.blocks', 'sections.dictionary', 'sections.postings.body'];
const DOCUMENT_PATHS = ['', '0', '0.file', '0.url', '0.domain', '0.lang', '0.title', '0.kind', '0.pageCount', '0.aliases', '0.editions', '0.editions.0.doc', '0.editions.0.pages'];
const ROUTER_PATHS = ['', 'version', 'tokenizer', 'domains', 'terms', 'weights', 'weights.0', 'weights.0.0', 'curated', 'curated.0.domain', 'curatedBonus', 'temperature', 'minConfidence'];

export const mutation: fc.Arbitrary<Mutation> = fc.oneof(
  fc
    .record({
      kind: fc.constant('bitflip' as const),
      role,
      positions: fc.array(frac, { minLength: 1, maxLength: 8 }),
      bits: fc.array(fc.integer({ min: 0, max: 7 }), { minLength: 8, maxLength: 8 }),
      vouch: fc.boolean(),
    })
    .map((m) => ({ ...m, positions: m.positions.map(Number) })) as fc.Arbitrary<Mutation>,
  fc.record({ kind: fc.constant('truncate' as const), role, at: frac, vouch: fc.boolean() }) as fc.Arbitrary<Mutation>,
  fc.record({ kind: fc.constant('append' as const), role, bytes: fc.array(fc.integer({ min: 0, max: 255 }), { minLength: 1, maxLength: 64 }), vouch: fc.boolean() }) as fc.Arbitrary<Mutation>,
  fc.record({
    kind: fc.constant('overwrite' as const),
    role,
    at: frac,
    bytes: fc.array(fc.constantFrom(0, 0xff, 0x7f, 0x80, 0xfe, 1), { minLength: 1, maxLength: 16 }),
    vouch: fc.constant(true),
  }) as fc.Arbitrary<Mutation>,
  fc.record({ kind: fc.constant('header-length' as const), role: sectionRole, value: fc.constantFrom(0, 1, 7, 0xffffffff, 0x7fffffff, 1 << 20) }) as fc.Arbitrary<Mutation>,
  fc.record({ kind: fc.constant('swap-sections' as const), role: sectionRole, a: fc.nat(12), b: fc.nat(12) }) as fc.Arbitrary<Mutation>,
  fc.record({
    kind: fc.constant('section-range' as const),
    role: sectionRole,
    section: fc.nat(12),
    offset: fc.oneof(fc.constantFrom(0, 1, 2, 3, -4, 2 ** 32, 2 ** 53, 1e308, null, 'x'), fc.nat(4096)),
    length: fc.oneof(fc.constantFrom(0, 1, -1, 2 ** 31, 2 ** 32 + 4, 1e308, null, '8'), fc.nat(4096)),
  }) as fc.Arbitrary<Mutation>,
  fc.record({
    kind: fc.constant('header-field' as const),
    role: fc.constant('chunks-0' as const),
    path: fc.constantFrom(...CHUNK_HEADER_PATHS),
    value: fc.oneof(weird, fc.integer({ min: -5, max: 5000 })),
  }) as fc.Arbitrary<Mutation>,
  fc.record({
    kind: fc.constant('header-field' as const),
    role: fc.constant('terms-0' as const),
    path: fc.constantFrom(...TERMS_HEADER_PATHS),
    value: fc.oneof(weird, fc.integer({ min: -5, max: 100000 }), fc.constantFrom(0, 1, 2 ** 31)),
  }) as fc.Arbitrary<Mutation>,
  fc.record({ kind: fc.constant('varint-overflow' as const), role: fc.constant('terms-0' as const), at: frac, length: fc.integer({ min: 1, max: 12 }) }) as fc.Arbitrary<Mutation>,
  fc.record({ kind: fc.constant('vector-scale' as const), index: frac, value: fc.constantFrom(Number.NaN, Infinity, -Infinity, 0, -1, 1e38, 3.4e38) }) as fc.Arbitrary<Mutation>,
  fc.record({ kind: fc.constant('duplicate-ids' as const), role: fc.constantFrom('chunks-0' as const, 'documents' as const), from: frac, to: frac }) as fc.Arbitrary<Mutation>,
  fc.record({
    kind: fc.constant('json-field' as const),
    role: fc.constant('documents' as const),
    path: fc.constantFrom(...DOCUMENT_PATHS),
    value: fc.oneof(weird, fc.integer({ min: -3, max: 10_000 })),
  }) as fc.Arbitrary<Mutation>,
  fc.record({
    kind: fc.constant('json-field' as const),
    role: fc.constant('router' as const),
    path: fc.constantFrom(...ROUTER_PATHS),
    value: fc.oneof(weird, fc.integer({ min: -3, max: 10_000 })),
  }) as fc.Arbitrary<Mutation>,
  { weight: 3, arbitrary: fc.record({ kind: fc.constant('manifest-field' as const), path: fc.constantFrom(...MANIFEST_PATHS), value: weird }) as fc.Arbitrary<Mutation> },
  fc.record({
    kind: fc.constant('manifest-bytes' as const),
    text: fc.constantFrom('', '{', 'null', '[]', '"x"', '{"format":"harel-chat-index","formatVersion":3}', '\uFEFF{}', '\xff\xfe'),
  }) as fc.Arbitrary<Mutation>,
  fc.record({ kind: fc.constant('raw-gzip' as const), role, positions: fc.array(frac, { minLength: 1, maxLength: 4 }) }) as fc.Arbitrary<Mutation>,
  fc.record({ kind: fc.constant('unlist' as const), role }) as fc.Arbitrary<Mutation>,
);

const FILE_OF: Record<Role, string> = {
  documents: 'documents.json.gz',
  'chunks-0': 'chunks-0.bin.gz',
  bm25: 'bm25.bin.gz',
  'terms-0': 'terms-0.bin.gz',
  vectors: 'vectors.bin.gz',
  router: 'router.json.gz',
};
const at = (f: number, length: number) => Math.min(length - 1, Math.max(0, Math.floor(f * length)));

/** A section container's header and body, for mutations that edit its JSON header. */
/** A container's JSON header (sections.ts): its section table and whatever else the file keeps there. */
interface SectionHeader {
  /** Name → [offset, length]; a mutant may put anything there. */
  sections: Record<string, unknown>;
  [key: string]: unknown;
}

function editHeader(raw: Uint8Array, edit: (header: SectionHeader) => void): Uint8Array {
  const length = new DataView(raw.buffer, raw.byteOffset).getUint32(4, true);
  const header = JSON.parse(new TextDecoder().decode(raw.subarray(8, 8 + length))) as SectionHeader;
  edit(header);
  const json = new TextEncoder().encode(JSON.stringify(header));
  // Keeps the sections where they were: the new header may only be shorter (padded) or the same length.
  if (json.length <= length) {
    const out = raw.slice();
    out.fill(0x20, 8, 8 + length);
    out.set(json, 8);
    return out;
  }
  const out = new Uint8Array(8 + json.length + (raw.length - 8 - length));
  out.set(raw.subarray(0, 4));
  new DataView(out.buffer).setUint32(4, json.length, true);
  out.set(json, 8);
  out.set(raw.subarray(8 + length), 8 + json.length);
  return out;
}

/** Applies `m` to a copy of `seed`; content edits are re-vouched by the manifest unless `vouch` is false. */
export function mutate(seed: IndexFiles, m: Mutation): { manifestBytes: Uint8Array; files: Record<string, Uint8Array> } {
  const manifest = structuredClone(seed.manifest);
  const files = { ...seed.files };
  const rewrite = (r: Role, change: (raw: Uint8Array) => Uint8Array, vouch = true) => {
    const name = FILE_OF[r];
    const raw = change(new Uint8Array(gunzipSync(files[name])));
    const gz = new Uint8Array(gzipSync(raw));
    files[name] = gz;
    if (vouch) Object.assign(manifest.files[r]!, { bytes: gz.length, rawBytes: raw.length, sha256: sha(gz) });
  };
  const sectionNames = (raw: Uint8Array) => {
    const length = new DataView(raw.buffer, raw.byteOffset).getUint32(4, true);
    return Object.keys(JSON.parse(new TextDecoder().decode(raw.subarray(8, 8 + length))).sections);
  };
  switch (m.kind) {
    case 'bitflip':
      rewrite(
        m.role,
        (raw) => {
          const out = raw.slice();
          m.positions.forEach((p, i) => (out[at(p, out.length)] ^= 1 << m.bits[i % m.bits.length]));
          return out;
        },
        m.vouch,
      );
      break;
    case 'truncate':
      rewrite(m.role, (raw) => raw.slice(0, at(m.at, raw.length)), m.vouch);
      break;
    case 'append':
      rewrite(m.role, (raw) => Uint8Array.from([...raw, ...m.bytes]), m.vouch);
      break;
    case 'overwrite':
      rewrite(
        m.role,
        (raw) => {
          const out = raw.slice();
          out.set(m.bytes.slice(0, out.length - at(m.at, out.length)), at(m.at, out.length));
          return out;
        },
        m.vouch,
      );
      break;
    case 'header-length':
      rewrite(m.role, (raw) => {
        const out = raw.slice();
        new DataView(out.buffer).setUint32(4, m.value >>> 0, true);
        return out;
      });
      break;
    case 'swap-sections':
      rewrite(m.role, (raw) =>
        editHeader(raw, (h) => {
          const names = Object.keys(h.sections);
          const a = names[m.a % names.length];
          const b = names[m.b % names.length];
          [h.sections[a], h.sections[b]] = [h.sections[b], h.sections[a]];
        }),
      );
      break;
    case 'section-range':
      rewrite(m.role, (raw) =>
        editHeader(raw, (h) => {
          const names = sectionNames(raw);
          h.sections[names[m.section % names.length]] = [m.offset, m.length];
        }),
      );
      break;
    case 'header-field':
      rewrite(m.role, (raw) => editHeader(raw, (h) => setPath(h, m.path, m.value, { create: true, ownProperty: true })));
      break;
    case 'varint-overflow':
      rewrite(m.role, (raw) => {
        // Inside the dictionary or a postings section: a run of continuation bytes.
        const length = new DataView(raw.buffer, raw.byteOffset).getUint32(4, true);
        const h = JSON.parse(new TextDecoder().decode(raw.subarray(8, 8 + length)));
        const names = ['dictionary', 'postings.body', 'postings.context'];
        const [offset, size] = h.sections[names[Math.floor(m.at * 3) % 3]];
        const out = raw.slice();
        const start = offset + at(m.at, Math.max(1, size));
        out.fill(0xff, start, Math.min(offset + size, start + m.length));
        return out;
      });
      break;
    case 'vector-scale':
      rewrite('vectors', (raw) => {
        const out = raw.slice();
        const count = new DataView(out.buffer).getUint32(4, true);
        new DataView(out.buffer).setFloat32(12 + 4 * at(m.index, count), m.value, true);
        return out;
      });
      break;
    case 'duplicate-ids':
      if (m.role === 'chunks-0') {
        rewrite('chunks-0', (raw) =>
          editHeader(raw, (h) => {
            const ids = h.ids as unknown[];
            ids[at(m.to, ids.length)] = ids[at(m.from, ids.length)];
          }),
        );
      } else {
        rewrite('documents', (raw) => {
          const docs = JSON.parse(new TextDecoder().decode(raw));
          docs[at(m.to, docs.length)] = docs[at(m.from, docs.length)];
          return new TextEncoder().encode(JSON.stringify(docs));
        });
      }
      break;
    case 'json-field':
      rewrite(m.role, (raw) => new TextEncoder().encode(JSON.stringify(setPath(JSON.parse(new TextDecoder().decode(raw)), m.path, m.value, { create: true, ownProperty: true }))));
      break;
    case 'manifest-field':
      setPath(manifest, m.path, m.value, { create: true, ownProperty: true });
      break;
    case 'manifest-bytes':
      return { manifestBytes: new TextEncoder().encode(m.text), files };
    case 'raw-gzip': {
      const name = FILE_OF[m.role];
      const out = files[name].slice();
      m.positions.forEach((p) => (out[at(p, out.length)] ^= 0x5a));
      files[name] = out;
      Object.assign(manifest.files[m.role]!, { bytes: out.length, sha256: sha(out) });
      break;
    }
    case 'unlist':
      delete manifest.files[m.role];
      break;
  }
  return { manifestBytes: new TextEncoder().encode(JSON.stringify(manifest)), files };
}

export type Outcome = { ok: true; ms: number } | { ok: false; ms: number; code: string } | { crash: string; ms: number };

const QUERIES = ['כמה השתתפות עצמית אשלם על שמשה?', 'How soon must I report a home insurance claim?', 'ביטוח נסיעות לחו"ל', 'x', 'זה'];

/** Reads a mutant as the widget does (then searches it three ways) and as `inspect` does. */
export async function readMutant(mutant: { manifestBytes: Uint8Array; files: Record<string, Uint8Array> }, dir: string): Promise<Outcome[]> {
  const source: IndexFileSource = {
    read: async (path) => {
      if (path === 'manifest.json') return mutant.manifestBytes;
      const bytes = Object.hasOwn(mutant.files, path) ? mutant.files[path] : undefined;
      if (!bytes) throw Object.assign(new Error(`ENOENT: ${path}`), { code: 'ENOENT' });
      return bytes;
    },
  };
  const outcomes: Outcome[] = [];
  const run = async (work: () => Promise<void>) => {
    const started = performance.now();
    try {
      await work();
      outcomes.push({ ok: true, ms: performance.now() - started });
    } catch (error) {
      const ms = performance.now() - started;
      if (error instanceof HarelError) outcomes.push({ ok: false, ms, code: error.code });
      else outcomes.push({ crash: error instanceof Error ? `${error.name}: ${error.message}\n${error.stack?.split('\n').slice(1, 4).join('\n')}` : String(error), ms });
    }
  };
  await run(async () => {
    const index = await readIndex(source);
    const retriever = new Retriever(index);
    const dim = index.vectors?.dim ?? 0;
    const queryVector = dim ? Float32Array.from({ length: dim }, (_, i) => Math.sin(i + 1)) : undefined;
    for (const q of QUERIES) {
      for (const mode of ['bm25', 'vector', 'hybrid'] as const) {
        const result = retriever.search(q, { mode, k: 5, queryVector });
        for (const hit of result.hits) if (typeof hit.text !== 'string' || !Number.isFinite(hit.score)) throw new Error(`a hit with score ${hit.score} and text ${typeof hit.text}`);
      }
    }
  });
  await run(async () => {
    await rm(dir, { recursive: true, force: true });
    await mkdir(dir, { recursive: true });
    await writeFile(join(dir, 'manifest.json'), mutant.manifestBytes);
    for (const [name, bytes] of Object.entries(mutant.files)) await writeFile(join(dir, name), bytes);
    const write = process.stdout.write;
    process.stdout.write = (() => true) as typeof process.stdout.write;
    try {
      await inspectCommand([dir, '--samples', '5']);
    } finally {
      process.stdout.write = write;
    }
  });
  return outcomes;
}

export interface IndexFuzzReport {
  seed: number;
  runs: number;
  refused: Record<string, number>;
  readOk: number;
  failures: { seed: number; mutation: Mutation; problem: string }[];
  maxMs: number;
  ms: number;
}

/**
 * A read that takes longer is reported as hung. A guard against hangs, not a speed limit: the
 * reads take milliseconds (the slowest of 2,000 took 141 ms), so only a read that never ends (or
 * runs for minutes, as the backtracking patterns did) reaches it on a loaded machine. Speed is
 * `maxMs`, reported, never failed on.
 */
export const INDEX_HANG_MS = 30_000;

/** Runs `runs` cases from `seed` (case i has seed `seed + i`); stops early after `maxFailures`. */
export async function fuzzIndexFiles(options: {
  seed: number;
  runs: number;
  base?: IndexFiles;
  hangMs?: number;
  maxFailures?: number;
  onCase?: (i: number, caseSeed: number) => void;
}): Promise<IndexFuzzReport> {
  const started = performance.now();
  const base = options.base ?? (await buildSeedIndex());
  const hangMs = options.hangMs ?? INDEX_HANG_MS;
  const dir = await mkdtemp(join(tmpdir(), 'harel-fuzz-mutant-'));
  const report: IndexFuzzReport = { seed: options.seed, runs: 0, refused: {}, readOk: 0, failures: [], maxMs: 0, ms: 0 };
  try {
    for (let i = 0; i < options.runs; i++) {
      const caseSeed = options.seed + i;
      options.onCase?.(i, caseSeed);
      const [m] = fc.sample(mutation, { seed: caseSeed, numRuns: 1 });
      let outcomes: Outcome[];
      try {
        outcomes = await readMutant(mutate(base, m), join(dir, 'm'));
      } catch (error) {
        outcomes = [{ crash: `harness: ${String(error)}`, ms: 0 }];
      }
      report.runs++;
      for (const o of outcomes) {
        report.maxMs = Math.max(report.maxMs, o.ms);
        if ('crash' in o) report.failures.push({ seed: caseSeed, mutation: m, problem: o.crash });
        else if (o.ms > hangMs) report.failures.push({ seed: caseSeed, mutation: m, problem: `took ${o.ms.toFixed(0)} ms: hung (the guard is ${hangMs} ms)` });
        else if (o.ok) report.readOk++;
        else report.refused[o.code] = (report.refused[o.code] ?? 0) + 1;
      }
      if (report.failures.length >= (options.maxFailures ?? Infinity)) break;
    }
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
  report.ms = performance.now() - started;
  return report;
}
