/**
 * The element's configuration: its attributes and properties read once, after each change, into
 * one typed `ChatConfig` (defaults applied, enumerations checked, URLs resolved against the page),
 * which the session and the views read instead of the raw strings. `RESTART_FIELDS` is the one
 * list of what a running session was built from: a change to any of them starts a new session.
 */
import type { Lang } from '../core/schema.ts';
import { resolveGgufUrl } from '../engines/gguf/gguf-location.ts';
import { DEFAULT_READER_CALLS } from '../engines/reader.ts';
import type { EngineSetting } from '../session/engine-choice.ts';
import type { ContactChannels } from '../text/strings.ts';

export type ModeSetting = 'auto' | 'llm' | 'extractive';

export const DEFAULT_MODEL = 'gemma-2-2b-it-q4f16_1-MLC';

/** Starter questions as a site gives them: per language, or one list for every language. */
export type StarterQuestions = Partial<Record<Lang, string[]>> | string[];

/** The element's configurable fields as the page sets them (attributes or properties), unchecked. */
export interface ChatAttributes {
  index: string;
  lang: string;
  domain: string;
  mode: string;
  model: string;
  modelBase: string;
  llmEngine: string;
  ggufModel: string;
  ggufAnswers: string;
  readerModel: string;
  readerCalls: string;
  readerRefuses: boolean;
  embedder: string;
  queryModel: string;
  theme: string;
  debug: boolean;
  siteName: string;
  contactPhone: string;
  contactWebsite: string;
  contactEmail: string;
  contactHours: string;
  contacts: ContactChannels | undefined;
  starters: StarterQuestions | undefined;
}

/** What an unset attribute means. */
export const ATTRIBUTE_DEFAULTS: ChatAttributes = {
  index: '',
  lang: 'auto',
  domain: '',
  mode: 'auto',
  model: DEFAULT_MODEL,
  modelBase: '',
  llmEngine: 'webllm',
  ggufModel: '',
  ggufAnswers: 'measured',
  readerModel: '',
  readerCalls: '',
  readerRefuses: false,
  embedder: '',
  queryModel: '',
  theme: 'light',
  debug: false,
  siteName: '',
  contactPhone: '',
  contactWebsite: '',
  contactEmail: '',
  contactHours: '',
  contacts: undefined,
  starters: undefined,
};

/** The names of the configurable fields: a change to one of them makes a new `ChatConfig`. */
export const CONFIG_KEYS = Object.keys(ATTRIBUTE_DEFAULTS) as (keyof ChatAttributes)[];

export interface ChatConfig {
  /** The index's manifest, absolute; null without an `index` (no session starts). */
  manifestUrl: string | null;
  /** 'he', 'en' or 'auto' (the page's language, resolved when shown). */
  lang: Lang | 'auto';
  /** A fixed product domain, or null. */
  domain: string | null;
  mode: ModeSetting;
  /** web-llm model id. */
  model: string;
  /** The self-hosted model folder, absolute; null for the public hubs. */
  modelBase: string | null;
  llmEngine: EngineSetting;
  /** The GGUF answer model's absolute URL. */
  ggufUrl: string;
  ggufAnswers: 'measured' | 'all';
  /** The reader model; null without `reader-model`. */
  reader: { url: string; maxCalls: number; refuses: boolean } | null;
  embedder: string | null;
  queryModel: string | null;
  debug: boolean;
  /** The contact channels the page set: the `contacts` property, then the attributes, field by field. */
  contactLayers: readonly Partial<ContactChannels>[];
  starters: StarterQuestions | undefined;
}

/**
 * What a session is built from; a change to any of these starts a new one. Everything else (the
 * language, domain, contacts, starters, debug) is read per question or per render.
 */
export const RESTART_FIELDS = ['manifestUrl', 'modelBase', 'embedder', 'queryModel', 'mode', 'model', 'llmEngine', 'ggufUrl', 'ggufAnswers', 'reader'] as const satisfies readonly (keyof ChatConfig)[];

/** Whether a session started with `running` must be replaced for `next`. */
export function needsRestart(running: ChatConfig, next: ChatConfig): boolean {
  return RESTART_FIELDS.some((field) => JSON.stringify(running[field]) !== JSON.stringify(next[field]));
}

const oneOf = <T extends string>(value: string, allowed: readonly T[], fallback: T): T => ((allowed as readonly string[]).includes(value) ? (value as T) : fallback);

/** `value` resolved against the page, or null when unset. */
const absolute = (value: string, baseUrl: string): string | null => (value ? new URL(value, baseUrl).href : null);

export function parseConfig(raw: ChatAttributes, baseUrl: string): ChatConfig {
  const modelBase = absolute(raw.modelBase, baseUrl);
  const calls = Number.parseInt(raw.readerCalls, 10);
  return {
    manifestUrl: absolute(raw.index, baseUrl),
    lang: oneOf(raw.lang, ['he', 'en', 'auto'] as const, 'auto'),
    domain: raw.domain || null,
    mode: oneOf(raw.mode, ['auto', 'llm', 'extractive'] as const, 'auto'),
    model: raw.model || DEFAULT_MODEL,
    modelBase,
    llmEngine: oneOf(raw.llmEngine, ['webllm', 'gguf', 'auto'] as const, 'webllm'),
    ggufUrl: resolveGgufUrl({ ggufModel: raw.ggufModel || null, modelBase, baseUrl }),
    ggufAnswers: raw.ggufAnswers === 'all' ? 'all' : 'measured',
    reader: raw.readerModel
      ? {
          url: resolveGgufUrl({ ggufModel: raw.readerModel, modelBase, baseUrl }),
          maxCalls: Number.isFinite(calls) && calls > 0 ? calls : DEFAULT_READER_CALLS,
          refuses: raw.readerRefuses,
        }
      : null,
    embedder: raw.embedder || null,
    queryModel: raw.queryModel || null,
    debug: raw.debug,
    contactLayers: [raw.contacts ?? {}, { name: raw.siteName, phone: raw.contactPhone, website: raw.contactWebsite, email: raw.contactEmail, hours: raw.contactHours }],
    starters: raw.starters,
  };
}

/**
 * The contact channels in use: the index's `site` block, overridden field by field by the page's
 * layers; empty strings leave a field to the layer below. Undefined when nothing is set anywhere.
 */
export function mergeContacts(site: Partial<ContactChannels> | undefined, layers: readonly Partial<ContactChannels>[]): ContactChannels | undefined {
  const merged: ContactChannels = {};
  for (const layer of [site, ...layers]) {
    for (const [key, value] of Object.entries(layer ?? {}) as [keyof ContactChannels, ContactChannels[keyof ContactChannels]][]) {
      if (typeof value === 'string' ? value.trim() : value) (merged as Record<string, unknown>)[key] = value;
    }
  }
  return Object.keys(merged).length ? merged : undefined;
}

const questionList = (list: unknown): string[] => (Array.isArray(list) ? list.filter((q): q is string => typeof q === 'string' && q.trim() !== '').map((q) => q.trim()) : []);

/** The `starters` attribute: JSON, `{"he": [...], "en": [...]}` or one list; anything else is ignored. */
export const startersAttribute = {
  fromAttribute(value: string | null): StarterQuestions | undefined {
    if (!value) return undefined;
    try {
      const parsed: unknown = JSON.parse(value);
      if (Array.isArray(parsed)) return questionList(parsed);
      if (typeof parsed === 'object' && parsed !== null) {
        const raw = parsed as Record<string, unknown>;
        return { he: questionList(raw.he), en: questionList(raw.en) };
      }
    } catch {
      // Not JSON: as if unset.
    }
    return undefined;
  },
};
