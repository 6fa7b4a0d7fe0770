/** Lit templates as text, for tests that read what a view renders without a DOM. */
import type { TemplateResult } from 'lit';

/** A template as its markup with its values in it (`nothing`, an attribute left unset, and directives and handlers as nothing). */
export function templateMarkup(parts: unknown): string {
  if (Array.isArray(parts)) return parts.map(templateMarkup).join('');
  if (typeof parts === 'symbol' || typeof parts === 'function') return '';
  if (typeof parts !== 'object' || parts === null) return String(parts);
  const t = parts as TemplateResult;
  if (!t.strings) return '';
  return t.strings.reduce((out, s, i) => out + s + (i < t.values.length ? templateMarkup(t.values[i]) : ''), '');
}
