/**
 * The model-free engine: answers with sentences quoted verbatim from the graded passages, so it
 * runs on any device and its grounding is exact. Sentences are scored by how much of the
 * question's content they cover (words weighted by their rarity among the candidate sentences),
 * scaled by the passage's grade, and picked by maximal marginal relevance so that a second quote
 * adds something the first did not say (other editions of a policy repeat the same clause).
 */
import { throwIfAborted } from '../core/errors.ts';
import { analyzeQuestion } from '../loop/analyze.ts';
import { strings, quoted } from '../loop/strings.ts';
import { isQuotable, oneLine, splitSentences } from '../loop/sentences.ts';
import { contentWords, coverage, localIdf, termSet } from '../loop/terms.ts';
import type { AnswerEngine, GenerateRequest, GenerateResult, GradedPassage } from './engine.ts';

export interface ExtractiveOptions {
  /** Quotes in an answer. */
  maxSentences?: number;
  /** MMR trade-off: 1 = relevance only, 0 = novelty only. */
  lambda?: number;
  /** Weighted coverage a sentence needs to be quoted beside the first. */
  minCoverage?: number;
}

export const EXTRACTIVE_DEFAULTS: Required<ExtractiveOptions> = { maxSentences: 3, lambda: 0.7, minCoverage: 0.25 };
/** Longer "sentences" are table dumps or run-on lists: quoted only when nothing shorter answers. */
const MAX_QUOTE_CHARS = 450;
const MIN_QUOTE_CHARS = 15;
/** Near-identical to a chosen quote (another edition's copy): never quoted twice. */
const DUPLICATE_SIMILARITY = 0.8;

export interface SelectedSentence {
  /** The passage's source number. */
  n: number;
  /** Verbatim from the passage (white space folded to single spaces). */
  sentence: string;
  score: number;
}

interface Candidate extends SelectedSentence {
  terms: Set<string>;
}

function jaccard(a: ReadonlySet<string>, b: ReadonlySet<string>): number {
  let shared = 0;
  for (const t of a) if (b.has(t)) shared++;
  const union = a.size + b.size - shared;
  return union ? shared / union : 0;
}

/** The sentences that answer `question` from `passages`, best first. */
export function selectSentences(question: string, passages: readonly GradedPassage[], options: ExtractiveOptions = {}): SelectedSentence[] {
  const { maxSentences, lambda, minCoverage } = { ...EXTRACTIVE_DEFAULTS, ...options };
  const words = contentWords(question);
  const raw: { n: number; sentence: string; relevance: number; terms: Set<string> }[] = [];
  for (const p of passages) {
    for (const s of splitSentences(p.context || p.text)) {
      const sentence = oneLine(s);
      if (sentence.length < MIN_QUOTE_CHARS || !isQuotable(sentence, [p.title, ...p.sectionPath])) continue;
      raw.push({ n: p.n, sentence, relevance: p.relevance, terms: termSet(sentence) });
    }
  }
  const idf = localIdf(words, raw.map((r) => r.terms));
  const candidates: Candidate[] = raw.map((r) => {
    const long = r.sentence.length > MAX_QUOTE_CHARS ? 0.5 : 1;
    return { n: r.n, sentence: r.sentence, terms: r.terms, score: coverage(words, r.terms, idf) * (0.6 + 0.4 * r.relevance) * long };
  });
  const chosen: Candidate[] = [];
  while (chosen.length < maxSentences) {
    let best: Candidate | null = null;
    let bestValue = -Infinity;
    for (const c of candidates) {
      if (chosen.includes(c)) continue;
      const similarity = chosen.reduce((m, s) => Math.max(m, jaccard(c.terms, s.terms)), 0);
      if (similarity >= DUPLICATE_SIMILARITY) continue;
      const value = lambda * c.score - (1 - lambda) * similarity;
      if (value > bestValue) {
        best = c;
        bestValue = value;
      }
    }
    // The first quote is the best there is; later ones must answer something themselves.
    if (!best || (chosen.length > 0 && best.score < minCoverage)) break;
    chosen.push(best);
  }
  return chosen.map(({ n, sentence, score }) => ({ n, sentence, score }));
}

export class ExtractiveEngine implements AnswerEngine {
  readonly mode = 'extractive' as const;
  private readonly options: ExtractiveOptions;

  constructor(options: ExtractiveOptions = {}) {
    this.options = options;
  }

  async generate(request: GenerateRequest): Promise<GenerateResult> {
    throwIfAborted(request.signal);
    // A follow-up ("ומה לגבי רכב?") selects on the words it was searched with, not its own few.
    const query = analyzeQuestion(request.question, request.history, request.lang).searchQuery;
    const selected = selectSentences(query, request.passages, this.options);
    const quotes = new Map<number, string>();
    if (selected.length === 0) return { text: '', quotes };
    const lines = [strings(request.lang).quoteIntro];
    request.onText?.(lines[0]);
    for (const s of selected) {
      await Promise.resolve();
      throwIfAborted(request.signal);
      lines.push(`${quoted(s.sentence)} [${s.n}]`);
      const previous = quotes.get(s.n);
      quotes.set(s.n, previous ? `${previous} … ${s.sentence}` : s.sentence);
      request.onText?.(lines.join('\n'));
    }
    return { text: lines.join('\n'), quotes };
  }
}
