/**
 * The numbers a text states, normalised so that an answer and a ground truth that state the same
 * number agree however they write it: separators (1,000 = 1000), currency (₪, ש"ח: left out, the
 * number stays), number words (אלף = 1000, "שמונה עשרה" = 18), scales ("1.5 מיליון" = 1500000),
 * phone numbers (03-7348102 = 037348102, one number), dates (15.12.2022, one number). What is not
 * a stated number: a clause, page or section reference ("סעיף 2.1", "עמוד 4") and a clause number
 * of several dots (3.2.4), a citation marker ([1]).
 *
 * The answers measure (answers-eval.ts) compares these sets; the widget does not use them.
 */
import { REFERENCE_BEFORE } from '../../widget/text/fact-patterns.ts';
import { readNumberWords } from '../../widget/text/number-words.ts';

const SCALES: Record<string, number> = { אלף: 1e3, אלפי: 1e3, מיליון: 1e6, מליון: 1e6, מיליוני: 1e6, מיליארד: 1e9, thousand: 1e3, million: 1e6, billion: 1e9 };

/** A run of digits with its separators, dashes (phones, ranges), dots (decimals, dates, clauses) or a star code. */
const DIGITS = /\*?\d[\d,]*(?:[./-]\d+)*/gu;
const PHONE_MIN_DIGITS = 7;

/** 1500000 → "1500000", 2.50 → "2.5": one spelling per value. */
function canonical(value: number): string {
  return String(Math.round(value * 1000) / 1000);
}

function referenceBefore(text: string, at: number): boolean {
  return REFERENCE_BEFORE.test(
    text
      .slice(Math.max(0, at - 12), at)
      .replace(/[\s\-–(]+$/u, ' ')
      .trimEnd(),
  );
}

/** The numbers the digit runs of `text` state, with where each run stands. */
export function digitNumbers(text: string): { values: string[]; start: number; end: number }[] {
  const out: { values: string[]; start: number; end: number }[] = [];
  for (const match of text.replace(/\[\d+\]/g, (m) => ' '.repeat(m.length)).matchAll(DIGITS)) {
    const raw = match[0];
    const start = match.index ?? 0;
    const end = start + raw.length;
    if (referenceBefore(text, start)) continue;
    const star = raw.startsWith('*');
    const body = star ? raw.slice(1) : raw;
    const digitCount = body.replace(/\D/g, '').length;
    let values: string[];
    if (star || (/-/.test(body) && digitCount >= PHONE_MIN_DIGITS && /^[\d-]+$/.test(body))) {
      values = [body.replace(/\D/g, '')];
    } else if (/^\d{1,2}[./]\d{1,2}[./]\d{2,4}$/.test(body)) {
      values = [body.replace(/\//g, '.')];
    } else if (/^\d+(?:\.\d+){2,}$/.test(body)) {
      // 3.2.4: a clause number.
      continue;
    } else {
      values = body
        .split(/[-/]/)
        .filter(Boolean)
        .map((part) => {
          const n = Number(part.replace(/,(?=\d{3}(?:\D|$))/g, '').replace(/,/g, '.'));
          return Number.isFinite(n) ? n : null;
        })
        .filter((n): n is number => n !== null)
        .map((n, i, all) => {
          // A scale word after the last number multiplies it: "1.5 מיליון", "10 אלף".
          if (i !== all.length - 1) return canonical(n);
          const scale = text
            .slice(end)
            .match(/^\s?([\u05D0-\u05EAa-z]+)/iu)?.[1]
            ?.toLowerCase();
          return canonical(scale && SCALES[scale] ? n * SCALES[scale] : n);
        });
    }
    out.push({ values, start, end });
  }
  return out;
}

/** The distinct numbers `text` states, as canonical strings. */
export function statedNumbers(text: string): Set<string> {
  const numbers = new Set<string>();
  const digits = digitNumbers(text);
  for (const d of digits) for (const v of d.values) numbers.add(v);
  for (const w of readNumberWords(text)) {
    // A scale word right after digits belongs to them ("10 אלף"), read above.
    const word = text.slice(w.start, w.end).toLowerCase();
    if (SCALES[word] && digits.some((d) => w.start >= d.end && w.start - d.end <= 1)) continue;
    // "אחד", "one" alone is rarely a stated number ("אחד מהכיסויים", "one of").
    if (w.value === 1) continue;
    if (referenceBefore(text, w.start)) continue;
    numbers.add(canonical(w.value));
  }
  return numbers;
}

/**
 * The numbers of a ground-truth answer that an answer must show: those it states, less those the
 * question itself holds (a question about "סעיף 5" or "גיל 60" gives them away).
 */
export function expectedNumbers(groundTruth: string, question: string): Set<string> {
  const inQuestion = statedNumbers(question);
  return new Set([...statedNumbers(groundTruth)].filter((n) => !inQuestion.has(n)));
}
