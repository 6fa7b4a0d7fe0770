/**
 * Editions of one policy in other languages, aligned page to page with its Hebrew edition. An
 * English (Russian, Arabic) translation shares almost no words with the Hebrew text, but it keeps
 * the numbers: clause numbers (3.7.4), amounts (1,200,000), percentages, dates. So:
 * 1. each non-Hebrew document is paired with the Hebrew document of its domain whose set of such
 *    numbers it shares most (Jaccard), when that share is high and clearly the best;
 * 2. the two documents' pages are aligned in order (a monotonic alignment maximising the summed
 *    Jaccard of the pages' number sets, pages of either side free to stay unmatched), and a page
 *    pair is kept only when it shares enough numbers.
 * Measured on the Harel corpus (README, "Editions across languages"): true pairs share 0.66–0.99
 * of their numbers, other products 0.25 at most, except two near-identical travel products
 * (first class 0.98, premium passport 0.92), which the margin rule leaves to the best.
 */
import { finishNow, textPieces, type Steps } from '../../widget/core/steps.ts';

/** A document as the aligner sees it: its domain, its script and its pages' texts. */
export interface EditionDocument {
  domain: string;
  pages: readonly { page: number; text: string }[];
}

export type EditionScript = 'hebrew' | 'latin' | 'cyrillic' | 'arabic';

export interface EditionLink {
  /** Index of the non-Hebrew document and its page. */
  doc: number;
  page: number;
  /** Index of the Hebrew document and its page. */
  hebrewDoc: number;
  hebrewPage: number;
  /** The non-Hebrew edition's script. */
  script: EditionScript;
}

/** The language code an edition's script stands for in this corpus (Latin-script policies are English). */
export const SCRIPT_LANG: Record<EditionScript, string> = { hebrew: 'he', latin: 'en', cyrillic: 'ru', arabic: 'ar' };

/** The links as each document's editions, both ways (IndexedDocument.editions). */
export function editionRefs(links: readonly EditionLink[]): Map<number, { doc: number; lang: string; pages: [number, number][] }[]> {
  const out = new Map<number, Map<number, { doc: number; lang: string; pages: [number, number][] }>>();
  const add = (from: number, to: number, lang: string, pair: [number, number]) => {
    let refs = out.get(from);
    if (!refs) out.set(from, (refs = new Map()));
    let ref = refs.get(to);
    if (!ref) refs.set(to, (ref = { doc: to, lang, pages: [] }));
    ref.pages.push(pair);
  };
  for (const l of links) {
    add(l.doc, l.hebrewDoc, 'he', [l.page, l.hebrewPage]);
    add(l.hebrewDoc, l.doc, SCRIPT_LANG[l.script], [l.hebrewPage, l.page]);
  }
  return new Map([...out].map(([doc, refs]) => [doc, [...refs.values()]]));
}

export interface EditionOptions {
  /** Smallest share of numbers two documents must have in common to be editions of each other. */
  minDocumentSimilarity?: number;
  /** The best Hebrew document must beat the second best by this much (unless the two are near-identical pages). */
  minMargin?: number;
  /** Numbers the two documents must share at least. */
  minSharedNumbers?: number;
  /** Smallest Jaccard of two pages' numbers for the pair to be kept. */
  minPageSimilarity?: number;
  /** Numbers two pages must share at least. */
  minPageShared?: number;
}

/** Two Hebrew documents sharing this much of their numbers are one text (a copy, a reissue). */
const SAME_TEXT = 0.9;

const DEFAULTS: Required<EditionOptions> = { minDocumentSimilarity: 0.5, minMargin: 0.03, minSharedNumbers: 20, minPageSimilarity: 0.25, minPageShared: 2 };

/**
 * The numbers that survive translation: dotted clause numbers and decimals, numbers of three or
 * more digits (amounts, years), percentages. One- and two-digit numbers are left out: page
 * numbers and list counters match everywhere.
 */
export function alignmentNumbers(text: string): Set<string> {
  const out = new Set<string>();
  for (const m of text.matchAll(/\d+(?:[.,]\d+)+%?|\d{3,}%?|\d+%/g)) {
    // Thousands separators dropped (1,200 = 1200); stray dots of reversed Hebrew lines trimmed.
    const n = m[0].replace(/,(?=\d{3}(?!\d))/g, '').replace(/^[.,]+|[.,]+$/g, '');
    if (/[.,]/.test(n) || n.length >= 3 || n.includes('%')) out.add(n);
  }
  return out;
}

/** The script most of a text's letters are in. */
export function dominantScript(text: string): EditionScript {
  return finishNow(dominantScriptSteps(text));
}

const SCRIPT_LETTERS: [EditionScript, RegExp][] = [
  ['hebrew', /[\u05d0-\u05ea]/g],
  ['latin', /[A-Za-z]/g],
  ['cyrillic', /[\u0400-\u04ff]/g],
  ['arabic', /[\u0600-\u06ff]/g],
];

/** `dominantScript` as steps, one per piece of a long text (letters are counted piece by piece). */
function* dominantScriptSteps(text: string): Steps<EditionScript> {
  const scores: [EditionScript, number][] = SCRIPT_LETTERS.map(([script]) => [script, 0]);
  for (const piece of textPieces(text)) {
    yield;
    SCRIPT_LETTERS.forEach(([, re], i) => (scores[i][1] += (piece.match(re) ?? []).length));
  }
  return scores.reduce((a, b) => (b[1] > a[1] ? b : a))[0];
}

function jaccard(a: ReadonlySet<string>, b: ReadonlySet<string>): { similarity: number; shared: number } {
  let shared = 0;
  for (const x of a) if (b.has(x)) shared++;
  const union = a.size + b.size - shared;
  return { similarity: union ? shared / union : 0, shared };
}

/**
 * Pages of `a` and `b` paired in order, maximising the summed similarity (a pair below the page
 * thresholds scores nothing, so it is never chosen over leaving both pages unmatched).
 */
function alignPages(a: readonly Set<string>[], b: readonly Set<string>[], o: Required<EditionOptions>): [number, number][] {
  const score = a.map((x) =>
    b.map((y) => {
      const j = jaccard(x, y);
      return j.similarity >= o.minPageSimilarity && j.shared >= o.minPageShared ? j.similarity : 0;
    }),
  );
  // best[i][j]: the best total over a[i..] and b[j..].
  const best = Array.from({ length: a.length + 1 }, () => new Float64Array(b.length + 1));
  for (let i = a.length - 1; i >= 0; i--) {
    for (let j = b.length - 1; j >= 0; j--) {
      best[i][j] = Math.max(best[i + 1][j], best[i][j + 1], score[i][j] > 0 ? score[i][j] + best[i + 1][j + 1] : 0);
    }
  }
  const pairs: [number, number][] = [];
  let i = 0;
  let j = 0;
  while (i < a.length && j < b.length) {
    if (score[i][j] > 0 && best[i][j] === score[i][j] + best[i + 1][j + 1]) pairs.push([i++, j++]);
    else if (best[i][j] === best[i + 1][j]) i++;
    else j++;
  }
  return pairs;
}

export interface EditionPair {
  doc: number;
  hebrewDoc: number;
  script: EditionScript;
  similarity: number;
}

/** Each non-Hebrew document's Hebrew edition, where one is clear. */
export function pairEditions(documents: readonly EditionDocument[], options: EditionOptions = {}): EditionPair[] {
  return finishNow(pairEditionsSteps(documents, options));
}

function* pairEditionsSteps(documents: readonly EditionDocument[], options: EditionOptions): Steps<EditionPair[]> {
  const o = { ...DEFAULTS, ...options };
  const scripts: EditionScript[] = [];
  const numbers: Set<string>[] = [];
  for (const d of documents) {
    yield;
    scripts.push(yield* dominantScriptSteps(d.pages.map((p) => p.text).join(' ')));
    numbers.push(alignmentNumbers(d.pages.map((p) => p.text).join('\n')));
  }
  const pairs: EditionPair[] = [];
  for (let i = 0; i < documents.length; i++) {
    const d = documents[i];
    yield;
    if (scripts[i] === 'hebrew' || numbers[i].size < o.minSharedNumbers) continue;
    const ranked = documents
      .map((_h, j) => ({ j, ...jaccard(numbers[i], numbers[j]) }))
      .filter(({ j }) => j !== i && scripts[j] === 'hebrew' && documents[j].domain === d.domain)
      .sort((x, y) => y.similarity - x.similarity || x.j - y.j);
    const [first, second] = ranked;
    if (!first || first.similarity < o.minDocumentSimilarity || first.shared < o.minSharedNumbers) continue;
    // A close second is a rival only when it is another text: copies and reissues of one Hebrew
    // edition (the same numbers) are all right answers.
    if (second && first.similarity - second.similarity < o.minMargin && jaccard(numbers[first.j], numbers[second.j]).similarity < SAME_TEXT) continue;
    pairs.push({ doc: i, hebrewDoc: first.j, script: scripts[i], similarity: first.similarity });
  }
  return pairs;
}

/** Every page of a non-Hebrew edition that has its counterpart in the Hebrew edition. */
export function alignEditions(documents: readonly EditionDocument[], options: EditionOptions = {}): EditionLink[] {
  return finishNow(alignEditionsSteps(documents, options));
}

/** `alignEditions` as steps, one per document and per edition pair (the build runs it with pauses: widget/core/steps.ts). */
export function* alignEditionsSteps(documents: readonly EditionDocument[], options: EditionOptions = {}): Steps<EditionLink[]> {
  const o = { ...DEFAULTS, ...options };
  const links: EditionLink[] = [];
  for (const pair of yield* pairEditionsSteps(documents, o)) {
    yield;
    const a = documents[pair.doc].pages;
    const b = documents[pair.hebrewDoc].pages;
    const na = a.map((p) => alignmentNumbers(p.text));
    const nb = b.map((p) => alignmentNumbers(p.text));
    // Translations run longer or shorter, so a page's text often spills onto its counterpart's
    // neighbour: next to an aligned pair, a page that shares numbers with the other side is linked
    // too (adjacency already vouches for it, so a few shared numbers suffice).
    const spills = (i: number, j: number) => i >= 0 && j >= 0 && i < a.length && j < b.length && jaccard(na[i], nb[j]).shared >= o.minPageShared;
    const seen = new Set<string>();
    const link = (i: number, j: number) => {
      if (seen.has(`${i}:${j}`)) return;
      seen.add(`${i}:${j}`);
      links.push({ doc: pair.doc, page: a[i].page, hebrewDoc: pair.hebrewDoc, hebrewPage: b[j].page, script: pair.script });
    };
    const aligned = alignPages(na, nb, o);
    for (const [i, j] of aligned) link(i, j);
    for (const [i, j] of aligned) {
      for (const [x, y] of [
        [i, j - 1],
        [i, j + 1],
        [i - 1, j],
        [i + 1, j],
      ])
        if (spills(x, y)) link(x, y);
    }
  }
  return links;
}
