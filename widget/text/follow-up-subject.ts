/**
 * The subject of a question, the insurance it is about, and an elliptical follow-up that names
 * another one: "ומה לגבי רכב?" after "מה ההשתתפות העצמית בביטוח דירה?" asks the same thing about
 * the car, so it is searched as "מה ההשתתפות העצמית בביטוח רכב?" — not as the home question with
 * "רכב" added, where the previous question's words outweigh the one new word and bring back the
 * previous answer.
 *
 * The words come from the curated domain phrases the router is trained with (DOMAIN_KEYWORDS), of
 * two sorts:
 * - a name of the insurance: the X of "ביטוח X" / "X insurance", or the domain's own id ("דירה",
 *   "רכב", "נסיעות", "home", "car", "travel");
 * - a thing only that insurance speaks of ("נזקי מים", "ניתוח", "חו"ל", "trip").
 * Only a follow-up that names an insurance, and says nothing but its subject ("רכב?", "for the
 * car?", "ביטוח בריאות?"), swaps the subject. "ולחו"ל?" after a health-insurance surgery question
 * names a place, not an insurance: it narrows the question (surgery abroad), as does any other
 * follow-up, and so does one naming the previous question's own insurance (analyze.ts adds its
 * words to the previous question's).
 */
import { DOMAIN_KEYWORDS } from '../core/retrieval/domain-keywords.ts';
import { phraseTerms } from '../core/retrieval/route.ts';
import { tokenize } from '../core/tokenizer/index.ts';

/** "ביטוח", "insurance": words every insurance's name shares ("ביטוח דירה", "car insurance"); they stay when the subject changes. */
const SHARED_TERMS = new Set(phraseTerms('ביטוח פוליסה insurance policy'));

interface SubjectPhrase {
  domain: string;
  terms: readonly string[];
}

const SUBJECT_PHRASES: readonly SubjectPhrase[] = Object.entries(DOMAIN_KEYWORDS).flatMap(([domain, phrases]) =>
  phrases.map((phrase) => ({ domain, terms: phraseTerms(phrase) })).filter((p) => p.terms.length > 0),
);

/** Term → the domain it names: the X of "ביטוח X" / "X insurance", and each domain's own id. */
const NAME_TERMS: ReadonlyMap<string, string> = new Map(
  Object.keys(DOMAIN_KEYWORDS).flatMap((domain) => {
    const named = SUBJECT_PHRASES.filter((p) => p.domain === domain && p.terms.length === 2 && p.terms.some((t) => SHARED_TERMS.has(t)));
    return [...named.map((p) => p.terms.find((t) => !SHARED_TERMS.has(t))!), ...phraseTerms(domain)].map((term) => [term, domain] as const);
  }),
);

/** Trailing punctuation of a question, kept at its end whatever word the subject swap removes. */
const END_PUNCTUATION = /[\s?!.,;:]+$/u;

/** Per domain, the indices of the words that speak of it. */
type DomainWords = Map<string, Set<number>>;

function add(into: DomainWords, domain: string, index: number): void {
  const indices = into.get(domain) ?? new Set<number>();
  indices.add(index);
  into.set(domain, indices);
}

/** The words of `terms` (each word's tokens) that name an insurance. */
function nameWords(terms: readonly string[][]): DomainWords {
  const found: DomainWords = new Map();
  terms.forEach((candidates, i) => {
    for (const t of candidates) {
      const domain = NAME_TERMS.get(t);
      if (domain) add(found, domain, i);
    }
  });
  return found;
}

/** The words of `terms` in a domain's curated phrase (matched as the router matches them: every word, in any order, prefixes allowed). */
function phraseWords(terms: readonly string[][]): DomainWords {
  const found: DomainWords = new Map();
  for (const phrase of SUBJECT_PHRASES) {
    const at = phrase.terms.map((t) => terms.findIndex((candidates) => candidates.includes(t)));
    if (at.some((i) => i < 0)) continue;
    for (const i of at) add(found, phrase.domain, i);
  }
  return found;
}

const isShared = (candidates: readonly string[]): boolean => candidates.some((t) => SHARED_TERMS.has(t));

/**
 * `previous` asked again about the insurance `followUp` names (its continuation opener already
 * removed: "רכב?", "for the car?"), or null when it names none, or says more than its subject
 * ("רכב שכור בחו"ל?"), or names the previous question's own insurance, or the previous question is
 * about no one insurance (none, or several). The previous question's words of its insurance — its
 * name and the things only it speaks of — give way to the follow-up's words, where the first of
 * them stood; the words all insurances share ("בביטוח") stay: "מה ההשתתפות העצמית בביטוח דירה?" +
 * "רכב?" → "מה ההשתתפות העצמית בביטוח רכב?"; "What is the deductible for home insurance?" + "for
 * the car?" → "What is the deductible for car insurance?".
 */
export function reaskAbout(previous: string, followUp: string): string | null {
  const askedWords = followUp.trim().replace(END_PUNCTUATION, '').split(/\s+/).filter(Boolean);
  const askedTerms = askedWords.map((w) => tokenize(w));
  const named = nameWords(askedTerms);
  if (named.size === 0) return null;
  const subject = new Set([...named.values(), ...phraseWords(askedTerms).values()].flatMap((indices) => [...indices]));
  if (askedTerms.some((candidates, i) => candidates.length > 0 && !subject.has(i) && !isShared(candidates))) return null;

  const end = previous.trim().match(END_PUNCTUATION)?.[0].trim() ?? '';
  const words = previous.trim().replace(END_PUNCTUATION, '').split(/\s+/).filter(Boolean);
  const terms = words.map((w) => tokenize(w));
  const before = nameWords(terms);
  for (const [domain, indices] of phraseWords(terms)) for (const i of indices) add(before, domain, i);
  // A question about two insurances ("the trip, and the empty flat meanwhile") has no one subject to swap.
  if (before.size !== 1 || [...before.keys()].some((d) => named.has(d))) return null;
  const replaced = new Set([...[...before.values()][0]].filter((i) => !isShared(terms[i])));
  if (replaced.size === 0) return null;

  const keptShared = terms.some((candidates, i) => !replaced.has(i) && isShared(candidates));
  // The follow-up's words from its first content word to its last ("the car" → "car"), less a shared word the question keeps ("ביטוח רכב" after "בביטוח").
  const first = askedTerms.findIndex((c) => c.length > 0);
  const last = askedTerms.findLastIndex((c) => c.length > 0);
  const added = askedWords.slice(first, last + 1).filter((_, k) => !(keptShared && isShared(askedTerms[first + k])));
  const at = Math.min(...replaced);
  const out = [...words.slice(0, at).filter((_, i) => !replaced.has(i)), ...added, ...words.slice(at).filter((_, k) => !replaced.has(at + k))];
  return `${out.join(' ')}${end}`;
}

/** The one insurance `followUp` names ("רכב?" → "car"), or null when it names none or several. */
export function namedInsurance(followUp: string): string | null {
  const named = nameWords(
    followUp
      .trim()
      .split(/\s+/)
      .map((w) => tokenize(w)),
  );
  return named.size === 1 ? [...named.keys()][0] : null;
}
