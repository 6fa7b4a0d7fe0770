/**
 * Hybrid search's fusion: the method, the BM25 weight, RRF's offset and each side's candidate
 * pool, as fitted by `npx tsx builder/eval/fit-fusion.ts` (held-out figures and the whole grid's
 * choice per fold in builder/eval/fit/fusion-result.json). The build writes them into the
 * manifest's retrieval defaults, where the widget and the Node eval both read them.
 */
import type { FusionMethod } from './fuse.ts';

export interface FusionDefaults {
  fusion: FusionMethod;
  bm25Weight: number;
  rrfK: number;
  bm25Pool: number;
  vectorPool: number;
}

/**
 * Every fold of the fit chose min-max at BM25 weight 0.6 with 300 BM25 candidates (150 or 300
 * vector ones); RRF had the lower held-out MRR on all three sets (dev-v2 0.370 against 0.394),
 * so rrfK is unused. Held-out against the unfitted 0.5 and 150 / 150: dev-v2 MRR 0.375 → 0.394,
 * hit@10 +3 questions, hit@5 −1, HeQ hit@5 −7 of 1,058 (README, "Hybrid search, fitted").
 */
export const FITTED_FUSION: FusionDefaults = { fusion: 'minmax', bm25Weight: 0.6, rrfK: 60, bm25Pool: 300, vectorPool: 150 };
