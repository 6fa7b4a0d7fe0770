/**
 * The answer loop as an explicit state machine. Each state is one step, each step one job in its
 * own module; `transition` is the whole control flow, so the order can be read (and tested) in one
 * place:
 *
 *   analyze → retrieve → assess ─off-topic→ fallback → done
 *                          └→ grade ─nothing kept→ retry → retrieve (once, broader)
 *                               └→ generate → ground → score ─not grounded→ retry (once)
 *                                                        ├─not answerable→ fallback → done
 *                                                        └→ read → done (second failure → fallback → done)
 *
 * | step     | module          | what it does                                                          |
 * |----------|-----------------|-----------------------------------------------------------------------|
 * | analyze  | analyze.ts      | the question read once (text/question-reading.ts) and what to search   |
 * | retrieve | retrieve.ts     | one search (the service routes and retrieves in one call)              |
 * | assess   | assess.ts       | the search's evidence, the models, their assessment, off-topic or not  |
 * | grade    | grade.ts        | which passages the answer may use                                      |
 * | generate | generate.ts     | the engine writes the answer                                           |
 * | ground   | ground.ts       | is each claim supported by what it cites; the citation cards           |
 * | score    | score.ts        | the quote's similarity, the confidence tier, a repeat, the caveat      |
 * | read     | read.ts         | the reader model reads the cited pages                                 |
 * | retry    | fallback.ts     | the broader search                                                     |
 * | fallback | fallback.ts     | the refusal with the closest clauses, or the off-topic reply           |
 *
 * A refusal on evidence is not retried: the broader retry exists for mechanical failures (nothing
 * kept, an answer its passages do not support).
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
import type { ContactChannels } from '../text/strings.ts';
import { analyzeQuestion, type AnalyzedQuestion } from './analyze.ts';
import type { AnswerabilityModel } from './answerability.ts';
import { assessSearch, offTopicVerdict, type SearchAssessment } from './assess.ts';
import { buildCitations, parseCitations, type ParsedCitations } from './citations.ts';
import { broaderRequest, offTopicReply, refusalWithClosest } from './fallback.ts';
import { generateAnswer, numberPassages } from './generate.ts';
import { gradePassages, type GradedCandidate, type GradeResult } from './grade.ts';
import { groundAnswer, type GroundResult } from './ground.ts';
import { readAnswer, skippedReader } from './read.ts';
import { rankedPassages, retrieve, routedDomain, type Retrieved } from './retrieve.ts';
import { scoreAnswer } from './score.ts';
import { routerTopicFit } from './topic-fit.ts';

export type LoopState = 'analyze' | 'retrieve' | 'assess' | 'grade' | 'generate' | 'ground' | 'score' | 'read' | 'retry' | 'fallback' | 'done';

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
      return 'assess';
    case 'assess':
      return facts.offTopic ? 'fallback' : 'grade';
    case 'grade':
      return facts.kept > 0 ? 'generate' : facts.retried ? 'fallback' : 'retry';
    case 'retry':
      return 'retrieve';
    case 'generate':
      return 'ground';
    case 'ground':
      return 'score';
    case 'score':
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
  /** The latest search's evidence and what the fitted models make of it (with the quote weighed, once scored). */
  judged?: SearchAssessment;
  domain: string | null;
  grade?: GradeResult;
  /** Every graded passage seen, for the closest clauses of a refusal. */
  seen: GradedCandidate[];
  passages: GradedPassage[];
  generated?: GenerateResult;
  parsed?: ParsedCitations;
  ground?: GroundResult;
  citations: Citation[];
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
    // The retry searches without routing: keep the first pass's domain.
    if (!ctx.facts.retried) ctx.domain = routedDomain(ctx.retrieved.response, ctx.input.domain);
  },
  assess: (ctx) =>
    timed(ctx, 'assess', () => {
      ctx.judged = assessSearch(ctx.analyzed!.reading.searched, ctx.retrieved!, { fixedDomain: ctx.input.domain, model: ctx.options.tuning?.answerability });
      ctx.facts.offTopic = offTopicVerdict(ctx.judged, 'search', ctx.facts.retried);
    }),
  grade: (ctx) =>
    timed(ctx, 'grade', async () => {
      ctx.grade = await gradePassages(ctx.analyzed!.searchQuery, ctx.retrieved!.passages, ctx.deps.engine, {
        signal: ctx.options.signal,
        minRelevance: ctx.options.tuning?.minRelevance,
        features: ctx.judged!.features,
      });
      ctx.seen.push(...ctx.grade.candidates);
      ctx.facts.kept = ctx.grade.kept.length;
    }),
  generate: (ctx) =>
    timed(ctx, 'generate', async () => {
      ctx.passages = numberPassages(ctx.grade!.kept);
      ctx.generated = await generateAnswer(ctx.deps.engine, {
        question: ctx.input.question,
        reading: ctx.analyzed!.reading,
        lang: ctx.analyzed!.lang,
        passages: ctx.passages,
        history: ctx.input.history,
        signal: ctx.options.signal,
        onText: ctx.options.onText,
      });
    }),
  ground: (ctx) =>
    timed(ctx, 'ground', async () => {
      ctx.parsed = parseCitations(ctx.generated!.text, ctx.passages);
      ctx.ground = await groundAnswer(ctx.parsed.text, ctx.parsed.sources, ctx.deps.engine, { signal: ctx.options.signal });
      ctx.citations = buildCitations(ctx.parsed, { quotes: ctx.generated!.quotes, reference: `${ctx.analyzed!.searchQuery}\n${ctx.parsed.text}` });
    }),
  // Timed with the ground step as before its split: timings.embed stays the question's embedding.
  score: (ctx) =>
    timed(ctx, 'ground', async () => {
      const scored = await scoreAnswer(
        ctx.deps.search,
        {
          reading: ctx.analyzed!.reading,
          question: ctx.input.question,
          history: ctx.input.history,
          followUp: ctx.analyzed!.followUp,
          judged: ctx.judged!,
          grade: ctx.grade!,
          parsed: ctx.parsed!,
          ground: ctx.ground!,
          citations: ctx.citations,
          query: ctx.request!.query,
          searchMode: ctx.retrieved!.response.result.mode,
        },
        ctx.options.signal,
      );
      ctx.judged = scored.judged;
      ctx.confidence = scored.confidence;
      ctx.facts.notAnswerable = scored.notAnswerable;
      ctx.facts.grounded = scored.text !== null;
      // The refused question the off-topic model leans towards, decided once its quote was weighed.
      if (scored.notAnswerable) ctx.facts.offTopic = offTopicVerdict(scored.judged, 'answer', ctx.facts.retried);
      if (scored.text !== null) ctx.result = { text: scored.text, citations: ctx.citations, refusal: null };
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
      const closest = refusalWithClosest(ctx.analyzed!.lang, ctx.analyzed!.reading.searched.words, ctx.seen);
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
    if (ctx.facts.offTopic) {
      ctx.result = { text: offTopicReply(lang, ctx.analyzed!.reading.typed.smallTalk, ctx.deps.contacts ?? {}), citations: [], refusal: 'off-topic' };
      return;
    }
    const closest = refusalWithClosest(lang, ctx.analyzed!.reading.searched.words, ctx.seen);
    ctx.result = { ...closest, refusal: ctx.facts.notAnswerable ? 'not-answerable' : ctx.parsed ? 'not-grounded' : 'no-passages' };
    ctx.reader = skippedReader('the answer was refused before reading', ctx.deps.reader?.reader?.modelId ?? null);
  },
};

/** Runs the loop for one question; resolves to the complete Answer, throws ABORTED when stopped. */
export async function runAnswerLoop(input: LoopInput, deps: LoopDeps, options: LoopOptions = {}): Promise<Answer> {
  const start = performance.now();
  const ctx: Context = {
    input,
    deps,
    options,
    facts: { offTopic: false, kept: 0, grounded: false, retried: false, notAnswerable: false },
    timings: { assess: 0, embed: 0, search: 0, grade: 0, generate: 0, ground: 0, total: 0 },
    domain: input.domain ?? null,
    seen: [],
    passages: [],
    citations: [],
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
    reading: ctx.analyzed!.reading,
    ...(ctx.judged
      ? {
          evidence: {
            questionType: ctx.judged.evidence.questionType,
            features: { ...ctx.judged.evidence.features },
            offTopic: ctx.judged.assessment.offTopic,
            answerable: ctx.judged.assessment.answerable,
            correct: ctx.judged.assessment.correct,
          },
        }
      : {}),
  };
}
