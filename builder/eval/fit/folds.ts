/**
 * Cross-validation folds split by group (a question, or one question asked of two indexes): the
 * groups sorted, shuffled by a seeded generator, dealt round robin. Deterministic, so a fitting
 * script prints the same held-out figures on every run.
 */
export function assignFolds(groups: readonly string[], k: number, seed: number): number[] {
  const keys = [...new Set(groups)].sort();
  let state = seed;
  const random = () => (state = (state * 1103515245 + 12345) % 2147483648) / 2147483648;
  for (let i = keys.length - 1; i > 0; i--) {
    const j = Math.floor(random() * (i + 1));
    [keys[i], keys[j]] = [keys[j], keys[i]];
  }
  const fold = new Map(keys.map((g, i) => [g, i % k]));
  return groups.map((g) => fold.get(g)!);
}
