/**
 * The index manifest: the one file a reader fetches first. It names every other file of the
 * build with its size and sha256, so a reader can verify what it downloads and a cache can tell
 * whether it already holds this build.
 */
import { createError } from '../errors.ts';
import type { Lang } from '../schema.ts';
import { FITTED_FUSION, type FusionDefaults } from '../retrieval/fusion-defaults.ts';
import { checkManifestFields, FRAGMENT_KEY } from './validate.ts';

export const INDEX_FORMAT = 'harel-chat-index';
/** Bump on any incompatible change of a file's layout; readers refuse other majors. */
export const INDEX_FORMAT_VERSION = 3;

/**
 * Logical names of the files of an index build that are one file each. `lexicon` (the mined
 * query-expansion lexicon) and `vectors` are optional: builds without them still load.
 */
export type IndexFileRole = 'documents' | 'bm25' | 'vectors' | 'router' | 'lexicon';
export const INDEX_FILE_ROLES: readonly IndexFileRole[] = ['documents', 'bm25', 'vectors', 'router', 'lexicon'];

/** The kinds of file a build splits into numbered fragments: BM25 terms by hash, chunks in document order. */
export type FragmentKind = 'terms' | 'chunks';
export const FRAGMENT_KINDS: readonly FragmentKind[] = ['terms', 'chunks'];
/** A fragment's key in the manifest's `files`: its kind and number, `terms-0`, `chunks-12`. */
export type FragmentKey = `${FragmentKind}-${number}`;
/** Every key of the manifest's `files`. */
export type IndexFileKey = IndexFileRole | FragmentKey;

export const fragmentKey = (kind: FragmentKind, i: number): FragmentKey => `${kind}-${i}`;

/** The fragment a key names, or null for a role's key. */
export function parseFragmentKey(key: string): { kind: FragmentKind; index: number } | null {
  const match = FRAGMENT_KEY.exec(key);
  return match ? { kind: match[1] as FragmentKind, index: Number(match[2]) } : null;
}

export interface IndexFileEntry {
  /** File name inside the index folder. */
  path: string;
  /** Encoding on disk; readers undo it with DecompressionStream. */
  encoding: 'gzip';
  /** Bytes on disk (compressed). */
  bytes: number;
  /** Bytes after decompression. */
  rawBytes: number;
  /** Hex sha256 of the bytes on disk. */
  sha256: string;
}

export interface EmbedderInfo {
  /** Model id, e.g. 'Xenova/multilingual-e5-small' (or the test fixture 'fixture/tiny-embedder'). */
  id: string;
  dimensions: number;
  /** Vectors are stored int8 with one float32 scale per vector. */
  quantization: 'int8-per-vector-scale';
  passagePrefix: string;
  queryPrefix: string;
  /** Whether the model is a test fixture rather than a real embedder. */
  fixture: boolean;
  /**
   * Which of the model's ONNX files embedded the passages (transformers.js's dtype: 'q8' is
   * onnx/model_quantized.onnx, 'q4' onnx/model_q4.onnx, 'fp32' onnx/model.onnx): the widget loads
   * the same one so that queries and passages meet in one space. Absent in older builds: 'q8'.
   */
  dtype?: 'q8' | 'q4' | 'fp32';
  /**
   * The file the widget embeds questions with, when not `dtype`: the same weights in a form that
   * runs faster in a browser's WebAssembly (the converted E5: passages 'q4', questions 'q4i8',
   * onnx/model_q4i8.onnx with its .q4w weights: widget/core/embedding/q4-weights.ts; Node's eval
   * runs the widget's own code for it: builder/embed/widget-query-embedder.ts).
   * Absent: `dtype`.
   */
  queryDtype?: 'q8' | 'q4' | 'fp32' | 'q4f32' | 'q4i8';
  /**
   * The model that embeds questions, when not `id`: a question model tuned against this
   * embedder's passage vectors (its config.json's `harel.passageModel` names `id`), chosen at build
   * time with `--query-model`. Search, eval and the widget use it unless told otherwise
   * (widget/core/embedding/query-model.ts). Absent: `id`.
   */
  queryModel?: string;
}

export interface CountTable {
  documents: number;
  chunks: number;
}

export interface IndexManifest {
  format: typeof INDEX_FORMAT;
  formatVersion: number;
  /** Content address of the build: equal files give an equal id. */
  buildId: string;
  createdAt: string;
  builderVersion: string;
  tokenizerVersion: string;
  embedder: EmbedderInfo | null;
  counts: {
    documents: number;
    chunks: number;
    pages: number;
    byDomain: Record<string, CountTable>;
    byLang: Partial<Record<Lang, CountTable>>;
  };
  /** Retrieval defaults tuned for this build (fusion weights and the like). */
  retrieval: RetrievalDefaults;
  /** How many fragments of each kind the build has; `files` lists each as `<kind>-<i>`. */
  fragments: Record<FragmentKind, number>;
  files: Partial<Record<IndexFileKey, IndexFileEntry>>;
  /**
   * The site the index serves (optional; readers that do not know it ignore it): its name,
   * contact channels and starter questions, written by `harel-builder build --site <file>`. The
   * element's own attributes and properties win over it, field by field.
   */
  site?: SiteInfo;
}

/** Text in one form for both languages, or one per language. */
export type LocalizedText = string | Partial<Record<Lang, string>>;

/** How a customer reaches the site's people. Every field is optional. */
export interface SiteContacts {
  phone?: string;
  /** The site's own address (http or https), e.g. its contact page. */
  website?: string;
  email?: string;
  /** When the phone is answered, e.g. {he: 'א׳–ה׳ 8:00–17:00', en: 'Sun–Thu 8:00–17:00'}. */
  hours?: LocalizedText;
}

/** The manifest's optional `site` block. */
export interface SiteInfo {
  name?: LocalizedText;
  contacts?: SiteContacts;
  starters?: Partial<Record<Lang, string[]>>;
}

/** More fragments of a kind than any build needs (a million chunks in fragments of 500 is 2,000). */
const MAX_FRAGMENTS = 100_000;

const SITE_TEXT_MAX = 200;
const isText = (v: unknown): v is string => typeof v === 'string' && v.trim() !== '' && v.length <= SITE_TEXT_MAX;

function localized(v: unknown): LocalizedText | undefined {
  if (isText(v)) return v.trim();
  if (typeof v !== 'object' || v === null || Array.isArray(v)) return undefined;
  const out: Partial<Record<Lang, string>> = {};
  for (const lang of ['he', 'en'] as const) {
    const text = (v as Record<string, unknown>)[lang];
    if (isText(text)) out[lang] = text.trim();
  }
  return Object.keys(out).length ? out : undefined;
}

/**
 * The `site` block as a reader keeps it: well-formed fields only, anything else dropped (a site
 * block never stops an index from loading). The builder checks it strictly before writing it.
 */
export function parseSiteInfo(json: unknown): SiteInfo | undefined {
  if (typeof json !== 'object' || json === null || Array.isArray(json)) return undefined;
  const raw = json as Record<string, unknown>;
  const site: SiteInfo = {};
  const name = localized(raw.name);
  if (name) site.name = name;
  if (typeof raw.contacts === 'object' && raw.contacts !== null && !Array.isArray(raw.contacts)) {
    const c = raw.contacts as Record<string, unknown>;
    const contacts: SiteContacts = {};
    for (const key of ['phone', 'website', 'email'] as const) if (isText(c[key])) contacts[key] = (c[key] as string).trim();
    const hours = localized(c.hours);
    if (hours) contacts.hours = hours;
    if (Object.keys(contacts).length) site.contacts = contacts;
  }
  if (typeof raw.starters === 'object' && raw.starters !== null && !Array.isArray(raw.starters)) {
    const starters: Partial<Record<Lang, string[]>> = {};
    for (const lang of ['he', 'en'] as const) {
      const list = (raw.starters as Record<string, unknown>)[lang];
      if (Array.isArray(list))
        starters[lang] = list
          .filter(isText)
          .map((q) => q.trim())
          .slice(0, 8);
    }
    if (Object.keys(starters).length) site.starters = starters;
  }
  return Object.keys(site).length ? site : undefined;
}

export interface RetrievalDefaults {
  /** Weight of the BM25 side in hybrid fusion (normalised scores or reciprocal ranks); the vector side gets 1 - bm25Weight. */
  bm25Weight: number;
  /** Hybrid fusion: min-max weighted scores or weighted reciprocal ranks (core/retrieval/fuse.ts). */
  fusion: FusionDefaults['fusion'];
  /** RRF's rank offset (fusion 'rrf' only). */
  rrfK: number;
  /** BM25 and vector candidates that enter hybrid fusion (a single-sided search keeps FIRST_STAGE_POOL). */
  bm25Pool: number;
  vectorPool: number;
  /** Router confidence above which retrieval is filtered to the routed domain. */
  routeMinConfidence: number;
  /**
   * How query terms meet indexed terms: 'whole' (ordinary BM25) or 'prefix' (Orama's default: a
   * query term also matches longer indexed terms it starts). Fixed at build time: the indexed
   * terms differ.
   */
  termMatch: 'whole' | 'prefix';
  /** Below the filter threshold, scores in the routed domain are multiplied by 1 + routeBoost × confidence. */
  routeBoost: number;
  /** Weight of the context field (title, file name, section path) against the passage body in BM25. */
  contextBoost: number;
  /**
   * Whether near-identical chunks collapse into one result listing the others as "also in".
   * Off by default: on dev-v2 it cost page hit@5 (strict 50.5 → 44.0 %, twins counted 51.4 →
   * 50.5 %) because the gold edition then hides among the "also in" sources.
   */
  collapseTwins: boolean;
  /** Weight of the lexicon's equivalents against the question's own words in BM25; 0 = off. */
  expansionWeight: number;
  /** Weight of the equivalents mined from the corpus (the index's `lexicon` file); 0 = off. */
  minedExpansionWeight: number;
}

export const DEFAULT_RETRIEVAL: RetrievalDefaults = {
  ...FITTED_FUSION,
  routeMinConfidence: 0.97,
  termMatch: 'whole',
  routeBoost: 0.5,
  contextBoost: 0.5,
  collapseTwins: false,
  expansionWeight: 0.3,
  minedExpansionWeight: 1,
};

/** Validates a parsed manifest; throws INDEX_FORMAT_UNSUPPORTED / INDEX_CORRUPT with what to do. */
export function parseManifest(json: unknown, source = 'manifest.json'): IndexManifest {
  if (typeof json !== 'object' || json === null) throw createError('INDEX_CORRUPT', source, 'not a JSON object');
  const m = json as Partial<IndexManifest>;
  if (m.format !== INDEX_FORMAT) throw createError('INDEX_CORRUPT', source, `format is ${String(m.format)}, expected ${INDEX_FORMAT}`);
  if (m.formatVersion !== INDEX_FORMAT_VERSION) {
    throw createError('INDEX_FORMAT_UNSUPPORTED', String(m.formatVersion), String(INDEX_FORMAT_VERSION));
  }
  if (typeof m.buildId !== 'string' || !m.files || typeof m.files !== 'object') {
    throw createError('INDEX_CORRUPT', source, 'buildId or files missing');
  }
  for (const role of ['documents', 'bm25'] as const) {
    if (!Object.hasOwn(m.files, role) || !m.files[role]) throw createError('INDEX_CORRUPT', source, `the ${role} file is not listed`);
  }
  const fragments = m.fragments as Partial<Record<FragmentKind, unknown>> | undefined;
  if (typeof fragments !== 'object' || fragments === null) throw createError('INDEX_CORRUPT', source, 'fragments missing');
  for (const kind of FRAGMENT_KINDS) {
    const count = fragments[kind];
    if (!Number.isInteger(count) || (count as number) < 1 || (count as number) > MAX_FRAGMENTS) throw createError('INDEX_CORRUPT', source, `fragments.${kind} is not a count of fragments`);
    for (let i = 0; i < (count as number); i++) {
      const key = fragmentKey(kind, i);
      if (!Object.hasOwn(m.files, key) || !m.files[key]) throw createError('INDEX_CORRUPT', source, `the fragment ${key} is not listed`);
    }
  }
  // Every field a reader uses, by type (the index fuzzer's finds): a boolean for a byte count or a folder for a
  // file name is refused here, not met as a TypeError while the files are read.
  checkManifestFields(m as Record<string, unknown>, source);
  // Only the roles and fragments this reader knows: an unknown one is neither downloaded nor stored.
  const files: IndexManifest['files'] = {};
  for (const role of INDEX_FILE_ROLES) if (Object.hasOwn(m.files, role)) files[role] = m.files[role];
  for (const kind of FRAGMENT_KINDS) {
    for (let i = 0; i < m.fragments![kind]; i++) files[fragmentKey(kind, i)] = m.files[fragmentKey(kind, i)];
  }
  const { site, ...rest } = m;
  const parsedSite = parseSiteInfo(site);
  return { ...rest, files, retrieval: retrievalDefaults(m.retrieval), ...(parsedSite ? { site: parsedSite } : {}) } as IndexManifest;
}

/**
 * A build from before the fusion fit names no fusion method, and its bm25Weight is min-max's
 * untuned 0.5 that every build wrote: it gets the fitted fusion whole rather than that weight
 * under another method.
 */
function retrievalDefaults(stored: Partial<RetrievalDefaults> | undefined): RetrievalDefaults {
  const retrieval = { ...DEFAULT_RETRIEVAL, ...stored };
  return stored && stored.fusion === undefined ? { ...retrieval, ...FITTED_FUSION } : retrieval;
}
