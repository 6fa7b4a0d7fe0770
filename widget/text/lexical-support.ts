/**
 * Lexical support: is each claim of an answer backed by the words of the passages it cites? The
 * share of the claim's content words found in their text. The loop's ground step reads it for the
 * whole answer (or asks an LLM engine instead); the extractive engine reads it for a lead it builds.
 *
 * What counts as a claim: a sentence with at least MIN_CLAIM_WORDS content words that is not a
 * lead-in ending with a colon ("According to the policy documents:"). A sentence without a marker
 * takes the markers of the next cited sentence in its paragraph (models cite once per paragraph);
 * with none it is unsupported.
 */
import { passageMatchText, type MatchablePassage } from './passage-text.ts';
import { splitSentences } from './sentences.ts';
import { contentWords, coverage, termSet } from './terms.ts';

/**
 * Share of a sentence's content words that must appear in its cited passages. A paraphrase keeps
 * most of the clause's nouns and numbers; a claim from elsewhere shares few of them.
 */
export const SUPPORT_MIN_SHARE = 0.6;
const MIN_CLAIM_WORDS = 2;
const MARKERS = /\[(\d+)\]/g;

export interface Claim {
  sentence: string;
  /** Displayed citation numbers the sentence relies on. */
  citations: number[];
}

export interface SentenceSupport extends Claim {
  supported: boolean;
  /** Lexical share of its words found in the cited passages (also computed when an LLM judged). */
  share: number;
}

/** The answer's claims with the citation markers each relies on. */
export function answerClaims(text: string): Claim[] {
  const out: Claim[] = [];
  for (const paragraph of text.split(/\n\s*\n/)) {
    // "A. [1] B." cites A: move a marker that trails a sentence end in front of it before splitting.
    const moved = paragraph.replace(/([.!?;])(["”'»]?)(\s*)((?:\[\d+\])+)/g, '$4$1$2$3');
    const pending: Claim[] = [];
    for (const sentence of splitSentences(moved)) {
      const bare = sentence.replace(MARKERS, '').trim();
      if (bare.endsWith(':') || contentWords(bare).length < MIN_CLAIM_WORDS) continue;
      const citations = [...new Set([...sentence.matchAll(MARKERS)].map((m) => Number(m[1])))];
      const claim = { sentence: bare, citations };
      if (citations.length > 0) {
        for (const p of pending.splice(0)) p.citations = citations;
      } else pending.push(claim);
      out.push(claim);
    }
  }
  return out;
}

/** The passages a claim cites; `sources[m - 1]` is the passage displayed as `[m]`. */
export function citedPassages<P>(claim: Claim, sources: readonly P[]): P[] {
  return claim.citations.map((m) => sources[m - 1]).filter((p): p is P => p !== undefined);
}

/** Each claim of `text` with its lexical support in the passages it cites. */
export function lexicalSupport(text: string, sources: readonly MatchablePassage[], minShare = SUPPORT_MIN_SHARE): SentenceSupport[] {
  return answerClaims(text).map((c) => {
    const passages = citedPassages(c, sources);
    const terms = termSet(passages.map(passageMatchText).join('\n'));
    const share = passages.length ? coverage(contentWords(c.sentence), terms) : 0;
    return { ...c, share, supported: passages.length > 0 && share >= minShare };
  });
}

/** Supported claims / claims, 0 when the text makes no claim. */
export function supportedFraction(sentences: readonly SentenceSupport[]): number {
  return sentences.length ? sentences.filter((s) => s.supported).length / sentences.length : 0;
}
