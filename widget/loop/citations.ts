/**
 * Citation markers in an answer: `[1]`, `[2,3]`, `[1][3]`, `[ 2 ]`, `[1-3]`, with Arabic-Indic
 * digits too (a model writing Arabic script numerals). Only numbers of passages the engine was
 * given survive; invented ones are removed from the text; the rest are renumbered 1..m in order of
 * first appearance, so the cards under the answer read [1], [2]… An answer citing nothing is not
 * grounded, whatever it says.
 *
 * Markers are read only in the engine's own text: document text an engine quotes is a run
 * (answer/document-text.ts), left exactly as it is, so a policy's own "[2] [99]" is neither
 * renumbered nor removed, and never counts as a citation.
 */
import { answerSegments, joinSegments } from '../answer/document-text.ts';
import { tableHeaderFor } from '../answer/quote-tables.ts';
import type { Citation } from '../answer/types.ts';
import { safeSourceUrl } from '../core/url-policy.ts';
import type { GradedPassage } from '../engines/engine.ts';
import { isQuotable, oneLine, splitSentences } from '../text/sentences.ts';
import { contentWords, coverage, termSet, type Word } from '../text/terms.ts';

const DIGIT = '[0-9\\u0660-\\u0669\\u06F0-\\u06F9]';
const MARKER = new RegExp(`[ \\t]*\\[\\s*(${DIGIT}+(?:\\s*(?:[,،;]|[-–]|\\s)\\s*${DIGIT}+)*)\\s*\\]`, 'gu');
/** A range wider than this is not a citation a reader can check ([1-100]): it is dropped. */
const MAX_RANGE = 10;

function toNumber(digits: string): number {
  const ascii = digits.replace(/[\u0660-\u0669]/g, (d) => String(d.charCodeAt(0) - 0x0660)).replace(/[\u06F0-\u06F9]/g, (d) => String(d.charCodeAt(0) - 0x06f0));
  return Number.parseInt(ascii, 10);
}

/** The numbers one marker names, in order ([2-4] → 2, 3, 4). */
function markerNumbers(inner: string): number[] {
  const out: number[] = [];
  for (const part of inner.replace(/\s*[-–]\s*/g, '-').split(/[\s,،;]+/u)) {
    if (!part) continue;
    const [from, to] = part.split('-');
    const a = toNumber(from);
    const b = to === undefined ? a : toNumber(to);
    if (b >= a && b - a < MAX_RANGE) for (let n = a; n <= b; n++) out.push(n);
  }
  return out;
}

export interface ParsedCitations {
  /** The answer with only real markers, renumbered, one bracket per number: `[1][2]`. */
  text: string;
  /** sources[m - 1] is the passage now cited as `[m]`. */
  sources: GradedPassage[];
  /** The engine's number → the number shown. */
  renumbered: Map<number, number>;
  /** Numbers the answer cited that name no passage, removed from the text. */
  dropped: number[];
  /** True when the answer cites at least one real passage. */
  grounded: boolean;
}

export function parseCitations(text: string, passages: readonly GradedPassage[]): ParsedCitations {
  const byN = new Map(passages.map((p) => [p.n, p]));
  const renumbered = new Map<number, number>();
  const sources: GradedPassage[] = [];
  const dropped: number[] = [];
  const rewrite = (whole: string, inner: string): string => {
    const shown: number[] = [];
    for (const n of markerNumbers(inner)) {
      const passage = byN.get(n);
      if (!passage) {
        if (!dropped.includes(n)) dropped.push(n);
        continue;
      }
      if (!renumbered.has(n)) {
        sources.push(passage);
        renumbered.set(n, sources.length);
      }
      const m = renumbered.get(n)!;
      if (!shown.includes(m)) shown.push(m);
    }
    const lead = whole.match(/^[ \t]*/)![0];
    // A dropped marker leaves its leading space: a real marker right after it still needs one.
    if (shown.length === 0) return lead;
    return lead + shown.map((m) => `[${m}]`).join('');
  };
  const segments = answerSegments(text);
  const out = segments.map((segment, i) => {
    if (segment.kind === 'document') return segment;
    // Spaces a removed marker left before punctuation or at a line's end go; the end of an engine
    // segment followed by document text is no line end.
    const end = i === segments.length - 1 ? /[ \t]+([.,;:!?]|$)/gm : /[ \t]+([.,;:!?]|(?=\n))/g;
    const rewritten = segment.text
      .replace(MARKER, rewrite)
      .replace(end, '$1')
      .replace(/[ \t]{2,}/g, ' ');
    return { kind: segment.kind, text: rewritten };
  });
  return { text: joinSegments(out), sources, renumbered, dropped, grounded: sources.length > 0 };
}

/** The passage sentence that best matches the reference's content `words` (the answer's words and the question's). */
export function bestSentence(passage: Pick<GradedPassage, 'text' | 'context' | 'title' | 'sectionPath'>, words: readonly Word[]): string {
  const all = splitSentences(passage.context || passage.text);
  const quotable = all.filter((s) => isQuotable(s, [passage.title, ...passage.sectionPath]));
  const sentences = quotable.length ? quotable : all;
  if (sentences.length === 0) return oneLine(passage.text);
  let best = sentences[0];
  let bestScore = -1;
  for (const s of sentences) {
    const score = coverage(words, termSet(s));
    if (score > bestScore) {
      best = s;
      bestScore = score;
    }
  }
  return oneLine(best);
}

/**
 * Citation cards for the parsed answer. `quotes` are the extractive engine's verbatim sentences by
 * the engine's numbering; without them the quote is the passage's sentence closest to the answer.
 */
export function buildCitations(parsed: ParsedCitations, options: { quotes?: ReadonlyMap<number, string>; reference: string | readonly Word[] }): Citation[] {
  // Read once for every card (a question's words come already read: its reading's).
  const words = typeof options.reference === 'string' ? contentWords(options.reference) : options.reference;
  return parsed.sources.map((p, i) => citationOf(p, i + 1, options.quotes?.get(p.n) ?? bestSentence(p, words)));
}

function citationOf(p: GradedPassage, n: number, quote: string): Citation {
  // A quoted table row is read under its header: the card shows it as a table (answer/quote-tables.ts).
  const tableHeader = tableHeaderFor(p.context || p.text, quote);
  const device = p.origin === 'device' && p.deviceDocument ? p.deviceDocument : null;
  return {
    n,
    origin: device ? 'device' : 'site',
    ...(device ? { deviceDocument: device } : {}),
    chunkId: p.chunkId,
    file: p.file,
    page: p.page,
    // The URL policy again (core/url-policy.ts): the index may have been edited since it was built.
    // A customer's own document has none: its card opens the page kept on the device.
    url: device ? null : safeSourceUrl(p.url),
    title: p.title,
    sectionPath: p.sectionPath,
    clause: p.clause,
    quote,
    alsoIn: [
      ...(p.alsoIn ?? []).map(({ file, page, title, url }) => ({ file, page, title, url: safeSourceUrl(url) })),
      ...(p.editions ?? []).map(({ file, page, title, url, lang }) => ({ file, page, title, url: safeSourceUrl(url), lang })),
    ],
    ...(p.references?.length ? { references: p.references.map(({ clause, page, text }) => ({ clause, page, text })) } : {}),
    ...(tableHeader ? { tableHeader } : {}),
  };
}
