/**
 * Step 6: is each sentence of the answer supported by a passage it cites? An engine with
 * `checkSupport` (an LLM) judges all sentences in one call; otherwise lexical support: the share of
 * the sentence's content words found in the text of the passages it cites.
 *
 * What counts as a claim: a sentence with at least MIN_CLAIM_WORDS content words that is not a
 * lead-in ending with a colon ("According to the policy documents:"). A sentence without a marker
 * takes the markers of the next cited sentence in its paragraph (models cite once per paragraph);
 * with none it is unsupported.
 */
import { throwIfAborted } from '../core/errors.ts';
import type { AnswerEngine, GradedPassage } from '../engines/engine.ts';
import { passageMatchText } from './grade.ts';
import { splitSentences } from './sentences.ts';
import { contentWords, coverage, termSet } from './terms.ts';

/**
 * Share of a sentence's content words that must appear in its cited passages. A paraphrase keeps
 * most of the clause's nouns and numbers; a claim from elsewhere shares few of them.
 */
export const SUPPORT_MIN_SHARE = 0.6;
const MIN_CLAIM_WORDS = 2;
const MARKERS = /\[(\d+)\]/g;

export interface SentenceSupport {
  sentence: string;
  /** Displayed citation numbers the sentence relies on. */
  citations: number[];
  supported: boolean;
  /** Lexical share of its words found in the cited passages (also computed when an LLM judged). */
  share: number;
}

export interface GroundResult {
  /** Supported claims / claims, 0 when the answer makes no claim. */
  fraction: number;
  sentences: SentenceSupport[];
  method: 'llm' | 'lexical';
}

function claims(text: string): { sentence: string; citations: number[] }[] {
  const out: { sentence: string; citations: number[] }[] = [];
  for (const paragraph of text.split(/\n\s*\n/)) {
    // "A. [1] B." cites A: move a marker that trails a sentence end in front of it before splitting.
    const moved = paragraph.replace(/([.!?;])(["”'»]?)(\s*)((?:\[\d+\])+)/g, '$4$1$2$3');
    const pending: { sentence: string; citations: number[] }[] = [];
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

/** `sources[m - 1]` is the passage displayed as `[m]` (ParsedCitations.sources). */
export async function groundAnswer(
  text: string,
  sources: readonly GradedPassage[],
  engine: Pick<AnswerEngine, 'checkSupport'>,
  options: { signal?: AbortSignal; minShare?: number } = {},
): Promise<GroundResult> {
  const minShare = options.minShare ?? SUPPORT_MIN_SHARE;
  const list = claims(text);
  const cited = (c: { citations: number[] }) => c.citations.map((m) => sources[m - 1]).filter((p): p is GradedPassage => p !== undefined);
  const sentences = list.map((c) => {
    const passages = cited(c);
    const terms = termSet(passages.map(passageMatchText).join('\n'));
    const share = passages.length ? coverage(contentWords(c.sentence), terms) : 0;
    return { ...c, share, supported: passages.length > 0 && share >= minShare };
  });
  let method: GroundResult['method'] = 'lexical';
  if (engine.checkSupport && sentences.length > 0) {
    const verdicts = await engine.checkSupport(
      sentences.map((s) => ({ sentence: s.sentence, sources: cited(s).map((p) => p.context || p.text) })),
      options.signal,
    );
    throwIfAborted(options.signal);
    sentences.forEach((s, i) => (s.supported = s.citations.length > 0 && verdicts[i] === true));
    method = 'llm';
  }
  const supported = sentences.filter((s) => s.supported).length;
  return { fraction: sentences.length ? supported / sentences.length : 0, sentences, method };
}
