/**
 * The asked fact as a document states it case by case: a home policy has one deductible for water,
 * one for fire and one for earthquakes; a car policy's deductibles stand in a table, one row per
 * kind of damage. Picking one of them would answer "what is the deductible?" with a half truth, so
 * the answer lists them, each with its condition:
 *
 *   השתתפות עצמית:
 *   - נזקי מים: 500 ש"ח [1]
 *   - רעידת אדמה: 10% מסכום הנזק, ולא פחות מ-5,000 ש"ח [1]
 *
 * and where the question names a condition ("…ברעידת אדמה?") only the facts under it. A
 * condition is the title of the numbered clause that states the fact (clause-title.ts) or the
 * first cell of its table row under a column headed by the asked term; a fact without one is left
 * to the single lead (answer-leads.ts). Values are verbatim from the passage.
 */
import { DOMAIN_KEYWORDS } from '../core/retrieval/domain-keywords.ts';
import { expandQuery } from '../core/retrieval/expand.ts';
import { oneLine, sentenceSpans } from '../text/sentences.ts';
import { clauseTitleAt } from '../text/clause-title.ts';
import { askedFacts, findFacts, sameTerm, type Fact } from '../text/facts.ts';
import type { TextReading } from '../text/question-reading.ts';
import type { QuestionType } from '../text/question-type.ts';
import { contentWords, coverage, termSet, type Word } from '../text/terms.ts';
import type { GradedPassage } from './engine.ts';

/** A fact of the asked kind with the condition it holds under. */
export interface ConditionalFact {
  /** The source number of the passage that states it. */
  n: number;
  /** Verbatim: a clause's title or a table row's first cell. */
  condition: string;
  /** Verbatim: from the fact's first number to its last ("10% מסכום הנזק, ולא פחות מ-5,000 ש"ח"). */
  value: string;
}

/**
 * Words every kind of claim shares: "What is the excess for earthquake damage?" names the
 * earthquake, not the water damage clause.
 */
const UNNAMING = termSet('נזק נזקים נזקי תביעה תביעות ביטוח פוליסה כיסוי מקרה damage damages loss claim claims insurance policy cover event');

/** Share of the question's own words a condition must hold to be the one the question names. */
export const NAMED_MIN_COVERAGE = 0.5;

/** A list longer than this is a table dump, not an answer: the quotes carry the rest. */
export const MAX_LISTED_FACTS = 8;
const CELL = ' | ';

/** The stretch of `sentence` from its first fact to the end of its last. */
function valueSpan(sentence: string, facts: readonly Fact[]): string | null {
  let start = Infinity;
  let end = -1;
  for (const f of facts) {
    const at = sentence.indexOf(f.text);
    if (at < 0) continue;
    start = Math.min(start, at);
    end = Math.max(end, at + f.text.length);
  }
  return end > start ? sentence.slice(start, end) : null;
}

/** Rows of the tables in `text` (consecutive lines with cells), each table's first row its header. */
function tables(text: string): string[][][] {
  const out: string[][][] = [];
  let rows: string[][] = [];
  for (const line of [...text.split('\n'), '']) {
    if (line.includes(CELL)) rows.push(line.split(CELL).map((c) => c.trim()));
    else {
      if (rows.length > 1) out.push(rows);
      rows = [];
    }
  }
  return out;
}

function tableFacts(p: GradedPassage, text: string, question: string, type: QuestionType, asked: readonly string[]): ConditionalFact[] {
  const out: ConditionalFact[] = [];
  for (const [header, ...rows] of tables(text)) {
    const column = header.findIndex((h, i) => i > 0 && asked.some((a) => sameTerm(a, h)));
    if (column < 0) continue;
    for (const cells of rows) {
      // A row that lost or gained cells (a PDF table flattened) no longer ties its value to its condition.
      if (cells.length !== header.length || !cells[0]) continue;
      const cell = cells[column];
      const facts = [...findFacts(cell, type), ...(type === 'amount' ? findFacts(cell, 'percentage') : [])];
      if (facts.length > 0 || askedFacts(cell, question, type, asked).length > 0) out.push({ n: p.n, condition: cells[0], value: cell });
    }
  }
  return out;
}

function clauseFacts(p: GradedPassage, text: string, question: string, type: QuestionType, asked: readonly string[]): ConditionalFact[] {
  const out: ConditionalFact[] = [];
  for (const span of sentenceSpans(text)) {
    if (span.text.includes(CELL)) continue;
    const condition = clauseTitleAt(text, span.start);
    if (!condition) continue;
    const sentence = oneLine(span.text);
    const value = valueSpan(sentence, askedFacts(sentence, question, type, asked));
    if (value) out.push({ n: p.n, condition, value });
  }
  return out;
}

/**
 * The facts of the asked kind that the passages of `file` state under a condition, in document
 * order, each condition once (the first statement wins: a later passage repeating the clause is
 * another edition or the same section widened).
 */
export function conditionalFacts(question: string, type: QuestionType, asked: readonly string[], passages: readonly GradedPassage[], file: string): ConditionalFact[] {
  if (asked.length === 0) return [];
  const seen = new Set<string>();
  const out: ConditionalFact[] = [];
  for (const p of passages) {
    if (p.file !== file) continue;
    const text = p.context || p.text;
    for (const f of [...clauseFacts(p, text, question, type, asked), ...tableFacts(p, text, question, type, asked)]) {
      const key = oneLine(f.condition);
      if (seen.has(key)) continue;
      seen.add(key);
      out.push(f);
    }
  }
  return out;
}

/**
 * The words a question may hold beside the asked term and still ask for every case: the names of
 * insurances and their products ("בביטוח דירה", "home insurance"; the router's curated phrases).
 */
const SUBJECT_TERMS = termSet([...Object.keys(DOMAIN_KEYWORDS), ...Object.values(DOMAIN_KEYWORDS).flat(), 'ביטוח פוליסה insurance policy'].join(' '));

/**
 * The facts to list for `question`: those whose condition the question names ("ברעידת אדמה");
 * else all of them when the question says nothing but the asked term and its insurance; else
 * none, since it asks about something no case is stated for ("ומה לגבי מזג האוויר?" after the
 * deductible). `named` says which. The asked term's own words never pick a condition.
 */
export function factsForQuestion(question: TextReading, asked: readonly string[], facts: readonly ConditionalFact[]): { facts: ConditionalFact[]; named: boolean } {
  const askedTerms = termSet(asked.map((a) => `${a} ${expandQuery(a).terms}`).join(' '));
  const conditionWords = (words: readonly Word[]) => words.filter((w) => !w.some((t) => askedTerms.has(t) || UNNAMING.has(t)));
  const own = conditionWords(question.words);
  // Across languages the condition meets the question's lexicon equivalents: "earthquake" names "רעידת אדמה".
  const equivalents = conditionWords(contentWords(expandQuery(question.text).terms));
  // A condition is named when it holds at least half of the question's own words (or of their
  // equivalents): "התייעצות עם רופא מומחה" does not name "ניתוח אצל מנתח שאינו רופא הסכם" by its one "רופא".
  const names = (words: readonly Word[], terms: ReadonlySet<string>) => words.length > 0 && coverage(words, terms) >= NAMED_MIN_COVERAGE;
  const named = facts.filter((f) => {
    const terms = termSet(f.condition);
    return names(own, terms) || names(equivalents, terms);
  });
  if (named.length > 0) return { facts: named.slice(0, MAX_LISTED_FACTS), named: true };
  const unexplained = question.words.filter((w) => !w.some((t) => askedTerms.has(t) || UNNAMING.has(t) || SUBJECT_TERMS.has(t)));
  return { facts: unexplained.length > 0 ? [] : facts.slice(0, MAX_LISTED_FACTS), named: false };
}
