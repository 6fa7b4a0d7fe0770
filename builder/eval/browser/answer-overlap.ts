/**
 * Token F1 of an answer against reference answers (SQuAD's measure, on the project tokenizer's
 * terms). The widget's frame — citation markers, quote marks, caveat and refusal lines — is
 * removed first: it is the same in every answer and says nothing about the fact.
 */
import { STRINGS } from '../../../widget/text/strings.ts';
import { tokenize } from '../../../widget/core/tokenizer/index.ts';

const FRAME = Object.values(STRINGS).flatMap((s) => [s.caveat, s.refusal, s.closestClauses, s.quoteIntro, s.quoteIntroOwn, s.quoteIntroMixed]);

export function answerBody(text: string): string {
  let body = text;
  for (const line of FRAME) body = body.split(line).join(' ');
  return body.replace(/\[\d+\]/g, ' ').replace(/[“”*_#>`]/g, ' ');
}

export function tokenF1(prediction: string, reference: string): number {
  return overlapF1(tokenize(prediction), tokenize(reference));
}

/** SQuAD's F1 of two token lists (shared tokens counted with multiplicity); two empty lists agree. */
export function overlapF1(p: readonly string[], r: readonly string[]): number {
  if (p.length === 0 || r.length === 0) return p.length === r.length ? 1 : 0;
  const counts = new Map<string, number>();
  for (const t of r) counts.set(t, (counts.get(t) ?? 0) + 1);
  let common = 0;
  for (const t of p) {
    const n = counts.get(t) ?? 0;
    if (n > 0) {
      common++;
      counts.set(t, n - 1);
    }
  }
  if (common === 0) return 0;
  const precision = common / p.length;
  const recall = common / r.length;
  return (2 * precision * recall) / (precision + recall);
}

/** Best F1 over the references (HeQ lists several answer spans); null when there is none. */
export function answerF1(answerText: string, references: readonly string[]): number | null {
  if (references.length === 0) return null;
  const body = answerBody(answerText);
  return Math.max(...references.map((r) => tokenF1(body, r)));
}
