/**
 * How often the pre-parsed corpus's Hebrew lines read in the right word order, before and after
 * widget/core/pdf/word-order.ts, measured against the project's own parse of the same PDFs.
 *
 *   npx tsx builder/eval/reading-order.ts [--raw-cache .tmp/raw-parse.json] [--json out.json]
 *                                          [--sample 50 --sample-out lines.md]
 *
 * The reference: `../shared/data/harel-feb-raw`'s PDFs read by builder/parse/pdf.ts. It is a
 * reference, not the truth (pdf.js has faults of its own), so a hand check of sampled lines
 * decides. How the two parses are matched:
 *  - documents: a raw PDF belongs to the corpus document that holds over 90 % of the words of its
 *    first three pages;
 *  - lines: a corpus line (≥ 3 words, some Hebrew, not a table row) is matched to the reference
 *    line of that document with the same multiset of words (letters and digits, punctuation
 *    ignored), when exactly one reference line has it. Order agrees when the word sequences are
 *    equal.
 * The margin is fitted on one half of the matched documents (a seeded split) and reported on the
 * other, both ways round.
 */
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parsePdf } from '../parse/pdf.ts';
import { loadCorpus, type CorpusDocument } from './harel-corpus.ts';
import { createWordOrderCounts, countDocumentLine, repairPageOrder, repairWordOrder, wordOrderModel, type WordOrderModel, type WordOrderRepair } from '../../widget/core/pdf/word-order.ts';
import { listFiles } from '../ingest/walk.ts';

export const RAW_DIR = fileURLToPath(new URL('../../../shared/data/harel-feb-raw/', import.meta.url));
const WORD = /[\u05D0-\u05EAA-Za-z0-9]+/g;
const words = (line: string): string[] => line.match(WORD) ?? [];
/** A line's words as a multiset: how lines and cells of the two parses are matched. */
const bag = (text: string): string => words(text).sort().join(' ');

export type RawParse = Record<string, { page: number; lines: string[] }[]>;

/** The reference: the raw PDFs (those under `under`, or all) read by the project's parser; cached in `cache` when given. */
export async function parseReference(options: { under?: string; cache?: string; quiet?: boolean } = {}): Promise<RawParse> {
  const { under = '', cache } = options;
  if (cache && existsSync(cache)) return JSON.parse(readFileSync(cache, 'utf8')) as RawParse;
  const out: RawParse = {};
  const files = (await listFiles(RAW_DIR)).filter((file) => file.toLowerCase().endsWith('.pdf') && file.startsWith(under));
  for (const [index, file] of files.entries()) {
    try {
      const pages = await parsePdf(new Uint8Array(readFileSync(join(RAW_DIR, file))), file);
      out[file] = pages.map((page) => ({ page: page.page, lines: page.blocks.flatMap((block) => block.text.split('\n')) }));
    } catch (error) {
      process.stderr.write(`skipped ${file}: ${error instanceof Error ? error.message : String(error)}\n`);
    }
    if (!options.quiet) process.stderr.write(`\rreference parse ${index + 1}/${files.length}${index + 1 === files.length ? '\n' : ''}`);
  }
  if (cache) writeFileSync(cache, JSON.stringify(out));
  return out;
}

export interface MatchedLine {
  file: string;
  page: number;
  corpus: string;
  reference: string;
}

function isCandidateLine(line: string): boolean {
  return /[\u05D0-\u05EA]/.test(line) && words(line).length >= 3 && !line.trimStart().startsWith('|');
}

/** [raw file, corpus file] for each raw PDF that belongs to a corpus document (each corpus document once). */
export function documentPairs(raw: RawParse, corpus: readonly CorpusDocument[]): [string, string][] {
  const pdfs = corpus.filter((doc) => doc.kind === 'pdf');
  const vocabularies = pdfs.map((doc) => new Set(doc.pages.flatMap((page) => words(page.text))));
  const pairs: [string, string][] = [];
  const used = new Set<number>();
  for (const [rawFile, pages] of Object.entries(raw)) {
    const head = pages.slice(0, 3).flatMap((page) => page.lines.flatMap(words));
    if (head.length < 30) continue;
    let best = -1;
    let bestShare = 0;
    vocabularies.forEach((vocabulary, index) => {
      const share = head.filter((word) => vocabulary.has(word)).length / head.length;
      if (share > bestShare) [best, bestShare] = [index, share];
    });
    if (bestShare <= 0.9 || used.has(best)) continue;
    used.add(best);
    pairs.push([rawFile, pdfs[best].file]);
  }
  return pairs;
}

export function matchLines(raw: RawParse, corpus: readonly CorpusDocument[]): MatchedLine[] {
  const pdfs = new Map(corpus.filter((doc) => doc.kind === 'pdf').map((doc) => [doc.file, doc]));
  const matched: MatchedLine[] = [];
  for (const [rawFile, file] of documentPairs(raw, corpus)) {
    const pages = raw[rawFile];
    const doc = pdfs.get(file);
    if (!doc) continue;
    const references = new Map<string, string[]>();
    for (const page of pages) for (const line of page.lines) if (words(line).length >= 3) references.set(bag(line), [...(references.get(bag(line)) ?? []), line]);
    for (const page of doc.pages)
      for (const line of page.text.split('\n')) {
        if (!isCandidateLine(line)) continue;
        const found = references.get(bag(line));
        if (found?.length === 1) matched.push({ file, page: page.page, corpus: line, reference: found[0] });
      }
  }
  return matched;
}

export interface MatchedCell {
  file: string;
  /** The corpus's page text, which the repair reads, and the row's line in it. */
  pageText: string;
  lineIndex: number;
  cell: string;
  reference: string;
}

const cellsOf = (row: string): string[] =>
  row
    .trim()
    .replace(/^\||\|$/g, '')
    .split('|')
    .map((cell) => cell.trim());
const isCandidateCell = (cell: string): boolean => /[\u05D0-\u05EA]/.test(cell) && words(cell).length >= 2;

/** Table cells (≥ 2 words, some Hebrew) of the corpus's rows matched, by the same multiset rule, to the cells of the reference's rows. */
export function matchCells(raw: RawParse, corpus: readonly CorpusDocument[]): MatchedCell[] {
  const pdfs = new Map(corpus.filter((doc) => doc.kind === 'pdf').map((doc) => [doc.file, doc]));
  const out: MatchedCell[] = [];
  const pairs = documentPairs(raw, corpus);
  for (const [rawFile, file] of pairs) {
    const references = new Map<string, string[]>();
    for (const page of raw[rawFile])
      for (const line of page.lines) if (line.includes(' | ')) for (const cell of cellsOf(line)) if (isCandidateCell(cell)) references.set(bag(cell), [...(references.get(bag(cell)) ?? []), cell]);
    for (const page of pdfs.get(file)?.pages ?? [])
      page.text.split('\n').forEach((row, lineIndex) => {
        if (!row.trimStart().startsWith('|')) return;
        for (const cell of cellsOf(row)) {
          if (!isCandidateCell(cell)) continue;
          const found = references.get(bag(cell));
          if (found && new Set(found.map((text) => words(text).join(' '))).size === 1) out.push({ file, pageText: page.text, lineIndex, cell, reference: found[0] });
        }
      });
  }
  return out;
}

export interface CellTally {
  cells: number;
  agreeBefore: number;
  agreeAfter: number;
  rightCellsChanged: number;
}

export function tallyCells(cells: readonly MatchedCell[], model: WordOrderModel, margin: number): CellTally {
  const out: CellTally = { cells: cells.length, agreeBefore: 0, agreeAfter: 0, rightCellsChanged: 0 };
  const repairedPages = new Map<string, string[]>();
  for (const { pageText, lineIndex, cell, reference } of cells) {
    let repairedLines = repairedPages.get(pageText);
    if (!repairedLines) repairedPages.set(pageText, (repairedLines = repairPageOrder(pageText, model, { margin }).text.split('\n')));
    const repaired = repairedLines[lineIndex];
    const after = cellsOf(repaired).find((candidate) => bag(candidate) === bag(cell)) ?? cell;
    const before = agrees(cell, reference);
    if (before) out.agreeBefore++;
    if (agrees(after, reference)) out.agreeAfter++;
    if (before && !agrees(after, reference)) out.rightCellsChanged++;
  }
  return out;
}

const agrees = (a: string, b: string): boolean => words(a).join(' ') === words(b).join(' ');

export interface Tally {
  lines: number;
  agreeBefore: number;
  agreeAfter: number;
  changed: number;
  /** Lines that agreed before and were changed: the harm. */
  rightLinesChanged: number;
  /** Changed lines that agree after. */
  changedNowAgree: number;
  byRepair: Partial<Record<WordOrderRepair, { changed: number; nowAgree: number; wasRight: number }>>;
}

export function tally(lines: readonly MatchedLine[], model: WordOrderModel, margin: number): Tally {
  const out: Tally = { lines: lines.length, agreeBefore: 0, agreeAfter: 0, changed: 0, rightLinesChanged: 0, changedNowAgree: 0, byRepair: {} };
  for (const line of lines) {
    const before = agrees(line.corpus, line.reference);
    const { text, repair } = repairWordOrder(line.corpus, model, { margin });
    const after = agrees(text, line.reference);
    if (before) out.agreeBefore++;
    if (after) out.agreeAfter++;
    if (repair === 'none') continue;
    out.changed++;
    if (before) out.rightLinesChanged++;
    if (after) out.changedNowAgree++;
    const kind = (out.byRepair[repair] ??= { changed: 0, nowAgree: 0, wasRight: 0 });
    kind.changed++;
    if (before) kind.wasRight++;
    if (after) kind.nowAgree++;
  }
  return out;
}

/** Lines agreeing after, less twice those that agreed before and were broken: harm counts five times. */
const objective = (t: Tally): number => t.agreeAfter - t.agreeBefore - 5 * t.rightLinesChanged;

const MARGINS = [0, 0.5, 1, 1.5, 2, 3, 4, 5, 6, 8];

/** A seeded half by file name (FNV-1a): the halves stay fixed as the corpus does. */
function half(file: string): 0 | 1 {
  let hash = 0x811c9dc5;
  for (const char of `reading-order:${file}`) hash = Math.imul(hash ^ char.charCodeAt(0), 0x01000193) >>> 0;
  return (hash & 1) as 0 | 1;
}

export function buildCorpusModel(corpus: readonly CorpusDocument[]): WordOrderModel {
  const counts = createWordOrderCounts();
  for (const doc of corpus) for (const page of doc.pages) for (const line of page.text.split('\n')) countDocumentLine(counts, line, doc.kind === 'pdf' ? 'parsed-pdf' : 'trusted');
  return wordOrderModel(counts);
}

async function main(): Promise<void> {
  const args = process.argv.slice(2);
  const flag = (name: string): string | undefined => {
    const at = args.indexOf(name);
    return at >= 0 ? args[at + 1] : undefined;
  };
  const corpus = loadCorpus();
  const raw = await parseReference({ cache: flag('--raw-cache') });
  const lines = matchLines(raw, corpus);
  const model = buildCorpusModel(corpus);
  const halves = [lines.filter((line) => half(line.file) === 0), lines.filter((line) => half(line.file) === 1)];
  const report: Record<string, unknown> = { matchedDocuments: new Set(lines.map((line) => line.file)).size, matchedLines: lines.length };
  const fits: { fittedOn: number; margin: number; heldOut: Tally }[] = [];
  for (const fitted of [0, 1]) {
    let bestMargin = MARGINS[0];
    let bestScore = -Infinity;
    for (const margin of MARGINS) {
      const score = objective(tally(halves[fitted], model, margin));
      if (score > bestScore) [bestMargin, bestScore] = [margin, score];
    }
    fits.push({ fittedOn: fitted, margin: bestMargin, heldOut: tally(halves[1 - fitted], model, bestMargin) });
  }
  report.folds = fits;
  const margin = Number(flag('--margin') ?? fits[0].margin);
  report.all = { margin, ...tally(lines, model, margin) };
  const cells = matchCells(raw, corpus);
  report.tableCells = Object.fromEntries(MARGINS.map((m) => [m, tallyCells(cells, model, m)]));
  const text = JSON.stringify(report, null, 2);
  process.stdout.write(`${text}\n`);
  const jsonOut = flag('--json');
  if (jsonOut) writeFileSync(jsonOut, text);
  const sampleOut = flag('--sample-out');
  if (sampleOut) {
    const size = Number(flag('--sample') ?? 50);
    const changed = lines.map((line) => ({ line, result: repairWordOrder(line.corpus, model, { margin }) })).filter(({ result }) => result.repair !== 'none');
    const step = Math.max(1, Math.floor(changed.length / size));
    const picked = changed.filter((_, index) => index % step === 0).slice(0, size);
    const body = picked.map(
      ({ line, result }, index) =>
        `${index + 1}. ${line.file} p.${line.page} (${result.repair})\n   corpus:    ${line.corpus}\n   repaired:  ${result.text}\n   reference: ${line.reference}\n   verdict: \n`,
    );
    writeFileSync(sampleOut, `# Reading order: ${picked.length} repaired lines to judge by hand (right / wrong / no better)\n\n${body.join('\n')}`);
  }
}

if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) await main();
