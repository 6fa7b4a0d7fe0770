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
import { DEVICE_PREFERENCE } from '../core/retrieval/retriever.ts';
import { documentText } from '../answer/document-text.ts';
import { throwIfAborted } from '../core/errors.ts';
import { expandQuery } from '../core/retrieval/expand.ts';
import { detectLang } from '../core/tokenizer/index.ts';
import { clauseTitleAt } from '../text/clause-title.ts';
import { findContacts } from '../text/contacts.ts';
import { answersType, askedFacts, isFactKind } from '../text/facts.ts';
import { readStandalone, type QuestionReading } from '../text/question-reading.ts';
import { quoted } from '../text/strings.ts';
import { isQuotable, oneLine, sentenceSpans } from '../text/sentences.ts';
import { contentWords, coverage, localIdf, termSet } from '../text/terms.ts';
import { factLead, quotedVerdict, quotesFrame, type QuotedSentence } from './answer-leads.ts';
import { contactLead } from './contact-lead.ts';
import type { AnswerEngine, GenerateRequest, GenerateResult, GradedPassage } from './engine.ts';

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
/** Longer "sentences" are table dumps or run-on lists: quoted only when nothing shorter answers. */
const MAX_QUOTE_CHARS = 450;
const MIN_QUOTE_CHARS = 15;
/** Near-identical to a chosen quote (another edition's copy): never quoted twice. */
export const DUPLICATE_SIMILARITY = 0.8;

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

export function jaccard(a: ReadonlySet<string>, b: ReadonlySet<string>): number {
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
function selectionWords(searched: QuestionReading['searched'], passages: readonly GradedPassage[]): readonly ReturnType<typeof contentWords>[number][] {
  const foreign = passages.length > 0 && passages.every((p) => detectLang(p.context || p.text) !== searched.lang);
  return foreign ? contentWords(`${searched.text} ${expandQuery(searched.text).terms}`) : searched.words;
}

/**
 * The sentences that answer the question from `passages`, best first: scored on the searched
 * words, for what the question asks (its reading's `asking`). A bare string is read as a question
 * asked alone.
 */
export function selectSentences(question: QuestionReading | string, passages: readonly GradedPassage[], options: ExtractiveOptions = {}): SelectedSentence[] {
  return pickSentences(scoreSentences(typeof question === 'string' ? readStandalone(question) : question, passages, options), options);
}

/** Every quotable sentence of `passages` with its lexical score (coverage × grade × answer type), in passage order. */
export function scoreSentences(reading: QuestionReading, passages: readonly GradedPassage[], options: ExtractiveOptions = {}): ScoredSentence[] {
  const { answerTypeBonus } = { ...EXTRACTIVE_DEFAULTS, ...options };
  const question = reading.searched.text;
  const type = reading.asking.type;
  const words = selectionWords(reading.searched, passages);
  const raw: { n: number; sentence: string; relevance: number; terms: Set<string>; sectionPath: readonly string[]; page: string; own: boolean }[] = [];
  for (const p of passages) {
    const text = p.context || p.text;
    for (const span of sentenceSpans(text)) {
      const sentence = oneLine(span.text);
      if (sentence.length < MIN_QUOTE_CHARS || !isQuotable(sentence, [p.title, ...p.sectionPath])) continue;
      // A clause's later sentence holds under its title ("2.4 רעידת אדמה – … ההשתתפות העצמית
      // היא 10%…"): the title's words count as the sentence's own.
      const title = clauseTitleAt(text, span.start);
      const terms = termSet(title && !sentence.includes(title) ? `${title} ${sentence}` : sentence);
      raw.push({ n: p.n, sentence, relevance: p.relevance, terms, sectionPath: title ? [...p.sectionPath, title] : p.sectionPath, page: `${p.file}\u0000${p.page}`, own: p.origin === 'device' });
    }
  }
  // A quantity about the term the question names ("מה ההשתתפות העצמית"), not any quantity: a
  // housing allowance of 6,000 ש"ח must not win the bonus a deductible earns.
  const asked = reading.searchedAskedTerms;
  // A question asking how to reach the insurer is answered by a sentence stating an asked channel's contact.
  const channels = reading.contactChannels;
  const statesContact = (sentence: string) => channels !== null && findContacts(sentence).some((c) => channels.includes(c.channel));
  const carriesAnswer = (sentence: string, sectionPath: readonly string[]) =>
    statesContact(sentence) || (isFactKind(type) ? askedFacts(sentence, question, type, asked, sectionPath).length > 0 : type !== 'other' && answersType(sentence, type, sectionPath));
  // A sentence stating the asked fact under a heading or clause title that names the asked term
  // ("השתתפות עצמית" over "בכל תביעה לנזקי מים ינוכה… 850 ש"ח") holds that term too (and its
  // lexicon equivalents): what tells such sentences apart is then the rest of the question.
  const askedTerms = termSet(asked.map((a) => `${a} ${expandQuery(a).terms}`).join(' '));
  for (const r of raw) if (asked.length > 0 && carriesAnswer(r.sentence, r.sectionPath)) for (const t of askedTerms) r.terms.add(t);
  const idf = localIdf(
    words,
    raw.map((r) => r.terms),
  );
  return raw.map((r) => {
    const long = r.sentence.length > MAX_QUOTE_CHARS ? 0.5 : 1;
    const relevance = coverage(words, r.terms, idf) * (0.6 + 0.4 * r.relevance) * long;
    const bonus = carriesAnswer(r.sentence, r.sectionPath) ? answerTypeBonus : 1;
    const asks = /[?؟]\s*$/u.test(r.sentence) ? QUESTION_FACTOR : 1;
    // The customer's own document is preferred where it answers as well as the site's booklet
    // (its figures are theirs), as retrieval prefers it; a sentence of theirs that does not state
    // the asked fact still loses to one of the site's that does (the answer-type bonus is larger).
    const own = r.own ? 1 + DEVICE_PREFERENCE : 1;
    return { n: r.n, sentence: r.sentence, terms: r.terms, page: r.page, relevance: relevance * asks, score: relevance * asks * bonus * own };
  });
}

/** The quotes, by maximal marginal relevance over `candidates` (scoreSentences). */
function pickSentences(candidates: readonly ScoredSentence[], options: ExtractiveOptions = {}): SelectedSentence[] {
  const { maxSentences, lambda, minCoverage, samePage } = { ...EXTRACTIVE_DEFAULTS, ...options };
  const chosen: ScoredSentence[] = [];
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

export class ExtractiveEngine implements AnswerEngine {
  readonly mode = 'extractive' as const;
  private readonly options: ExtractiveOptions;

  constructor(options: ExtractiveOptions = {}) {
    this.options = options;
  }

  async generate(request: GenerateRequest): Promise<GenerateResult> {
    throwIfAborted(request.signal);
    // A follow-up ("ומה לגבי רכב?") selects on the words it was searched with, not its own few,
    // for what it asks (read from the searched words when the question alone is too short to say).
    const { reading } = request;
    const type = reading.asking.type;
    const selected = selectSentences(reading, request.passages, this.options);
    const quotes = new Map<number, string>();
    if (selected.length === 0) return { text: '', quotes };
    const byN = new Map(request.passages.map((p) => [p.n, p]));
    const quotedSentences: QuotedSentence[] = selected.map((s) => ({ n: s.n, sentence: s.sentence, passage: byN.get(s.n)! }));
    const fact = await factLead(reading, request.lang, quotedSentences, request.passages);
    const contacts = contactLead(reading, request.lang, quotedSentences, request.passages);
    // The quote under a contact lead holds the contacts it lists (its sentence, or the stretch of it
    // that lists them), after the best quote, unless a quote already holds it.
    if (contacts && !selected.some((s) => s.n === contacts.source.n && s.sentence.includes(contacts.source.sentence))) {
      selected.splice(1, 0, { ...contacts.source, score: 0, relevance: 0 });
      quotedSentences.splice(1, 0, { ...contacts.source, passage: byN.get(contacts.source.n)! });
    }
    throwIfAborted(request.signal);
    const verdict = type === 'coverage' ? quotedVerdict(quotedSentences) : null;
    const lines: string[] = [];
    const emit = (line: string) => {
      lines.push(line);
      request.onText?.(lines.join('\n'));
    };
    if (fact) emit(fact);
    if (contacts) emit(contacts.text);
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
