/**
 * Words that make a question about insurance whatever else it says: "מה הפרמיה לביטוח אופנוע ים?"
 * is on-topic even when no document answers it, and deserves "I cannot find it in the policy
 * documents" with the closest clauses, not "I only answer questions about insurance".
 */
import { tokenize } from '../core/tokenizer/index.ts';

const INSURANCE_WORDS = 'ביטוח מבוטח מבטח פוליסה כיסוי מכסה פרמיה תביעה השתתפות פיצוי insurance insured insurer policy cover covered coverage premium claim deductible';
const INSURANCE_TERMS = new Set(tokenize(INSURANCE_WORDS));

export function mentionsInsurance(question: string): boolean {
  return tokenize(question, { forQuery: true }).some((t) => INSURANCE_TERMS.has(t));
}
