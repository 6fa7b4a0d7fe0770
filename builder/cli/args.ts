/** Typed readers for option values; a wrong value is a BAD_ARGUMENT naming the option. */
import { createError } from '../errors.ts';
import type { SearchMode } from '../../widget/core/retrieval/retriever.ts';

/** A number in [min, max], or undefined when the option was not given. */
export function optionalNumber(value: string | undefined, name: string, min = -Infinity, max = Infinity): number | undefined {
  if (value === undefined) return undefined;
  const n = Number(value);
  if (!Number.isFinite(n) || n < min || n > max) {
    const range = Number.isFinite(min) && Number.isFinite(max) ? ` from ${min} to ${max}` : '';
    throw createError('BAD_ARGUMENT', `${name} must be a number${range}, not "${value}".`);
  }
  return n;
}

export function numberOption(value: string | undefined, name: string, fallback: number, min: number, max: number): number {
  return optionalNumber(value, name, min, max) ?? fallback;
}

export function positiveInt(value: string | undefined, name: string, fallback: number): number {
  const n = optionalNumber(value, name, 1);
  if (n !== undefined && !Number.isInteger(n)) throw createError('BAD_ARGUMENT', `${name} must be a positive integer, not "${value}".`);
  return n ?? fallback;
}

export function searchMode(value: string | undefined, fallback: SearchMode): SearchMode {
  if (value === undefined) return fallback;
  if (value === 'bm25' || value === 'vector' || value === 'hybrid') return value;
  throw createError('BAD_ARGUMENT', `--mode must be bm25, vector or hybrid, not "${value}".`);
}
