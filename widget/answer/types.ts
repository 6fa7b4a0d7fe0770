/**
 * The answer contract: what `<harel-chat>`'s `ask()` resolves to, what the `harel-chat:answer`
 * event carries, and what the browser evals record. Every module of the widget that produces or
 * shows an answer speaks these types; nothing here knows the DOM.
 */
import type { PassageOrigin } from '../core/device/device-document.ts';
import type { Lang } from '../core/schema.ts';
import type { QuestionReading } from '../text/question-reading.ts';

/** Which engine wrote the answer: a local LLM (web-llm) or the model-free extractive answerer. */
export type AnswerMode = 'llm' | 'extractive';

/** high → answer; medium → answer with a caveat; low → "no definitive answer" plus the closest clauses. */
export type Confidence = 'high' | 'medium' | 'low';

/** One numbered source of an answer: `[n]` in the text points here. */
export interface Citation {
  /** 1-based marker number as it appears in the answer text. */
  n: number;
  /**
   * Whose document it cites: the site's index, or one the customer added on this device ('device':
   * `url` is null, `file` is the document's name, and the card opens the page's text from local
   * storage). The loop always sets it; absent in answers stored before it existed ('site').
   */
  origin?: PassageOrigin;
  /** For a device citation: the customer document's id (DeviceDocumentInfo.id), to open its page. */
  deviceDocument?: string;
  chunkId: string;
  file: string;
  page: number;
  url: string | null;
  title: string;
  sectionPath: string[];
  clause: string | null;
  /** The passage text the answer relies on (a sentence or the passage), verbatim from the index. */
  quote: string;
  /**
   * Near-identical passages elsewhere (other editions, copies), and the same page in another
   * language's edition (with its `lang`), shown as "also in".
   */
  alsoIn: { file: string; page: number; title: string; url: string | null; lang?: string }[];
  /** Clauses of the same document the cited passage refers to ("ראה סעיף 4.1"), shown as supporting context. */
  references?: { clause: string; page: number; text: string }[];
  /**
   * When the quote holds rows of a table (cells joined by " | ", as the builder keeps a row), the
   * table's header row from the passage, written the same way: the card shows those rows as a
   * table under it (answer/quote-tables.ts). Absent otherwise.
   */
  tableHeader?: string;
}

/** Milliseconds spent in each step of the loop (0 for a step that did not run). */
export interface AnswerTimings {
  /** The search's evidence and the models' assessment (called `route` in answers stored before the loop's steps were named for their jobs). */
  assess: number;
  embed: number;
  search: number;
  grade: number;
  generate: number;
  ground: number;
  total: number;
}

/** One retrieved passage as ranked, for evaluation and debugging (the evals score these). */
export interface RankedPassage {
  rank: number;
  chunkId: string;
  file: string;
  page: number;
  score: number;
  twin: number | null;
  pageTwin: number | null;
}

export interface Answer {
  /** The answer as shown: plain text with `[n]` citation markers (and a light markdown subset). */
  text: string;
  citations: Citation[];
  mode: AnswerMode;
  confidence: Confidence;
  /** True when the widget said it cannot find a definitive answer (low confidence, off-topic, no passages). */
  refused: boolean;
  /**
   * Why it refused, when it did: off-topic; no passage passed grading; the answer was not
   * supported by its passages; or the evidence says the documents do not answer (not-answerable).
   */
  refusal: 'off-topic' | 'no-passages' | 'not-grounded' | 'not-answerable' | null;
  /** The domain the question was routed to (null when unsure). */
  domain: string | null;
  /** Language of the question, and so of the answer. */
  lang: Lang;
  /** The question actually searched (a follow-up rewritten with the conversation's context). */
  searchedQuery: string;
  /** 'hybrid' when E5 query vectors were used, 'bm25' when search ran on words alone. */
  searchMode: 'bm25' | 'hybrid' | 'vector';
  /** Passages the retriever ranked, best first (before grading). */
  retrieved: RankedPassage[];
  timings: AnswerTimings;
  /**
   * What the confidence and refusal were decided on (widget/loop/evidence.ts, answerability.ts):
   * the kind of fact asked for, the evidence features, and the fitted models' probabilities.
   * Absent when the loop stopped before searching.
   */
  evidence?: AnswerEvidence;
  /**
   * What the reader model did with this answer (widget/loop/read.ts): the span it found and the
   * citation it read it in, or that every window it read said "not here", or why it did not read
   * (no reader on the page, the device cannot run it, the answer was refused, stopped). Absent in
   * conversations stored before the reader existed, and in the draft shown while it reads.
   */
  reader?: AnswerReader;
  /**
   * How the question was read (text/question-reading.ts), once, for every step: the view reads its
   * small talk, evaluations record it. In memory only: stored conversations keep what the customer
   * saw, not how it was decided. Absent in the draft of an older build and in stored turns.
   */
  reading?: QuestionReading;
}

export interface AnswerReader {
  verdict: 'span' | 'no-answer' | 'skipped';
  /** The span leading the answer (verbatim in the window read), for 'span'. */
  span: string | null;
  /** The citation whose page held the span, for 'span'. */
  n: number | null;
  /** Reading time, all calls. */
  ms: number;
  /** Reader calls made (windows read). */
  calls: number;
  /** The model's probability of "not in this passage" (its first token), where the engine reports it. */
  noAnswerProbability: number | null;
  /** The reader's model, null when none was loaded. */
  model: string | null;
  /** For 'skipped' (and a discarded span): why. */
  reason: string | null;
}

export interface AnswerEvidence {
  questionType: string;
  features: Record<string, number>;
  offTopic: number;
  answerable: number;
  correct: number;
}

/** The customer's rating of an answer. */
export type FeedbackRating = 'up' | 'down';

/** Why an answer was rated down, when the customer says: wrong, not relevant, missing information, unclear. */
export type FeedbackReason = 'wrong' | 'not-relevant' | 'missing' | 'unclear';

/** A rating the customer gave an answer (changed or withdrawn by them at will). */
export interface TurnFeedback {
  rating: FeedbackRating;
  /** Only with 'down', once the customer picks one. */
  reason: FeedbackReason | null;
  /** When it was last changed. */
  at: number;
}

/**
 * What the conversation keeps of an answer: what the customer saw (text, citations, the tier and
 * refusal badges, domain, language, the reader's verdict) and what a later turn reads (the searched
 * query a follow-up builds on, the citations and refusal a repeated question is checked against).
 * The evaluation payload (`retrieved`, `evidence`, `timings`, `searchMode`) stays on the live
 * answer `ask()` resolves to and the answer event carries; it is never stored.
 */
export type StoredAnswer = Pick<Answer, 'text' | 'citations' | 'mode' | 'confidence' | 'refused' | 'refusal' | 'domain' | 'lang' | 'searchedQuery' | 'reader'>;

/** One turn of the conversation, as persisted and as given to the loop for follow-ups. */
export interface ChatTurn {
  role: 'user' | 'assistant';
  text: string;
  /**
   * For assistant turns: the answer (absent while streaming or after an error). Typed as what is
   * stored, so a later turn reads the same from a turn answered now as from one read back from
   * storage (widget/store/stored-turns.ts); a turn answered now holds the whole Answer.
   */
  answer?: StoredAnswer;
  /** An answer the customer stopped while it was being written: kept as streamed so far. */
  stopped?: boolean;
  at: number;
  /** For answered turns: the index build that answered (conversations stored before it have none). */
  buildId?: string;
  /** For answered turns: the customer's rating, if any (conversations stored before it have none). */
  feedback?: TurnFeedback;
}
