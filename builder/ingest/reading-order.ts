/**
 * Puts pre-parsed PDF text (page JSON of `kind: "pdf"`, parsed by others without a bidi pass) in
 * reading order, once every file of the build is read: the word-order model learns from the whole
 * corpus's trusted text (widget/core/pdf/word-order.ts says which), so it needs all of it first.
 * PDFs the builder parses itself are left alone: pdf.js reads their order.
 */
import { countDocumentLine, createWordOrderCounts, repairPageOrder, wordOrderModel } from '../../widget/core/pdf/word-order.ts';
import { pagesFromTexts } from '../parse/page-json.ts';
import type { ParsedFile } from './parse-file.ts';

export interface ReadingOrderStats {
  /** Lines of pre-parsed PDFs read. */
  lines: number;
  /** Of those, lines whose word order was repaired. */
  reordered: number;
}

/** Rewrites, in place, the pages of every pre-parsed PDF among `files`; returns what it changed. */
export function repairReadingOrder(files: readonly ParsedFile[]): ReadingOrderStats {
  const stats: ReadingOrderStats = { lines: 0, reordered: 0 };
  const preParsed = files.filter((file) => file.pdfPageTexts !== undefined);
  if (preParsed.length === 0) return stats;
  const counts = createWordOrderCounts();
  for (const file of files) {
    if (file.pdfPageTexts) {
      for (const page of file.pdfPageTexts) for (const line of page.text.split('\n')) countDocumentLine(counts, line, 'parsed-pdf');
    } else {
      for (const page of file.pages) for (const block of page.blocks) for (const line of block.text.split('\n')) countDocumentLine(counts, line, file.kind === 'pdf' ? 'parsed-pdf' : 'trusted');
    }
  }
  const model = wordOrderModel(counts);
  for (const file of preParsed) {
    file.pages = pagesFromTexts(file.pdfPageTexts ?? [], (text) => {
      const repaired = repairPageOrder(text, model);
      stats.lines += text.split('\n').length;
      stats.reordered += repaired.reordered;
      return repaired.text;
    });
  }
  return stats;
}
