/**
 * Turns the build's inputs into parsed documents: folders go through the ingest step (every
 * format, manifest, domains, bad-input reporting); a SQuAD 2.0 .json file (HeQ) becomes one
 * document per paragraph.
 */
import { readFile, stat } from 'node:fs/promises';
import { basename } from 'node:path';
import { createError } from '../errors.ts';
import type { ParsedDocument } from '../../widget/core/schema.ts';
import { isSquad, squadDocuments } from '../eval/squad.ts';
import { type IngestOptions, ingest, type IngestWarning, type SkippedFile } from '../ingest/index.ts';
import type { ReadingOrderStats } from '../ingest/reading-order.ts';

export type { SkippedFile };

export interface IngestedInputs {
  documents: ParsedDocument[];
  skipped: SkippedFile[];
  duplicates: SkippedFile[];
  /** What was kept with a change (a link dropped by the URL policy): listed in the summary. */
  warnings: IngestWarning[];
  /** Lines of pre-parsed PDFs read, and how many were put back in reading order. */
  readingOrder: ReadingOrderStats;
}

export async function ingestInputs(inputs: readonly string[], options: Pick<IngestOptions, 'signal' | 'onProgress' | 'fileTimeoutMs' | 'readingOrder'> = {}): Promise<IngestedInputs> {
  const folders: string[] = [];
  const documents: ParsedDocument[] = [];
  for (const input of inputs) {
    const info = await stat(input).catch(() => null);
    if (!info) throw createError('INPUT_NOT_FOUND', input);
    if (info.isDirectory()) {
      folders.push(input);
      continue;
    }
    let json: unknown;
    try {
      json = JSON.parse(await readFile(input, 'utf8'));
    } catch (error) {
      throw createError('INVALID_JSON', basename(input), error instanceof Error ? error.message : String(error));
    }
    if (!isSquad(json)) throw createError('BAD_ARGUMENT', `${input} is a file but not a SQuAD 2.0 dataset; pass folders of documents.`);
    documents.push(...squadDocuments(json));
  }
  if (folders.length === 0) return { documents, skipped: [], duplicates: [], warnings: [], readingOrder: { lines: 0, reordered: 0 } };
  const result = await ingest(folders, options);
  return { documents: [...result.documents, ...documents], skipped: result.skipped, duplicates: result.duplicates, warnings: result.warnings, readingOrder: result.readingOrder };
}
