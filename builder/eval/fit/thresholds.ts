/**
 * How each model's threshold is chosen from a training fold's predictions. Each rule states the
 * promise the threshold keeps, so the held-out folds test that promise.
 */

export interface Scored {
  p: number;
  weight?: number;
}

/**
 * Off-topic: the lowest threshold above every on-topic question of the training data, so that no
 * development question is answered with "I only answer about insurance"; never below `floor`.
 */
export function offTopicThreshold(onTopic: readonly number[], floor = 0.5): number {
  const max = onTopic.reduce((m, p) => Math.max(m, p), 0);
  // A margin wider than the rounding of the written coefficients, so the question at the maximum stays below.
  return Math.min(0.999, Math.max(floor, max + 1e-3));
}

/**
 * Off-topic among questions the answerable model refuses anyway: the lowest threshold above every
 * refused on-topic question of the training data (so no insurer's question is told "I only answer
 * about insurance"), raised until at most `generalBudget` of the general-knowledge questions are
 * flagged by the two thresholds together. Never above `threshold`, the bar for any question.
 */
export function offTopicRefusedThreshold(
  onTopic: readonly { p: number; refused: boolean }[],
  general: readonly { p: number; refused: boolean }[],
  threshold: number,
  generalBudget: number,
  floor = 0.2,
): number {
  let t = Math.max(
    floor,
    offTopicThreshold(
      onTopic.filter((s) => s.refused).map((s) => s.p),
      floor,
    ),
  );
  const flagged = (x: number) => general.filter((s) => s.p >= threshold || (s.refused && s.p >= x)).length;
  if (flagged(t) > generalBudget) {
    // Raise to just above the refused general questions' probabilities, highest last, until within budget.
    const steps = general
      .filter((s) => s.refused && s.p >= t && s.p < threshold)
      .map((s) => s.p + 1e-3)
      .sort((a, b) => a - b);
    for (const step of steps) {
      t = step;
      if (flagged(t) <= generalBudget) break;
    }
  }
  return Math.min(t, threshold);
}

/**
 * Refusal: the highest threshold at which at most `maxFalseRefusal` of the answerable questions
 * are refused, counting those the loop refuses anyway (`refusedAnyway`: nothing kept or not
 * supported), which no threshold can win back.
 */
export function refusalThreshold(answerable: readonly { p: number; refusedAnyway: boolean }[], maxFalseRefusal: number): number {
  if (answerable.length === 0) return 0;
  const budget = Math.floor(maxFalseRefusal * answerable.length) - answerable.filter((a) => a.refusedAnyway).length;
  if (budget <= 0) return 0;
  const ps = answerable
    .filter((a) => !a.refusedAnyway)
    .map((a) => a.p)
    .sort((a, b) => a - b);
  // Refusing below ps[budget] refuses exactly `budget` of them (ties aside).
  return ps.length > budget ? ps[budget] : ps[ps.length - 1] + 1e-6;
}

/**
 * "High": the lowest threshold at which the answers at or above it are right at least
 * `precision` of the time, with at least `minSupport` of them; 1 (no "high") when none is.
 */
export function highThreshold(answers: readonly { p: number; right: boolean }[], precision: number, minSupport: number): number {
  const sorted = [...answers].sort((a, b) => b.p - a.p);
  let right = 0;
  let best = 1;
  sorted.forEach((a, i) => {
    if (a.right) right++;
    const n = i + 1;
    const next = sorted[i + 1];
    // Only cut between distinct probabilities.
    if (n >= minSupport && right / n >= precision && (!next || next.p < a.p)) best = a.p;
  });
  return best;
}
