/**
 * Synthetic corpora for the scale bench: the real index's chunks replicated until there are `n`,
 * each replica with fresh vocabulary, so that both the postings and the term dictionary grow.
 *
 * Replica 0 is the real corpus as it is. Replica r ≥ 1 is the same chunks and documents, text
 * normalised (normalizeText: finals folded, the tokenizer does it anyway) and every word that
 * carries a BM25 term rewritten through a per-replica mark:
 * - a Hebrew word has its letters other than the proclitic ones (ו ב כ ל מ ש ה) permuted, and
 *   two Hebrew letters appended (`ביטוח` → `בצרוקזב` for some permutation), so its proclitics
 *   stay in front and the tokenizer strips them as before: `והביטוח` yields `הבצרוקזב`,
 *   `בצרוקזב`, the rewritten forms of the original's terms (the permutation keeps a term's
 *   replicas apart in the sorted dictionary, the mark keeps replicas' vocabularies disjoint);
 * - a Latin word gets two Latin consonants in front (`insurance` → `zqinsurance`), so its
 *   Porter stem is the marked stem;
 * - numbers, stop words, and words whose prefix-stripping dropped a stop word (`שהוא`) stay as
 *   they are: like function words and numbers in a real larger corpus, they are shared by every
 *   replica, and their postings grow with it;
 * - a word is rewritten only when the tokenizer, run on the rewritten word, yields at least the
 *   marked terms of the original (checked word by word); the longer word may add a spurious
 *   prefix-stripped candidate (`בית` → `ביתזב` also yields `יתזב`), counted in `tokensPerChunk`.
 * Each replica has its own documents (same domains, languages and page counts; titles, file names
 * and section headings rewritten), its own chunk ids, sections, twin groups and editions. The
 * router gets each kept term's marked forms with the same weights, and the mined lexicon each
 * entry's rewritten phrases, so a rewritten question routes and expands as the original does (the
 * curated lexicon in widget code matches original words only: rewritten questions get no curated
 * expansion). The questions for a synthetic corpus are the real ones, question i rewritten for
 * replica i mod R (replica 0: as written), so every replica is asked.
 *
 * Vectors are not replicated: the synthetic indexes are BM25-only.
 */
import { createHash } from 'node:crypto';
import { existsSync } from 'node:fs';
import { readFile, writeFile } from 'node:fs/promises';
import { join, resolve } from 'node:path';
import { compileBm25 } from '../../widget/core/format/compile-bm25.ts';
import { writeIndex } from '../write/write-index.ts';
import { readIndexFolder } from '../read-index-folder.ts';
import type { LoadedIndex } from '../../widget/core/format/read-index.ts';
import type { MinedLexicon } from '../../widget/core/retrieval/mined-lexicon.ts';
import type { RouterModel } from '../../widget/core/retrieval/route.ts';
import type { Chunk, IndexedDocument } from '../../widget/core/schema.ts';
import { analyze, normalizeText, prefixStrippings } from '../../widget/core/tokenizer/index.ts';

/** Bump when the corpora this writes would change: a stored one from another version is rebuilt. */
export const SYNTHETIC_VERSION = 1;
export const SIDECAR = 'bench-synthetic.json';

// widget/core/tokenizer/tokenize.ts's WORD_RE (not exported there): the same words, so that a
// rewrite changes whole words only. Each rewrite is checked against the tokenizer itself.
const WORD_RE = /([\u05D0-\u05EA]+(?:["'][\u05D0-\u05EA]+)*'?)|((?:(?![\u05D0-\u05EA])\p{L})(?:(?![\u05D0-\u05EA])[\p{L}\p{M}\p{N}])*(?:'(?:(?![\u05D0-\u05EA])\p{L})+)*)|(\d+(?:[.,/:]\d+)*%?)/gu;

// Hebrew letters that proclitics are made of stay in place; the other 15 are permuted per
// replica, so that a word's replicas sort apart in the term dictionary (with a suffix alone, the
// replicas of a term would sit side by side there, their postings repeating one another, and gzip
// would shrink bm25.bin far below what a real corpus of that size ships).
const PROCLITIC_LETTERS = 'ובכלמשה';
const PERMUTED_LETTERS = 'אגדזחטינסעפצקרת';
// Letters rare at the end of a corpus word come first: fewer marked words meet a real one.
const HEBREW_MARK_FIRST = 'ז';
const HEBREW_LETTERS = 'בגדזטכסעפצקשתחלנמרהוי';
const LATIN_MARK_FIRST = 'zq';
const LATIN_CONSONANTS = 'bcdfghjklmnprstvwx';

export interface ReplicaMarks {
  /** Appended to every rewritten Hebrew word. */
  hebrew: string;
  /** Put before every rewritten Latin word. */
  latin: string;
  /** PERMUTED_LETTERS' images, in order. */
  letters: string;
}

/** A deterministic shuffle of `letters` for replica r (mulberry32 seeded with r). */
function shuffle(letters: string, seed: number): string {
  const out = [...letters];
  let s = seed >>> 0;
  const random = () => {
    s = (s + 0x6d2b79f5) >>> 0;
    let t = s;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 2 ** 32;
  };
  for (let i = out.length - 1; i > 0; i--) {
    const j = Math.floor(random() * (i + 1));
    [out[i], out[j]] = [out[j], out[i]];
  }
  return out.join('');
}

export function replicaMarks(r: number): ReplicaMarks {
  if (r < 1 || r > Math.min(HEBREW_LETTERS.length, LATIN_CONSONANTS.length)) throw new Error(`replica ${r} out of range`);
  return { hebrew: HEBREW_MARK_FIRST + HEBREW_LETTERS[r - 1], latin: LATIN_MARK_FIRST + LATIN_CONSONANTS[r - 1], letters: shuffle(PERMUTED_LETTERS, r * 7919) };
}

/** Rewrites text for one replica; caches each word's decision. */
export class ReplicaRewriter {
  readonly marks: ReplicaMarks;
  private readonly cache = new Map<string, string>();
  /** Words rewritten and kept (distinct), for the report. */
  rewritten = 0;
  kept = 0;

  private readonly letters: Map<string, string>;

  constructor(readonly replica: number) {
    this.marks = replicaMarks(replica);
    this.letters = new Map([...PERMUTED_LETTERS].map((c, i) => [c, this.marks.letters[i]]));
    for (const c of PROCLITIC_LETTERS) this.letters.set(c, c);
  }

  /** Hebrew letters permuted (proclitic letters and quotes stay), then the mark appended. */
  private hebrew(word: string): string {
    let out = '';
    for (const c of word) out += this.letters.get(c) ?? c;
    return out.endsWith("'") ? `${out.slice(0, -1)}${this.marks.hebrew}'` : out + this.marks.hebrew;
  }

  text(text: string): string {
    return normalizeText(text).replace(WORD_RE, (word) => this.word(word));
  }

  private word(word: string): string {
    let out = this.cache.get(word);
    if (out === undefined) {
      out = this.decide(word);
      if (out === word) this.kept++;
      else this.rewritten++;
      this.cache.set(word, out);
    }
    return out;
  }

  private decide(word: string): string {
    const analysed = analyze(word);
    if (analysed.length !== 1 || analysed[0].terms.length === 0) return word;
    const { kind, terms } = analysed[0];
    let candidate: string;
    let expected: string[];
    if (kind === 'he') {
      const bare = word.replace(/["']/g, '');
      // A stripping that was a stop word was dropped; marked, it would not be: keep such words.
      if (terms.length !== 1 + prefixStrippings(bare, word.indexOf('"')).length) return word;
      candidate = this.hebrew(word);
      expected = terms.map((t) => this.hebrew(t));
    } else if (kind === 'latin') {
      candidate = this.marks.latin + word;
      expected = terms.map((t) => this.marks.latin + t);
    } else {
      return word;
    }
    const got = analyze(candidate);
    if (got.length !== 1) return word;
    const have = new Set(got[0].terms);
    return expected.every((t) => have.has(t)) ? candidate : word;
  }

  /** A BM25 term of the original corpus as this replica spells it (router and curated phrases). */
  term(term: string): string {
    if (/^[\u05D0-\u05EA]+$/.test(term)) return this.hebrew(term);
    if (/^\p{L}/u.test(term)) return this.marks.latin + term;
    return term;
  }
}

export interface SyntheticInfo {
  version: number;
  source: { dir: string; buildId: string; chunks: number };
  chunks: number;
  replicas: number;
  marks: ReplicaMarks[];
  /** BM25 tokens (body + context, with repeats) per chunk: the real corpus and this one. */
  tokensPerChunk: { source: number; synthetic: number };
  /** Distinct words rewritten, and kept as they are (numbers, stop words, unsafe rewrites), over all replicas. */
  words: { rewritten: number; kept: number };
  /** Distinct BM25 terms: the real corpus and this one (fresh vocabulary: about `replicas` times). */
  terms: { source: number; synthetic: number };
  /** Marked terms that the real corpus has too: replica words that met a real word by chance. */
  sharedTerms: number;
  buildSeconds: number;
}

function chunkId(id: string, r: number): string {
  return createHash('sha256').update(`${r}:${id}`).digest('hex').slice(0, Math.max(16, id.length));
}

function rewriteRouter(router: RouterModel, rewriters: readonly ReplicaRewriter[]): RouterModel {
  const terms = [...router.terms];
  const weights = [...router.weights];
  const curated = [...router.curated];
  const seen = new Set(terms);
  for (const rw of rewriters) {
    router.terms.forEach((t, i) => {
      const marked = rw.term(t);
      if (seen.has(marked)) return;
      seen.add(marked);
      terms.push(marked);
      weights.push(router.weights[i]);
    });
    for (const c of router.curated) curated.push({ domain: c.domain, terms: c.terms.map((t) => rw.term(t)) });
  }
  return { ...router, terms, weights, curated };
}

function rewriteLexicon(lexicon: MinedLexicon, rewriters: readonly ReplicaRewriter[]): MinedLexicon {
  const entries = [...lexicon.entries];
  for (const rw of rewriters) for (const e of lexicon.entries) entries.push({ ...e, phrases: e.phrases.map((p) => rw.text(p)) });
  return { version: 1, entries };
}

/** The documents and chunks of a corpus of `n` chunks made from `index` (see the file comment). */
export function replicate(index: LoadedIndex, n: number): { documents: IndexedDocument[]; chunks: Chunk[]; rewriters: ReplicaRewriter[] } {
  const base = index.chunks.length;
  const replicas = Math.ceil(n / base);
  const documents: IndexedDocument[] = [];
  const chunks: Chunk[] = [];
  const rewriters: ReplicaRewriter[] = [];
  const twinSpan = Math.max(-1, ...index.chunks.map((c) => Math.max(c.twin ?? -1, c.pageTwin ?? -1))) + 1;
  for (let r = 0; r < replicas; r++) {
    const take = Math.min(base, n - r * base);
    const source = index.chunks.slice(0, take);
    if (r === 0) {
      documents.push(...index.documents);
      chunks.push(...source);
      continue;
    }
    const rw = new ReplicaRewriter(r);
    rewriters.push(rw);
    // Only the documents this replica's chunks use (the last replica may be partial).
    const used = [...new Set(source.map((c) => c.doc))].sort((a, b) => a - b);
    const docIndex = new Map(used.map((d, i) => [d, documents.length + i]));
    const file = (f: string) => {
      const slash = f.lastIndexOf('/');
      return `replica-${r}/${f.slice(0, slash + 1)}${rw.text(f.slice(slash + 1))}`;
    };
    for (const d of used) {
      const doc = index.documents[d];
      const copy: IndexedDocument = { ...doc, file: file(doc.file), title: rw.text(doc.title), url: doc.url ? `${doc.url}#replica-${r}` : doc.url };
      if (doc.aliases) copy.aliases = doc.aliases.map(file);
      if (doc.editions) {
        const editions = doc.editions.filter((e) => docIndex.has(e.doc)).map((e) => ({ ...e, doc: docIndex.get(e.doc)! }));
        if (editions.length) copy.editions = editions;
        else delete copy.editions;
      }
      documents.push(copy);
    }
    for (const c of source) {
      const copy: Chunk = {
        ...c,
        id: chunkId(c.id, r),
        doc: docIndex.get(c.doc)!,
        sectionPath: c.sectionPath.map((s) => rw.text(s)),
        parentId: `${c.parentId}~r${r}`,
        text: rw.text(c.text),
      };
      if (c.twin !== undefined) copy.twin = c.twin + r * twinSpan;
      if (c.pageTwin !== undefined) copy.pageTwin = c.pageTwin + r * twinSpan;
      chunks.push(copy);
    }
  }
  return { documents, chunks, rewriters };
}

/** The questions for a corpus of `replicas` replicas: question i rewritten for replica i mod replicas. */
export function syntheticQuestions(questions: readonly string[], replicas: number): string[] {
  const rewriters = new Map<number, ReplicaRewriter>();
  return questions.map((q, i) => {
    const r = i % replicas;
    if (r === 0) return q;
    let rw = rewriters.get(r);
    if (!rw) rewriters.set(r, (rw = new ReplicaRewriter(r)));
    return rw.text(q);
  });
}

async function readSidecar(dir: string): Promise<SyntheticInfo | null> {
  try {
    return JSON.parse(await readFile(join(dir, SIDECAR), 'utf8')) as SyntheticInfo;
  } catch {
    return null;
  }
}

/**
 * The synthetic corpus of `n` chunks from the index in `sourceDir`, written to `outDir` unless one
 * made by this version from the same source build is there already (or `rebuild`).
 */
export async function ensureSyntheticIndex(
  sourceDir: string,
  outDir: string,
  n: number,
  options: { rebuild?: boolean; log?: (line: string) => void } = {},
): Promise<{ info: SyntheticInfo; built: boolean }> {
  const log = options.log ?? (() => undefined);
  const manifest = JSON.parse(await readFile(join(sourceDir, 'manifest.json'), 'utf8')) as { buildId: string };
  const present = existsSync(join(outDir, 'manifest.json')) ? await readSidecar(outDir) : null;
  if (!options.rebuild && present) {
    if (present.version === SYNTHETIC_VERSION && present.source.buildId === manifest.buildId && present.chunks === n) {
      // The index format may have changed under a stored corpus (a reader that no longer reads it).
      const readable = await readIndexFolder(outDir).then(
        () => null,
        (error: unknown) => (error instanceof Error ? error.message : String(error)),
      );
      if (readable === null) return { info: present, built: false };
      log(`${outDir} cannot be read any more (${readable}); rebuilding`);
    } else {
      log(`${outDir}: made from build ${present.source.buildId} by generator ${present.version}; rebuilding`);
    }
  }
  const started = performance.now();
  const index = await readIndexFolder(sourceDir);
  log(`building ${outDir}: ${n} chunks from ${index.chunks.length} (${Math.ceil(n / index.chunks.length)} replicas)`);
  const { documents, chunks, rewriters } = replicate(index, n);
  const bm25 = compileBm25(chunks, documents);
  const tokens = (from: number, to: number) => {
    let sum = 0;
    for (let i = from; i < to; i++) sum += bm25.fieldLengths.body[i] + bm25.fieldLengths.context[i];
    return sum;
  };
  const baseN = Math.min(index.chunks.length, n);
  // A marked term the real corpus also has is a collision: two replicas' words meeting by chance.
  let sharedTerms = 0;
  for (const term of bm25.postings.keys()) {
    const marked = rewriters.some((rw) => term.endsWith(rw.marks.hebrew) || term.startsWith(rw.marks.latin));
    if (marked && index.bm25.lookup(term)) sharedTerms++;
  }
  await writeIndex(outDir, {
    documents,
    chunks,
    bm25,
    vectors: null,
    embedder: null,
    router: index.router ? rewriteRouter(index.router, rewriters) : null,
    lexicon: index.lexicon ? rewriteLexicon(index.lexicon, rewriters) : null,
    retrieval: index.manifest.retrieval,
  });
  const info: SyntheticInfo = {
    version: SYNTHETIC_VERSION,
    source: { dir: resolve(sourceDir), buildId: index.manifest.buildId, chunks: index.chunks.length },
    chunks: n,
    replicas: rewriters.length + 1,
    marks: rewriters.map((rw) => rw.marks),
    tokensPerChunk: { source: tokens(0, baseN) / baseN, synthetic: tokens(0, n) / n },
    words: { rewritten: rewriters.reduce((s, rw) => s + rw.rewritten, 0), kept: rewriters.reduce((s, rw) => s + rw.kept, 0) },
    terms: { source: index.bm25.terms, synthetic: bm25.postings.size },
    sharedTerms,
    buildSeconds: (performance.now() - started) / 1000,
  };
  await writeFile(join(outDir, SIDECAR), `${JSON.stringify(info, null, 2)}\n`);
  return { info, built: true };
}
