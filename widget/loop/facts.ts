/**
 * What a sentence states that a question may ask for: an amount, a duration, an age, a
 * percentage or a count (verbatim, with the term it is about when the sentence names one near
 * it), whether it decides cover (verdict.ts), and whether it has the form of a definition, a
 * procedure or a list of documents (sentence-forms.ts). The extractive engine leads its answer
 * with these; the answerability model reads `answersType` as a feature.
 */
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
