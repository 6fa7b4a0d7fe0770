/**
 * The reliability table: for each confidence tier, how many answers it holds and how often they
 * cite a page that answers the question. It is what "high" promises a customer, measured.
 * Answerable questions count towards the share; unanswerable ones are listed beside it, since any
 * answer to them above "low" is a confident answer to a question the documents do not answer.
 */
import type { ScoredQuestion } from './score-question.ts';

export const TIERS = ['high', 'medium', 'low'] as const;
export type Tier = (typeof TIERS)[number];

export interface TierReliability {
  tier: Tier;
  /** Answerable questions answered in this tier (refusals are "low"). */
  answerable: number;
  /** Of those, answers citing a gold page. */
  citingGold: number;
  /** Of those, answers citing a gold page or a near-identical twin of one. */
  citingGoldLenient: number;
  /** citingGold / answerable (0 when empty). */
  share: number;
  shareLenient: number;
  /** Unanswerable questions that got this tier. */
  unanswerable: number;
}

export function reliabilityTable(scored: readonly Pick<ScoredQuestion, 'confidence' | 'answerable' | 'citationHit' | 'citationHitLenient'>[]): TierReliability[] {
  return TIERS.map((tier) => {
    const inTier = scored.filter((s) => s.confidence === tier);
    const answerable = inTier.filter((s) => s.answerable);
    const citingGold = answerable.filter((s) => s.citationHit).length;
    const citingGoldLenient = answerable.filter((s) => s.citationHitLenient).length;
    return {
      tier,
      answerable: answerable.length,
      citingGold,
      citingGoldLenient,
      share: answerable.length ? citingGold / answerable.length : 0,
      shareLenient: answerable.length ? citingGoldLenient / answerable.length : 0,
      unanswerable: inTier.length - answerable.length,
    };
  });
}
