/**
 * Hybrid search's fusion: the method, the BM25 weight, RRF's offset and each side's candidate
 * pool. The build writes them into the manifest's retrieval defaults, where the widget and the
 * Node eval both read them. builder/eval/fit-fusion.ts --write-defaults writes this file.
 *
 * Last written by hand (2026-11-26, issue 23) from the fit recorded in builder/eval/fit/fusion-result.json
 * (indexes harel be75ee9f4afbfa0e and heq 692810b53a60ef0c with E5; dev-v2 109, dev-v3 17 and HeQ
 * 1,058 answerable questions; 5 folds, seed 7), so it carries no input hash. This rewrites it, with
 * the command and its inputs' hash (indexes of the real corpus with E5 vectors, see the script):
 *   npx tsx builder/eval/fit-fusion.ts --harel .tmp/harel-e5 --heq .tmp/heq-e5 --write builder/eval/fit/fusion-result.json --write-defaults
 *
 * Every fold of the fit chose min-max at BM25 weight 0.6 with 300 BM25 candidates (150 or 300
 * vector ones); RRF had the lower held-out MRR on all three sets (dev-v2 0.370 against 0.394),
 * so rrfK is unused. Held-out against the unfitted 0.5 and 150 / 150: dev-v2 MRR 0.375 → 0.394,
 * hit@10 +3 questions, hit@5 −1, HeQ hit@5 −7 of 1,058 (docs/benchmarks.md, "Hybrid search, fitted").
 */
import type { FusionMethod } from './fuse.ts';

export interface FusionDefaults {
  fusion: FusionMethod;
  bm25Weight: number;
  rrfK: number;
  bm25Pool: number;
  vectorPool: number;
}

export const FITTED_FUSION: FusionDefaults = { fusion: 'minmax', bm25Weight: 0.6, rrfK: 60, bm25Pool: 300, vectorPool: 150 };
