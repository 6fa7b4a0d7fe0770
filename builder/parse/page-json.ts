/**
 * The pre-parsed corpus shape (`{file, domain, kind, url, pages:[{page, text}]}`, one JSON per
 * document): its pages are plain text, so they go through the text parser's line logic and keep
 * their page numbers, which citations point at.
 */
import { createError } from '../errors.ts';
import type { DocumentKind, ParsedPage } from '../../widget/core/schema.ts';
import { textToBlocks } from './text.ts';

export interface PageJsonMeta {
  /** The citation key the corpus uses, e.g. `dental/pages/faq.txt`. */
  file: string;
  domain: string;
  kind: DocumentKind;
  url: string | null;
}

export interface PageJsonDocument {
  meta: PageJsonMeta;
  pages: ParsedPage[];
  /** The raw page texts joined, for duplicate detection independent of parsing. */
  text: string;
  /** Each page's text as given: a pre-parsed PDF's lines are put in reading order once the whole corpus is read (builder/ingest/reading-order.ts). */
  pageTexts: PageText[];
}

export interface PageText {
  page: number;
  text: string;
}

/** Pages of blocks from page texts, each first through `repairText` where one is given. */
export function pagesFromTexts(pageTexts: readonly PageText[], repairText?: (text: string) => string): ParsedPage[] {
  return pageTexts.map(({ page, text }) => ({ page, blocks: textToBlocks(repairText ? repairText(text) : text) }));
}

// `page` is what the shared corpus README calls scraped pages; the files themselves say `txt`.
const KINDS: ReadonlySet<string> = new Set<DocumentKind>(['pdf', 'html', 'md', 'txt', 'page']);

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** Throws INVALID_PAGE_JSON naming the first thing wrong with the shape. */
export function parsePageJson(json: unknown, file: string): PageJsonDocument {
  const fail = (reason: string): never => {
    throw createError('INVALID_PAGE_JSON', file, reason);
  };
  if (!isRecord(json)) return fail('not an object');
  const { file: key, domain, kind, url, pages } = json;
  if (typeof key !== 'string' || key.trim() === '') fail('"file" must be a non-empty string');
  if (typeof key === 'string' && (key.startsWith('/') || key.split('/').includes('..'))) fail('"file" must be a relative path');
  if (typeof domain !== 'string' || domain.trim() === '') fail('"domain" must be a non-empty string');
  if (typeof kind !== 'string' || !KINDS.has(kind)) fail(`"kind" must be one of ${[...KINDS].join(', ')}`);
  if (url !== undefined && url !== null && typeof url !== 'string') fail('"url" must be a string or null');
  if (!Array.isArray(pages)) return fail('"pages" must be an array');

  const seen = new Set<number>();
  const pageTexts: PageText[] = [];
  pages.forEach((page: unknown, index) => {
    if (!isRecord(page)) return fail(`pages[${index}] is not an object`);
    const { page: number, text } = page;
    if (typeof number !== 'number' || !Number.isInteger(number) || number < 1) fail(`pages[${index}].page must be a positive integer`);
    if (typeof text !== 'string') fail(`pages[${index}].text must be a string`);
    if (seen.has(number as number)) fail(`page ${number} appears twice`);
    seen.add(number as number);
    pageTexts.push({ page: number as number, text: text as string });
  });
  return {
    meta: { file: key as string, domain: (domain as string).trim(), kind: kind as DocumentKind, url: (url as string | null | undefined) || null },
    pages: pagesFromTexts(pageTexts),
    text: pageTexts.map((page) => page.text).join('\f'),
    pageTexts,
  };
}
