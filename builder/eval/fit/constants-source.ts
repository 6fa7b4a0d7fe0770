/**
 * The source of the constant files the fit scripts write into the widget (fit-fusion.ts →
 * widget/core/retrieval/fusion-defaults.ts, calibrate-grade.ts → widget/loop/grade-thresholds.ts),
 * so a fitted value reaches the widget without being retyped. Each file opens with the command that
 * wrote it and a hash of what it read (fit-answerability.ts's weights files too, from `provenance`),
 * so a reader can tell whether a rerun on the same inputs would reproduce it.
 */
import { createHash } from 'node:crypto';
import { readFile } from 'node:fs/promises';
import type { FusionDefaults } from '../../../widget/core/retrieval/fusion-defaults.ts';

/** One input of a fit: a file read whole, or a value that stands for a larger one (an index's buildId). */
export type FitInput = { label: string; file: string } | { label: string; text: string };

/** sha256 over every input's label and content, in order: the first 16 hex digits. */
export async function inputHash(inputs: readonly FitInput[]): Promise<string> {
  const hash = createHash('sha256');
  for (const input of inputs) {
    hash.update(`${input.label}\0`);
    hash.update('file' in input ? await readFile(input.file) : input.text);
    hash.update('\0');
  }
  return hash.digest('hex').slice(0, 16);
}

/** The command as typed: the script's path from the repository root and its arguments. */
export function commandLine(script: string, args: readonly string[]): string {
  return ['npx tsx', script, ...args.map((a) => (/^[\w@%+=:,./-]+$/.test(a) ? a : `'${a.replace(/'/g, `'\\''`)}'`))].join(' ');
}

/** The provenance lines every written file opens with. */
export async function provenance(command: string, inputs: readonly FitInput[], date = new Date()): Promise<string[]> {
  return [
    `Written by \`${command}\` on ${date.toISOString().slice(0, 10)}: rerun it rather than edit by hand.`,
    `Inputs (sha256 ${await inputHash(inputs)}): ${inputs.map((i) => i.label).join(', ')}.`,
  ];
}

function docComment(lines: readonly string[]): string {
  return lines.map((l) => ` * ${l}`.trimEnd()).join('\n');
}

function finite(name: string, x: number): string {
  if (!Number.isFinite(x)) throw new Error(`${name} is ${x}: a written constant must be a finite number`);
  return String(x);
}

/** widget/core/retrieval/fusion-defaults.ts with `fusion` as FITTED_FUSION; `header` says where it came from. */
export function fusionDefaultsSource(fusion: FusionDefaults, header: readonly string[]): string {
  if (fusion.fusion !== 'minmax' && fusion.fusion !== 'rrf') throw new Error(`unknown fusion method ${String(fusion.fusion)}`);
  const value = `{ fusion: '${fusion.fusion}', bm25Weight: ${finite('bm25Weight', fusion.bm25Weight)}, rrfK: ${finite('rrfK', fusion.rrfK)}, bm25Pool: ${finite('bm25Pool', fusion.bm25Pool)}, vectorPool: ${finite('vectorPool', fusion.vectorPool)} }`;
  return `/**
 * Hybrid search's fusion: the method, the BM25 weight, RRF's offset and each side's candidate
 * pool. The build writes them into the manifest's retrieval defaults, where the widget and the
 * Node eval both read them. builder/eval/fit-fusion.ts --write-defaults writes this file.
 *
${docComment(header)}
 */
import type { FusionMethod } from './fuse.ts';

export interface FusionDefaults {
  fusion: FusionMethod;
  bm25Weight: number;
  rrfK: number;
  bm25Pool: number;
  vectorPool: number;
}

export const FITTED_FUSION: FusionDefaults = ${value};
`;
}

/** widget/loop/grade-thresholds.ts with `minRelevance` as GRADE_MIN_RELEVANCE; `header` says where it came from. */
export function gradeThresholdsSource(minRelevance: number, header: readonly string[]): string {
  if (!(minRelevance > 0 && minRelevance < 1)) throw new Error(`a relevance threshold lies in (0, 1), not ${minRelevance}`);
  return `/**
 * The threshold grading keeps a passage from (widget/loop/grade.ts says why this value).
 * builder/eval/calibrate-grade.ts --write writes this file.
 *
${docComment(header)}
 */

/** Minimum relevance for a passage to be kept (threshold grading). */
export const GRADE_MIN_RELEVANCE = ${finite('minRelevance', minRelevance)};
`;
}

/** The header lines of a file these functions wrote: its opening comment less the fixed lines before the blank one. */
export function writtenHeader(source: string): string[] {
  const comment = /^\/\*\*\n([\s\S]*?)\n \*\//.exec(source);
  if (!comment) throw new Error('no opening comment');
  const lines = comment[1].split('\n').map((l) => l.replace(/^ \* ?/, ''));
  return lines.slice(lines.indexOf('') + 1);
}
