/**
 * The threshold grading keeps a passage from (widget/loop/grade.ts says why this value).
 * builder/eval/calibrate-grade.ts --write writes this file.
 *
 * Written by `npx tsx builder/eval/calibrate-grade.ts --index .tmp/harel --write 0.35` on 2026-12-01: rerun it rather than edit by hand.
 * Inputs (sha256 61f25c27afe48fe4): dev-v2.json, index 5161b8dc581a0be1.
 *
 * 121 questions (109 answerable), index .tmp/harel
 * threshold | refused answerable | refused unanswerable | answer cites gold page | kept on gold page | kept q with gold | tiers h/m/l (answerable)
 * 0.3 | 0.9 % | 8.3 % | 30.3 % | 10.5 % of 693 | 87.0 % of 69 | 9/99/1 (gold cited 7/26)
 * 0.35 | 3.7 % | 16.7 % | 31.2 % | 13.1 % of 465 | 78.3 % of 69 | 9/96/4 (gold cited 7/27)
 * 0.375 | 10.1 % | 41.7 % | 30.3 % | 14.8 % of 365 | 71.0 % of 69 | 9/89/11 (gold cited 7/26)
 * 0.4 | 21.1 % | 50.0 % | 28.4 % | 16.4 % of 269 | 56.5 % of 69 | 9/77/23 (gold cited 8/23)
 */

/** Minimum relevance for a passage to be kept (threshold grading). */
export const GRADE_MIN_RELEVANCE = 0.35;
