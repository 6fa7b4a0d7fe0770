/**
 * The lines an extractive answer opens with, built only from the sentences it quotes and the
 * tables of its passages: the asked fact ("השתתפות עצמית: 850 ש"ח [1]"), or the table cell the
 * question points into with its column and row ("גבר מעשן, גיל 66: 75.17 [1]"), a verdict on cover
 * ("לא מכוסה — חריג בפוליסה [1], לפי מסמכי הפוליסה:") and the frame of the quotes, which says so
 * when every quoted clause is in the other language. Nothing here is made up: the fact and the
 * cell are the document's own text, and the verdict is one the clause states in so many words
 * (verdict.ts).
 *
 * The fact line is a claim, checked here with the loop's own grounding (ground.ts) against its
 * passage before it is written, so a lead can never cost the answer its grounding: when neither
 * the clause's term nor the generic word passes, the answer opens without a fact. A verdict
 * opens the line that introduces the quotes (a lead-in, which grounding reads as the frame of the
 * quote that states the verdict) rather than standing as a claim of two words that lexical
 * support cannot judge ("לא מכוסה" against "הפוליסה אינה מכסה…").
 *
 * The clause's own term and fact are document text in the line (answer/document-text.ts), so a
 * bracket or a bidi control in them is never read as the engine's.
 */
import { documentText } from '../answer/document-text.ts';
import { expandQuery } from '../core/retrieval/expand.ts';
import type { Lang } from '../core/schema.ts';
import { detectLang } from '../core/tokenizer/index.ts';
import { askedFacts, coverageVerdict, findFacts, type Fact, type FactKind, type Verdict } from '../text/facts.ts';
import { clauseTitleAt } from '../text/clause-title.ts';
import type { QuestionReading, TextReading } from '../text/question-reading.ts';
import { lexicalSupport } from '../text/lexical-support.ts';
import { contentWords, coverage, termSet } from '../text/terms.ts';
import { ANSWER_LEADS, strings } from '../text/strings.ts';
import { passageTables, readTable } from '../text/table-cells.ts';
import type { GradedPassage } from './engine.ts';
import { conditionalFacts, factsForQuestion, type ConditionalFact } from './fact-list.ts';

/** A quoted sentence and the passage it is quoted from. */
export interface QuotedSentence {
  n: number;
  sentence: string;
  passage: GradedPassage;
}

/** "waiting period" → "Waiting period": a lead opens a line. */
function capitalized(label: string): string {
  return label.charAt(0).toLocaleUpperCase('en') + label.slice(1);
}

/** Whether the loop's grounding would accept `line` as supported by `passage` (or not count it as a claim). */
export function groundable(line: string, passage: GradedPassage): boolean {
  return lexicalSupport(line.replace(/\[\d+\]/g, '[1]'), [passage]).every((s) => s.supported);
}

/** Share of the question's content words a sentence must hold for an unlabelled fact to lead. */
export const UNLABELLED_FACT_MIN_COVERAGE = 0.4;

/** Content words an asking sentence needs before it alone decides what a clause must share (else the whole question). */
export const MIN_ASKING_WORDS = 3;

function coversQuestion(question: TextReading, sentence: string): boolean {
  // Across languages the question's words meet the clause only through the lexicon's equivalents.
  const lang = detectLang(sentence);
  const own = question.askingWords.length >= MIN_ASKING_WORDS ? question.askingWords : question.words;
  const words = lang === question.lang ? own : contentWords(expandQuery(question.text).terms).filter((w) => detectLang(w[0]) === lang);
  return coverage(words, termSet(sentence)) >= UNLABELLED_FACT_MIN_COVERAGE;
}

function numbers(text: string): string[] {
  return (text.match(/\d[\d,]*(?:\.\d+)?/g) ?? []).map((n) => n.replace(/,/g, ''));
}

/**
 * Facts of a quoted sentence worth leading with, best first: about the term the question names
 * when it names one ("מה ההשתתפות העצמית?" passes over a premium), then those whose clause
 * names their term, then the rest. A number the customer wrote in the question ("כמה אשלם על
 * ביטוח של 10,000 ש"ח?") is what they know, never the answer. A fact whose clause names no term
 * leads only from a sentence that holds much of the question's words: otherwise it is a number
 * about something else ("כמה עולה ביטוח משכנתא?" must not lead with a jewellery limit).
 */
function candidates(question: TextReading, q: QuotedSentence, type: FactKind, asked: readonly string[]): Fact[] {
  const { sentence } = q;
  const given = new Set(numbers(question.text));
  // A term the question names must be the fact's own (askedFacts): "מה ההשתתפות העצמית?" is
  // never answered by the sum of another clause, however much of the question that clause holds.
  const found = asked.length > 0 ? askedFacts(sentence, question.text, type, asked, sentenceContext(q)) : findFacts(sentence, type).filter((f) => f.label || coversQuestion(question, sentence));
  const facts = found.filter((f) => !numbers(f.text).some((n) => given.has(n)));
  const rank = (f: Fact) => (f.label && asked.length > 0 ? 0 : f.label ? 1 : 2);
  return facts
    .map((f, i) => ({ f, i }))
    .sort((a, b) => rank(a.f) - rank(b.f) || a.i - b.i)
    .map((x) => x.f);
}

/** Where a quoted sentence sits: its passage's sections and its clause's title. */
function sentenceContext(q: QuotedSentence): string[] {
  const text = q.passage.context || q.passage.text;
  const at = text.indexOf(q.sentence);
  const title = at >= 0 ? clauseTitleAt(text, at) : null;
  return title ? [...q.passage.sectionPath, title] : [...q.passage.sectionPath];
}

/**
 * The asked fact case by case (fact-list.ts) from the first quote's document, or from another
 * document of its domain among the passages: a list when the document states it under several
 * conditions, the one line under the condition the question names. Null when no document
 * states it under a condition.
 */
async function conditionalLead(question: TextReading, type: FactKind, lang: Lang, asked: readonly string[], first: QuotedSentence, passages: readonly GradedPassage[]): Promise<string | null> {
  // The first quote's document, then the others of its domain, those in the question's language first.
  const sameDomain = passages.filter((p) => p.domain === first.passage.domain);
  const ordered = [first.passage, ...sameDomain.filter((p) => detectLang(p.text) === lang), ...sameDomain];
  const byN = new Map(passages.map((p) => [p.n, p]));
  const term = documentText(capitalized(asked[0]));
  const grounded = async (facts: readonly ConditionalFact[]) => {
    const lines: string[] = [];
    for (const f of facts) {
      const passage = byN.get(f.n);
      const item = `${documentText(f.condition)}: ${documentText(f.value)} [${f.n}]`;
      if (passage && groundable(item, passage)) lines.push(item);
    }
    return lines;
  };
  const byFile = [...new Set(ordered.map((p) => p.file))].map((file) => factsForQuestion(question, asked, conditionalFacts(question.text, type, asked, passages, file)));
  // A document that states the fact under the condition the question names answers it, wherever it ranks.
  for (const { facts } of byFile.filter((f) => f.named)) {
    const lines = await grounded(facts);
    if (lines.length === 1) return `${term}, ${lines[0]}`;
    if (lines.length > 1) return [`${term}:`, ...lines.map((l) => `- ${l}`)].join('\n');
  }
  // The question names no condition a document states the fact under: every case of the first document that has several.
  for (const { facts } of byFile) {
    const lines = await grounded(facts);
    if (lines.length >= 2) return [`${term}:`, ...lines.map((l) => `- ${l}`)].join('\n');
  }
  return null;
}

/**
 * Whether a table cell states a value of the asked kind: a fact of that kind (a share answers a
 * sum, as a deductible may be either), or a bare number, which its headers say the kind of ("41.00"
 * under a premium table's title). "5,000 $" never answers "עד מתי".
 */
function cellOfKind(value: string, type: FactKind): boolean {
  if (/^[\d\s.,]+$/u.test(value)) return true;
  const kinds: FactKind[] = type === 'amount' ? ['amount', 'percentage'] : [type];
  return kinds.some((k) => findFacts(value, k).length > 0);
}

/**
 * The cell of a passage's table that the question points into, stated with its column's header
 * and its row's key ("אשה לא מעשנת, גיל 65: 41.00 [1]"), or the cells of the rows it names, listed;
 * null when no table of `passage` is read (text/table-cells.ts) or the line would not be grounded.
 */
function tableLead(question: TextReading, type: FactKind, passage: GradedPassage): string | null {
  for (const table of passageTables(passage.context || passage.text)) {
    const read = readTable(table, question.text, question.words);
    // Every cell of the asked kind, or the table does not answer this question.
    if (read === null || read.cells.some((c) => !cellOfKind(c.value, type))) continue;
    const cite = ` [${passage.n}]`;
    const [first] = read.cells;
    let lines: string[];
    if (read.cells.length === 1) {
      lines = [`${documentText(first.column)}, ${documentText(first.key)}: ${documentText(first.value)}${cite}`];
    } else if (read.cells.every((c) => c.column === first.column)) {
      // The rows the question names, under their one column.
      lines = [`${documentText(first.column)}:`, ...read.cells.map((c) => `- ${documentText(c.key)}: ${documentText(c.value)}${cite}`)];
    } else {
      // One row, the columns (plans, cases) the question does not choose between.
      lines = [`${documentText(first.key)}:`, ...read.cells.map((c) => `- ${documentText(c.column)}: ${documentText(c.value)}${cite}`)];
    }
    if (lines.every((l) => groundable(l, passage))) return lines.join('\n');
  }
  return null;
}

/**
 * "השתתפות עצמית: 850 ש"ח [1]" from the best quote when it states the asked fact, the asked fact
 * listed by condition where a document states several (conditionalLead), the cell of a table the
 * question points into (tableLead), or null.
 */
export async function factLead(reading: QuestionReading, lang: Lang, quotes: readonly QuotedSentence[], passages: readonly GradedPassage[] = []): Promise<string | null> {
  const type = reading.factKind;
  if (!type || quotes.length === 0) return null;
  const question = reading.asking;
  const asked = reading.askedTerms;
  if (asked.length > 0) {
    const listed = await conditionalLead(question, type, lang, asked, quotes[0], passages);
    if (listed) return listed;
  }
  // A table the question points into (a plan's column, an age's row) is read where the best quote is.
  const table = tableLead(question, type, quotes[0].passage);
  if (table) return table;
  // Only the best quote may lead: the later ones come from other pages that merely speak of the
  // subject (extractive.ts), and a number from one of them would answer another question.
  for (const q of quotes.slice(0, 1)) {
    const sameLanguage = detectLang(q.sentence) === lang;
    for (const fact of candidates(question, q, type, asked)) {
      const leads = [...(fact.label && sameLanguage ? [documentText(capitalized(fact.label))] : []), ANSWER_LEADS[lang].fact[fact.kind]];
      for (const lead of leads) {
        const line = `${lead}: ${documentText(fact.text)} [${q.n}]`;
        if (groundable(line, q.passage)) return line;
      }
    }
  }
  // No quote states it: a table of another passage the question points into. Unlike a sentence's
  // number, a cell is read only where the question names both its row and its column (or the
  // table's one value column), which says the table is about what is asked.
  for (const p of passages) {
    if (p === quotes[0].passage) continue;
    const read = tableLead(question, type, p);
    if (read) return read;
  }
  return null;
}

/**
 * The verdict the quotes give, cited: the first quote must state it and no other quote may deny
 * it (a quote that grants cover with a condition makes the verdict conditional).
 */
export function quotedVerdict(quotes: readonly QuotedSentence[]): { verdict: Verdict; n: number } | null {
  const verdicts = quotes.map((q) => coverageVerdict(q.sentence, q.passage.sectionPath));
  const first = verdicts[0];
  if (!first) return null;
  const others = verdicts.filter((v): v is Verdict => v !== null);
  if (others.every((v) => v === first)) return { verdict: first, n: quotes[0].n };
  const positive = (v: Verdict) => v !== 'excluded';
  if (others.every(positive) && positive(first)) return { verdict: 'conditional', n: quotes[0].n };
  return null;
}

/** The line before the quotes: their frame, opened by the verdict when there is one. */
export function quotesFrame(lang: Lang, quotes: readonly QuotedSentence[], verdict: { verdict: Verdict; n: number } | null): string {
  const leads = ANSWER_LEADS[lang];
  const otherLanguage = quotes.length > 0 && quotes.every((q) => detectLang(q.sentence) !== lang);
  // Whose words these are: the customer's own document, the site's, or both (issue 36).
  const own = quotes.filter((q) => q.passage.origin === 'device').length;
  const whose = own === 0 ? 'site' : own === quotes.length ? 'own' : 'mixed';
  if (!verdict) {
    if (otherLanguage) return leads.otherLanguage;
    return whose === 'own' ? strings(lang).quoteIntroOwn : whose === 'mixed' ? strings(lang).quoteIntroMixed : strings(lang).quoteIntro;
  }
  const after = otherLanguage ? leads.afterVerdictOtherLanguage : whose === 'own' ? leads.afterVerdictOwn : whose === 'mixed' ? leads.afterVerdictMixed : leads.afterVerdict;
  return `${leads.verdict[verdict.verdict]} [${verdict.n}], ${after}`;
}
