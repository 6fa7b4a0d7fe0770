/**
 * What a sentence states that a question may ask for: an amount, a duration, an age, a
 * percentage or a count (verbatim, with the term it is about when the sentence names one near
 * it), whether it decides cover (verdict.ts), and whether it has the form of a definition, a
 * procedure or a list of documents (sentence-forms.ts). The extractive engine leads its answer
 * with these; the answerability model reads `answersType` as a feature.
 */
import { expandQuery } from '../core/retrieval/expand.ts';
import { AGE, AMOUNT, COUNT, DURATION, NOT_WORD_AFTER, PERCENTAGE, REFERENCE_BEFORE } from './fact-patterns.ts';
import type { QuestionType } from './question-type.ts';
import { describesProcedure, isDefinition, listsDocuments } from './sentence-forms.ts';
import { coverageVerdict } from './verdict.ts';

export { coverageVerdict, type Verdict } from './verdict.ts';

export type FactKind = 'amount' | 'duration' | 'age' | 'percentage' | 'count';

export interface Fact {
  kind: FactKind;
  /** Verbatim substring of the sentence. */
  text: string;
  /** The term the fact is about, verbatim from the sentence when it names one near the fact ('השתתפות עצמית'). */
  label: string | null;
}

const PATTERNS: Record<FactKind, RegExp> = { amount: AMOUNT, duration: DURATION, age: AGE, percentage: PERCENTAGE, count: COUNT };
const FACT_KINDS: ReadonlySet<QuestionType> = new Set<FactKind>(['amount', 'duration', 'age', 'percentage', 'count']);
/** Largest plausible age: "גיל 250" is not an age. */
const MAX_AGE = 120;

/**
 * Terms a fact of each kind is about, as policies write them (Hebrew proclitics allowed on the
 * first word: "ההשתתפות העצמית", "לתקופת האכשרה").
 */
const LABEL_TERMS: Record<FactKind, readonly string[]> = {
  amount: [
    'השתתפות\\s+ה?עצמית',
    'גבול(?:ות)?\\s+ה?אחריות',
    'תקרת',
    'תקרה',
    'סכום\\s+ה?ביטוח',
    'דמי\\s+ה?ביטוח',
    'פרמיה',
    'החזר',
    'פיצוי',
    'deductible',
    'excess',
    'limit\\s+of\\s+liability',
    'sum\\s+insured',
    'premium',
    'refund',
    'compensation',
    'reimbursement',
  ],
  duration: [
    'תקופת\\s+ה?אכשרה',
    'תקופת\\s+ה?המתנה',
    'תקופת\\s+ה?התיישנות',
    'תקופת\\s+ה?ביטוח',
    'התיישנות',
    'הודעה\\s+מוקדמת',
    'waiting\\s+period',
    'qualifying\\s+period',
    'limitation\\s+period',
    'period\\s+of\\s+insurance',
    'insurance\\s+period',
    'notice',
  ],
  age: ['גיל\\s+ה?כניסה', 'גיל\\s+ה?הצטרפות', 'entry\\s+age'],
  percentage: ['השתתפות\\s+ה?עצמית', 'הנחה', 'החזר', 'deductible', 'excess', 'discount', 'refund', 'co-?payment'],
  count: [],
};
const LABELS: Record<FactKind, RegExp | null> = Object.fromEntries(
  Object.entries(LABEL_TERMS).map(([kind, terms]) => [kind, terms.length ? new RegExp(`(?<![\\u05D0-\\u05EAA-Za-z])(?:[ובלמשכה]{1,3})?(${terms.join('|')})${NOT_WORD_AFTER}`, 'giu') : null]),
) as Record<FactKind, RegExp | null>;
/**
 * Where a label must stand to name its fact: before it, with at most this many characters and
 * no other number between them ("השתתפות עצמית בסך 250 ₪", "Deductible: $1,500"), or right
 * after it ("250 ₪ השתתפות עצמית", "$250 deductible"). Anything further names something else
 * ("ינוכה מתגמולי הביטוח סכום של 850 ש"ח" is no "תגמולי ביטוח: 850 ש"ח").
 */
const MAX_LABEL_GAP = 40;
const MAX_TRAILING_GAP = 3;

interface Span {
  start: number;
  end: number;
}

function spans(text: string, re: RegExp): (Span & { text: string })[] {
  return [...text.matchAll(re)].map((m) => ({ start: m.index, end: m.index + m[0].length, text: m[0] }));
}

/** The labels of `kind` in `text`, verbatim without proclitics, with where they are. */
function labelSpans(text: string, kind: FactKind): (Span & { text: string })[] {
  const re = LABELS[kind];
  if (!re) return [];
  return [...text.matchAll(re)].map((m) => {
    const end = m.index + m[0].length;
    return { start: end - m[1].length, end, text: m[1] };
  });
}

/** The terms of `kind` a text names ("מה ההשתתפות העצמית?" → ['השתתפות העצמית']): what a question asks the fact about. */
export function factLabels(text: string, kind: FactKind): string[] {
  return labelSpans(text, kind).map((l) => l.text);
}

function rawFacts(sentence: string, kind: FactKind): (Span & { text: string })[] {
  let found = spans(sentence, PATTERNS[kind]).filter((f) => !REFERENCE_BEFORE.test(sentence.slice(Math.max(0, f.start - 12), f.start)));
  if (kind === 'age') found = found.filter((f) => Number(f.text.match(/\d+/)?.[0] ?? 0) <= MAX_AGE);
  // "שטרם מלאו לה 42 שנים" is an age, not a duration.
  if (kind === 'duration') {
    const ages = spans(sentence, AGE);
    found = found.filter((f) => !ages.some((a) => a.start < f.end && f.start < a.end));
  }
  return found;
}

/**
 * Sentences whose numbers are no facts of the policy: a question (an FAQ heading), a worked
 * example or illustration ("לדוגמה", "לצורך המחשה", "for example"), and a table row flattened by
 * PDF extraction ("| … | … |"), whose cells have lost the order that tied a number to its row.
 */
const NOT_STATING = /\?\s*$|דוגמ[הא]|המחשה|for example|e\.g\.|illustrat|\|[^|]*\|/iu;

/** Every fact of the asked kind in `sentence`, in order; none for a question type that asks for no quantity. */
export function findFacts(sentence: string, type: QuestionType): Fact[] {
  if (!FACT_KINDS.has(type) || NOT_STATING.test(sentence)) return [];
  const kind = type as FactKind;
  const labels = labelSpans(sentence, kind);
  return rawFacts(sentence, kind).map((f) => {
    let label: string | null = null;
    let nearest = Infinity;
    for (const l of labels) {
      const between = l.end <= f.start ? sentence.slice(l.end, f.start) : sentence.slice(f.end, l.start);
      // A term after its number only in English: right-to-left PDF text scrambles Hebrew order.
      const fits = l.end <= f.start ? between.length <= MAX_LABEL_GAP && !/\d/.test(between) : between.length <= MAX_TRAILING_GAP && /^[a-z]/i.test(l.text);
      if (fits && between.length < nearest) {
        nearest = between.length;
        label = l.text;
      }
    }
    return { kind, text: f.text, label };
  });
}

/** Every term a fact may be about, each of LABEL_TERMS once, as a pattern that finds it in a text. */
const TERM_PATTERNS: readonly RegExp[] = [...new Set(Object.values(LABEL_TERMS).flat())].map((t) => new RegExp(`(?<![\\u05D0-\\u05EAA-Za-z])(?:[ובלמשכה]{1,3})?(?:${t})${NOT_WORD_AFTER}`, 'iu'));

function termsIn(text: string): Set<number> {
  return new Set(TERM_PATTERNS.flatMap((re, i) => (re.test(text) ? [i] : [])));
}

/**
 * Whether two texts name the same term of a fact ("ההשתתפות העצמית" and "השתתפות עצמית" do,
 * "סכום הביטוח" and "דמי ביטוח" do not, though both say "ביטוח"); `a`'s lexicon equivalents
 * count, so "deductible" names what "השתתפות עצמית" does.
 */
export function sameTerm(a: string, b: string): boolean {
  const asked = termsIn(`${a} ${expandQuery(a).terms}`);
  for (const t of termsIn(b)) if (asked.has(t)) return true;
  return false;
}

export function isFactKind(type: QuestionType): type is FactKind {
  return FACT_KINDS.has(type);
}

/**
 * The facts of `sentence` that answer what `question` asks: of the asked kind and, when the
 * question names the term it asks about ("מה ההשתתפות העצמית…"), about that term. A fact whose
 * sentence names no term for it counts when the sentence, its clause's title or its section
 * (`context`) speaks of the asked term ("ההשתתפות העצמית היא 10% מסכום הנזק, ולא פחות מ-5,000
 * ש"ח": the minimum sits past a number, too far for a label, yet the sentence is about the
 * deductible); a labelled fact about another term never does ("שכר דירה חלופית עד 6,000 ש"ח" is no
 * deductible). A term matches its lexicon equivalents, so an English question meets a Hebrew
 * clause. A deductible or a refund may be written as a share, so a percentage answers an amount
 * asked by such a term.
 */
export function askedFacts(
  sentence: string,
  question: string,
  type: QuestionType,
  asked: readonly string[] = isFactKind(type) ? factLabels(question, type) : [],
  context: readonly string[] = [],
): Fact[] {
  if (!isFactKind(type)) return [];
  const facts = findFacts(sentence, type);
  if (asked.length === 0) return facts;
  const names = (label: string) => asked.some((a) => sameTerm(a, label));
  const shares = type === 'amount' && asked.some((a) => factLabels(a, 'percentage').length > 0) ? findFacts(sentence, 'percentage') : [];
  const kinds: FactKind[] = type === 'amount' ? ['amount', 'percentage'] : [type];
  const speaksOf = (text: string) => kinds.some((kind) => labelSpans(text, kind).some((l) => names(l.text)));
  // The term before the fact, in the sentence or above it: "…פרמיה חודשית לכל 10,000 ₪" read
  // backwards by a PDF puts the premium after the sum it is per, and that sum is no premium.
  // The heading or clause title speaks for a sentence that names no term of its own.
  const namesNone = kinds.every((kind) => labelSpans(sentence, kind).length === 0);
  const spokenBefore = (f: Fact) => (namesNone && context.some(speaksOf)) || speaksOf(sentence.slice(0, Math.max(0, sentence.indexOf(f.text))));
  return [...facts, ...shares].filter((f) => (f.label ? names(f.label) : spokenBefore(f)));
}

const ALL_FACT_KINDS: readonly FactKind[] = ['amount', 'duration', 'age', 'percentage', 'count'];

/**
 * Whether `quote`, the sentence an answer leads with, misses what `question` asks for (of `type`,
 * naming its fact by the terms `asked`: the question's reading, question-reading.ts): it states
 * a quantity of another kind (a housing allowance for "מה ההשתתפות העצמית?", a sum for "תוך כמה
 * זמן?"), or the question names a term and the quote neither names it nor states a fact about it
 * (a clause on wear and weather for "ומה לגבי מזג האוויר?" after the deductible). A quote that
 * states no quantity for a question that names no term misses nothing (it may be a verdict, a
 * procedure, or the clause that the asked fact's table sits under).
 */
export function leadMissesAsked(quote: string, question: string, type: QuestionType, asked: readonly string[], context: readonly string[] = []): boolean {
  if (!isFactKind(type)) return false;
  if (askedFacts(quote, question, type, asked, context).length > 0) return false;
  if (asked.length > 0) return !asked.some((a) => sameTerm(a, quote));
  const stated = ALL_FACT_KINDS.filter((k) => findFacts(quote, k).length > 0);
  // "כמה אשלם?" is answered by a share as well as by a sum.
  const money: readonly FactKind[] = ['amount', 'percentage'];
  return stated.length > 0 && stated.every((k) => k !== type && !(money.includes(type) && money.includes(k)));
}

/** The fact of the asked kind a sentence states: the first one it says what it is about, else the first. */
export function findFact(sentence: string, type: QuestionType): Fact | null {
  const facts = findFacts(sentence, type);
  return facts.find((f) => f.label !== null) ?? facts[0] ?? null;
}

/**
 * Whether `sentence` carries what a question of `type` asks for: a fact of that kind, an explicit
 * verdict on cover, a list of documents, the steps of a procedure, a definition. Never for 'other'.
 */
export function answersType(sentence: string, type: QuestionType, sectionPath: readonly string[] = []): boolean {
  // A question answers nothing, whatever it holds.
  if (/\?\s*$/u.test(sentence)) return false;
  switch (type) {
    case 'coverage':
      return coverageVerdict(sentence, sectionPath) !== null;
    case 'documents':
      return listsDocuments(sentence);
    case 'procedure':
      return describesProcedure(sentence);
    case 'definition':
      return isDefinition(sentence);
    case 'other':
      return false;
    default:
      return findFacts(sentence, type).length > 0;
  }
}
