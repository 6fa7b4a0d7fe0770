import { describe, expect, it } from 'vitest';
import { reliabilityTable } from '../../../builder/eval/browser/reliability.ts';
import { highThreshold, offTopicRefusedThreshold, offTopicThreshold, refusalThreshold } from '../../../builder/eval/fit/thresholds.ts';
import { fitLogistic, predictLogistic } from '../../../builder/eval/fit/logistic.ts';

type Row = Parameters<typeof reliabilityTable>[0][number];
const row = (confidence: string, answerable: boolean, hit: boolean | null, lenient: boolean | null = hit): Row => ({
  confidence,
  answerable,
  citationHit: answerable ? hit : null,
  citationHitLenient: answerable ? lenient : null,
});

describe('reliability table', () => {
  it('counts answers per tier, the share citing gold (strict and with twins), and unanswerable questions apart', () => {
    const table = reliabilityTable([
      row('high', true, true),
      row('high', true, true),
      row('high', true, false, true),
      row('high', true, false),
      row('high', false, null),
      row('medium', true, false),
      row('medium', true, true),
      row('low', true, false),
      row('low', false, null),
      row('low', false, null),
    ]);
    expect(table).toEqual([
      { tier: 'high', answerable: 4, citingGold: 2, citingGoldLenient: 3, share: 0.5, shareLenient: 0.75, unanswerable: 1 },
      { tier: 'medium', answerable: 2, citingGold: 1, citingGoldLenient: 1, share: 0.5, shareLenient: 0.5, unanswerable: 0 },
      { tier: 'low', answerable: 1, citingGold: 0, citingGoldLenient: 0, share: 0, shareLenient: 0, unanswerable: 2 },
    ]);
  });

  it('reports an empty tier as 0 answers and a share of 0, never NaN', () => {
    const table = reliabilityTable([row('medium', true, true)]);
    expect(table[0]).toMatchObject({ tier: 'high', answerable: 0, share: 0, shareLenient: 0 });
  });
});

describe('threshold rules', () => {
  it('off-topic: just above every on-topic question, never below the floor', () => {
    expect(offTopicThreshold([0.1, 0.62, 0.3])).toBeCloseTo(0.621, 5);
    expect(offTopicThreshold([0.1, 0.2])).toBe(0.5);
  });

  it('off-topic when refused anyway: above every refused on-topic question, raised until general knowledge keeps its budget', () => {
    const onTopic = [
      { p: 0.3, refused: true },
      { p: 0.6, refused: false },
    ];
    // The answered on-topic question at 0.6 does not bind: only refused ones are told "off-topic" by this bar.
    expect(offTopicRefusedThreshold(onTopic, [], 0.7, 0)).toBeCloseTo(0.301, 5);
    // Three refused general questions above that bar and a budget of one: raised past two of them.
    const general = [0.35, 0.4, 0.5].map((p) => ({ p, refused: true }));
    const t = offTopicRefusedThreshold(onTopic, general, 0.7, 1);
    expect(general.filter((g) => g.p >= t)).toHaveLength(1);
    // Never above the bar for any question, never below the floor.
    expect(offTopicRefusedThreshold([{ p: 0.9, refused: true }], [], 0.7, 0)).toBe(0.7);
    expect(offTopicRefusedThreshold([], [], 0.7, 0)).toBe(0.2);
  });

  it('refusal: refuses no more answerable questions than the budget, counting those refused anyway', () => {
    const answerable = [0.1, 0.2, 0.3, 0.4, 0.5, 0.6, 0.7, 0.8, 0.9, 0.95].map((p) => ({ p, refusedAnyway: false }));
    const t = refusalThreshold(answerable, 0.2);
    expect(answerable.filter((a) => a.p < t)).toHaveLength(2);
    const oneLost = answerable.map((a, i) => ({ ...a, refusedAnyway: i === 9 }));
    expect(oneLost.filter((a) => !a.refusedAnyway && a.p < refusalThreshold(oneLost, 0.2))).toHaveLength(1);
    expect(refusalThreshold(answerable, 0.05)).toBe(0);
  });

  it('high: the lowest cut whose answers at or above it are right often enough, with enough of them', () => {
    const answers = [
      { p: 0.9, right: true },
      { p: 0.8, right: true },
      { p: 0.7, right: false },
      { p: 0.6, right: true },
      { p: 0.5, right: true },
      { p: 0.4, right: false },
      { p: 0.3, right: false },
    ];
    // At 0.5: 4 right of 5 (80 %); at 0.4: 4 of 6.
    expect(highThreshold(answers, 0.8, 3)).toBe(0.5);
    expect(highThreshold(answers, 0.95, 3)).toBe(1);
    expect(highThreshold(answers, 0.8, 6)).toBe(1);
  });
});

describe('logistic regression', () => {
  it('separates a separable feature and ranks by it; the L2 penalty keeps the weights finite', () => {
    const x = [[0], [1], [2], [3], [4], [5], [6], [7]];
    const y = [0, 0, 0, 1, 0, 1, 1, 1];
    const model = fitLogistic(
      x,
      y,
      x.map(() => 1),
      { l2: 0.1 },
    );
    expect(model.weights[0]).toBeGreaterThan(0);
    expect(Number.isFinite(model.weights[0])).toBe(true);
    expect(predictLogistic(model, [7])).toBeGreaterThan(0.8);
    expect(predictLogistic(model, [0])).toBeLessThan(0.2);
  });

  it('weights rows: a heavier class pulls the boundary', () => {
    const x = [[0], [1], [2], [3]];
    const y = [0, 0, 1, 1];
    const even = fitLogistic(x, y, [1, 1, 1, 1]);
    const heavyPositive = fitLogistic(x, y, [1, 1, 5, 5]);
    expect(predictLogistic(heavyPositive, [1.5])).toBeGreaterThan(predictLogistic(even, [1.5]));
  });
});
