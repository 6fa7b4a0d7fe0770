/**
 * The answer loop as an explicit state machine. Each state is one step module; `transition` is the
 * whole control flow, so the order can be read (and tested) in one place:
 *
 *   analyze → retrieve → route ─off-topic→ fallback → done
 *                          └→ grade ─nothing kept→ retry → retrieve (once, broader)
 *                               └→ generate → ground ─not grounded→ retry (once)
 *                                               ├─not answerable→ fallback → done
 *                                               └→ read → done (second failure → fallback → done)
 *
 * retrieve precedes route: the search service routes and retrieves in one call (one worker round
 * trip), and off-topic detection needs both the router's evidence and what retrieval found. The
 * route step also measures the search's evidence (evidence.ts) once; the fitted answerability
 * models (answerability.ts) read it there for off-topic, and at the ground step for the refusal
 * and the confidence tier. A refusal on evidence is not retried: the broader retry exists for
 * mechanical failures (nothing kept, an answer its passages do not support).
 *
 * read: the reader model (read.ts) reads the cited page(s) once the answer is composed; the draft
 * goes to `onDraft` first, so the customer reads the extractive answer while the model reads. A
 * page without a reader passes through it at once (the answer says why it was skipped).
 */
import type { Answer, AnswerReader, AnswerTimings, ChatTurn, Citation, Confidence } from '../answer/types.ts';
import { createError, isHarelError, throwIfAborted } from '../core/errors.ts';
import type { Lang } from '../core/schema.ts';
import type { AnswerEngine, GenerateResult, GradedPassage } from '../engines/engine.ts';
import type { PassageReader } from '../engines/reader.ts';
import type { ContextPassage, SearchRequest, SearchService } from '../search/search-service.ts';
import { analyzeQuestion, type AnalyzedQuestion } from './analyze.ts';
import { buildCitations, parseCitations, type ParsedCitations } from './citations.ts';
import { confidenceTier, withCaveat } from './confidence.ts';
import { broaderRequest, refusalWithClosest } from './fallback.ts';
import { generateAnswer, numberPassages } from './generate.ts';
import { gradeFeatures, gradePassages, type GradedCandidate, type GradeResult } from './grade.ts';
import { groundAnswer, type GroundResult } from './ground.ts';
import { readAnswer, skippedReader } from './read.ts';
import { rankedPassages, retrieve, type Retrieved } from './retrieve.ts';
import { repeatsPreviousAnswer } from './repeated-answer.ts';
import { offTopicText, routedDomain } from './route.ts';
import { assess, modelFor, readsQuote, refusalReadsQuote, type AnswerabilityModel, type Assessment } from './answerability.ts';
import { computeEvidence, quoteHead, type Evidence } from './evidence.ts';
import { leadMissesAsked } from './facts.ts';
import { askingText } from './question-type.ts';
import { smallTalkKind } from './small-talk.ts';
import { strings, type ContactChannels } from './strings.ts';
import { routerTopicFit } from './topic-fit.ts';

export type LoopState = 'analyze' | 'route' | 'retrieve' | 'grade' | 'generate' | 'ground' | 'read' | 'retry' | 'fallback' | 'done';

/** What the transitions look at, and nothing else. */
export interface LoopFacts {
  offTopic: boolean;
  kept: number;
  grounded: boolean;
  retried: boolean;
  /** The evidence says the documents do not answer: refuse without a retry. */
  notAnswerable: boolean;
}

export function transition(state: LoopState, facts: LoopFacts): LoopState {
  switch (state) {
    case 'analyze':
      return 'retrieve';
    case 'retrieve':
      return 'route';
    case 'route':
      return facts.offTopic ? 'fallback' : 'grade';
    case 'grade':
      return facts.kept > 0 ? 'generate' : facts.retried ? 'fallback' : 'retry';
    case 'retry':
      return 'retrieve';
    case 'generate':
      return 'ground';
    case 'ground':
      return facts.grounded ? 'read' : facts.notAnswerable || facts.retried ? 'fallback' : 'retry';
    case 'read':
    case 'fallback':
    case 'done':
      return 'done';
  }
}

export interface LoopInput {
  question: string;
  /** The conversation before this question. */
  history: ChatTurn[];
  /** The site's fixed domain: no routing, no domain guessing. */
  domain?: string | null;
  /** The interface language: the answer's only when the question has no letters; it is otherwise the question's own. */
  lang?: Lang | 'auto';
}

export interface LoopDeps {
  search: SearchService;
  engine: AnswerEngine;
  /** Named in the off-topic reply; unset, the reply names no insurer. */
  contacts?: ContactChannels;
  /** The reader model and how the page uses it; unset: answers say the reader was skipped. */
  reader?: ReaderSetup;
}

export interface ReaderSetup {
  /** Null while it loads, or where the device cannot run it (`unavailable` says why). */
  reader: PassageReader | null;
  unavailable?: string;
  /** Reader calls per answer (read.ts DEFAULT_READER_CALLS). */
  maxCalls: number;
  /** Refuse where every window read says "not in this passage" (and the answer is not "high"). */
  refuses: boolean;
}

export interface LoopOptions {
  signal?: AbortSignal;
  onState?: (state: LoopState) => void;
  onText?: (text: string) => void;
  /** The composed answer before the reader reads (only where a reader is loaded): shown while it reads. */
  onDraft?: (answer: Answer) => void;
  /** Threshold overrides for calibration and evals (builder/eval/calibrate-grade.ts); the widget uses the defaults. */
  tuning?: LoopTuning;
}

export interface LoopTuning {
  /** Grading threshold (GRADE_MIN_RELEVANCE). */
  minRelevance?: number;
  /** The answerability models and thresholds (the fitting script collects features with its own). */
  answerability?: AnswerabilityModel;
}

interface Context {
  input: LoopInput;
  deps: LoopDeps;
  options: LoopOptions;
  facts: LoopFacts;
  timings: AnswerTimings;
  analyzed?: AnalyzedQuestion;
  request?: SearchRequest;
  retrieved?: Retrieved;
  /** The first search's whole ranked list: what evaluations score (a retry does not replace it). */
  ranked?: ContextPassage[];
  /** Grading features of the retrieved passages: off-topic detection and grading share them. */
  features?: ReturnType<typeof gradeFeatures>;
  /** The latest search's evidence and what the fitted models make of it. */
  evidence?: Evidence;
  /** The models that decide this question (the tuning's, else the ones its search's evidence calls for). */
  model?: AnswerabilityModel;
  assessment?: Assessment;
  domain: string | null;
  grade?: GradeResult;
  /** Every graded passage seen, for the closest clauses of a refusal. */
  seen: GradedCandidate[];
  passages: GradedPassage[];
  generated?: GenerateResult;
  parsed?: ParsedCitations;
  ground?: GroundResult;
  confidence: Confidence;
  result?: { text: string; citations: Citation[]; refusal: Answer['refusal'] };
  reader: AnswerReader;
}

type Step = (ctx: Context) => Promise<void> | void;

async function timed(ctx: Context, key: keyof AnswerTimings, run: () => Promise<void> | void): Promise<void> {
  const t0 = performance.now();
  await run();
  ctx.timings[key] += performance.now() - t0;
}

const STEPS: Record<Exclude<LoopState, 'done'>, Step> = {
  async analyze(ctx) {
    ctx.analyzed = await analyzeQuestion(ctx.input.question, ctx.input.history, {
      interfaceLang: ctx.input.lang ?? 'auto',
      fitsPreviousTopic: routerTopicFit((query) => ctx.deps.search.route(query)),
    });
    ctx.request = { query: ctx.analyzed.searchQuery, domain: ctx.input.domain ?? ctx.analyzed.domain ?? null };
  },
  async retrieve(ctx) {
    ctx.retrieved = await retrieve(ctx.deps.search, ctx.request!, ctx.options.signal);
    ctx.ranked ??= ctx.retrieved.response.passages;
    ctx.timings.embed += ctx.retrieved.response.timings.embed;
    ctx.timings.search += ctx.retrieved.response.timings.search;
  },
  route: (ctx) =>
    timed(ctx, 'route', () => {
      const { response, passages } = ctx.retrieved!;
      // The retry searches without routing: keep the first pass's domain.
      if (!ctx.facts.retried) ctx.domain = routedDomain(response, ctx.input.domain);
      ctx.features = gradeFeatures(ctx.analyzed!.searchQuery, passages);
      ctx.evidence = computeEvidence({ query: ctx.analyzed!.searchQuery, response, passages, graded: ctx.features, fixedDomain: ctx.input.domain });
      ctx.model = ctx.options.tuning?.answerability ?? modelFor(response.result);
      ctx.assessment = assess(ctx.evidence, ctx.model);
      // Where the quote's similarity weighs, a refused question's off-topic reply waits for it (fallback).
      ctx.facts.offTopic = !ctx.facts.retried && (refusalReadsQuote(ctx.model) ? ctx.assessment.offTopicAlone : ctx.assessment.isOffTopic);
    }),
  grade: (ctx) =>
    timed(ctx, 'grade', async () => {
      ctx.grade = await gradePassages(ctx.analyzed!.searchQuery, ctx.retrieved!.passages, ctx.deps.engine, {
        signal: ctx.options.signal,
        minRelevance: ctx.options.tuning?.minRelevance,
        features: ctx.features,
      });
      ctx.seen.push(...ctx.grade.candidates);
      ctx.facts.kept = ctx.grade.kept.length;
    }),
  generate: (ctx) =>
    timed(ctx, 'generate', async () => {
      ctx.passages = numberPassages(ctx.grade!.kept);
      ctx.generated = await generateAnswer(ctx.deps.engine, {
        question: ctx.input.question,
        searchQuery: ctx.analyzed!.searchQuery,
        lang: ctx.analyzed!.lang,
        passages: ctx.passages,
        history: ctx.input.history,
        signal: ctx.options.signal,
        onText: ctx.options.onText,
      });
    }),
  ground: (ctx) =>
    timed(ctx, 'ground', async () => {
      const parsed = parseCitations(ctx.generated!.text, ctx.passages);
      const ground = await groundAnswer(parsed.text, parsed.sources, ctx.deps.engine, { signal: ctx.options.signal });
      ctx.parsed = parsed;
      ctx.ground = ground;
      const citations = buildCitations(parsed, { quotes: ctx.generated!.quotes, reference: `${ctx.analyzed!.searchQuery}\n${parsed.text}` });
      await measureQuote(ctx, citations[0]?.quote);
      const tier = confidenceTier({
        kept: ctx.grade!.kept.length,
        cited: parsed.grounded,
        groundedFraction: parsed.grounded ? ground.fraction : 0,
        assessment: ctx.assessment!,
        // An LLM that graded the passages has judged answerability itself.
        llmGraded: ctx.grade!.method === 'llm',
        leadMissesAskedFact: leadMissesAskedFact(ctx, citations[0]),
      });
      // A follow-up quoting only what the previous answer quoted found nothing of what it added (repeated-answer.ts).
      const repeats = ctx.analyzed!.followUp && repeatsPreviousAnswer(ctx.input.question, ctx.input.history, citations);
      ctx.facts.notAnswerable = tier === 'refuse' || repeats;
      ctx.confidence = tier === 'refuse' || repeats ? 'low' : tier;
      ctx.facts.grounded = ctx.confidence !== 'low';
      if (!ctx.facts.grounded) return;
      const lang = ctx.analyzed!.lang;
      ctx.result = {
        text: ctx.confidence === 'medium' ? withCaveat(parsed.text, lang) : parsed.text,
        citations,
        refusal: null,
      };
    }),
  async read(ctx) {
    const setup = ctx.deps.reader;
    if (!setup?.reader) {
      ctx.reader = skippedReader(setup ? (setup.unavailable ?? 'the reader is loading') : 'no reader on this page');
      return;
    }
    ctx.options.onDraft?.(assembleAnswer(ctx));
    const outcome = await readAnswer(ctx.analyzed!.searchQuery, ctx.result!, ctx.passages, setup.reader, { maxCalls: setup.maxCalls, signal: ctx.options.signal });
    ctx.reader = outcome.reader;
    if (outcome.text) {
      ctx.result = { ...ctx.result!, text: outcome.text };
    } else if (outcome.allNoAnswer && setup.refuses && ctx.confidence !== 'high') {
      const closest = refusalWithClosest(ctx.analyzed!.lang, ctx.analyzed!.searchQuery, ctx.seen);
      ctx.confidence = 'low';
      ctx.result = { ...closest, refusal: 'not-answerable' };
    }
  },
  retry(ctx) {
    ctx.facts.retried = true;
    ctx.request = broaderRequest(ctx.request!);
  },
  fallback(ctx) {
    const lang = ctx.analyzed!.lang;
    ctx.confidence = 'low';
    // The refused question the off-topic model leans towards, decided once its quote was weighed
    // (the route step decided it already where the refusal does not read the quote).
    if (!ctx.facts.retried && ctx.assessment?.isOffTopic) ctx.facts.offTopic = true;
    if (ctx.facts.offTopic) {
      const talk = smallTalkKind(ctx.input.question);
      const text = talk === 'greeting' ? strings(lang).greeting : talk === 'thanks' ? strings(lang).welcome : offTopicText(lang, ctx.deps.contacts ?? {});
      ctx.result = { text, citations: [], refusal: 'off-topic' };
      return;
    }
    const closest = refusalWithClosest(lang, ctx.analyzed!.searchQuery, ctx.seen);
    ctx.result = { ...closest, refusal: ctx.facts.notAnswerable ? 'not-answerable' : ctx.parsed ? 'not-grounded' : 'no-passages' };
    ctx.reader = skippedReader('the answer was refused before reading', ctx.deps.reader?.reader?.modelId ?? null);
  },
};

/** Whether the answer's first quote misses what the question asks for (facts.ts). */
function leadMissesAskedFact(ctx: Context, first: Citation | undefined): boolean {
  if (!first?.quote) return false;
  const asking = askingText(ctx.input.question, ctx.analyzed!.searchQuery);
  return first.quote.split(' … ').some((q) => leadMissesAsked(q, asking, first.sectionPath));
}

/**
 * The similarity of the answer's first quoted sentence to the question (evidence.ts, semQuote), and
 * the assessment again with it: only where the models read it and the search ran hybrid (one more
 * embedding, in the search worker), else the evidence keeps 0, as the models were fitted.
 */
async function measureQuote(ctx: Context, quote: string | undefined): Promise<void> {
  const similarity = ctx.deps.search.similarity;
  if (!quote || !ctx.model || !readsQuote(ctx.model) || ctx.retrieved!.response.result.mode !== 'hybrid' || !similarity) return;
  // Timed with the ground step it belongs to: timings.embed stays the question's embedding.
  const value = await similarity.call(ctx.deps.search, ctx.request!.query, quoteHead(quote), ctx.options.signal);
  if (value === null) return;
  ctx.evidence!.features.semQuote = value;
  ctx.assessment = assess(ctx.evidence!, ctx.model);
}

/** Runs the loop for one question; resolves to the complete Answer, throws ABORTED when stopped. */
export async function runAnswerLoop(input: LoopInput, deps: LoopDeps, options: LoopOptions = {}): Promise<Answer> {
  const start = performance.now();
  const ctx: Context = {
    input,
    deps,
    options,
    facts: { offTopic: false, kept: 0, grounded: false, retried: false, notAnswerable: false },
    timings: { route: 0, embed: 0, search: 0, grade: 0, generate: 0, ground: 0, total: 0 },
    domain: input.domain ?? null,
    seen: [],
    passages: [],
    confidence: 'low',
    reader: skippedReader('no reader on this page'),
  };
  let state: LoopState = 'analyze';
  try {
    while (state !== 'done') {
      throwIfAborted(options.signal);
      options.onState?.(state);
      await STEPS[state](ctx);
      state = transition(state, ctx.facts);
    }
  } catch (error) {
    if (options.signal?.aborted && !isHarelError(error, 'ABORTED')) throw createError('ABORTED');
    throw error;
  }
  throwIfAborted(options.signal);
  options.onState?.('done');
  options.onText?.(ctx.result!.text);
  ctx.timings.total = performance.now() - start;
  return { ...assembleAnswer(ctx), reader: ctx.reader };
}

/** The Answer as the loop stands (the draft before reading, and the final one). */
function assembleAnswer(ctx: Context): Answer {
  const result = ctx.result!;
  const response = ctx.retrieved!.response;
  return {
    text: result.text,
    citations: result.citations,
    mode: ctx.deps.engine.mode,
    confidence: ctx.confidence,
    refused: result.refusal !== null,
    refusal: result.refusal,
    // An off-topic reply is about no domain: a domain badge beside it would say the opposite.
    domain: result.refusal === 'off-topic' ? null : ctx.domain,
    lang: ctx.analyzed!.lang,
    searchedQuery: ctx.analyzed!.searchQuery,
    searchMode: response.result.mode,
    retrieved: rankedPassages(ctx.ranked ?? []),
    timings: { ...ctx.timings },
    ...(ctx.evidence && ctx.assessment
      ? {
          evidence: {
            questionType: ctx.evidence.questionType,
            features: { ...ctx.evidence.features },
            offTopic: ctx.assessment.offTopic,
            answerable: ctx.assessment.answerable,
            correct: ctx.assessment.correct,
          },
        }
      : {}),
  };
}
