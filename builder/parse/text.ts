/**
 * Plain text → blocks. Text files, scraped web-page text and the pre-parsed corpus pages carry no
 * markup, so structure is guessed from the lines: short title-like lines become headings, numbered
 * clauses start their own block (the chunker keys clause numbers off block starts), and wrapped
 * lines are joined back into paragraphs.
 */
import type { Block, ParsedPage } from '../../widget/core/schema.ts';
import { finishNow, type Steps } from '../../widget/core/steps.ts';
import { CLAUSE_PREFIX, knownSectionLevel, stripNumbering } from '../../widget/core/chunk/section-names.ts';

const NAMED_ENTITIES: Record<string, string> = {
  amp: '&',
  quot: '"',
  apos: "'",
  lt: '<',
  gt: '>',
  nbsp: ' ',
  shy: '',
  ndash: '–',
  mdash: '—',
  lsquo: '‘',
  rsquo: '’',
  ldquo: '“',
  rdquo: '”',
  hellip: '…',
  laquo: '«',
  raquo: '»',
};

/**
 * Scrapers often save page text with HTML entities left in (`צד ג&#x27;`, `&quot;הר הביטוח&quot;`);
 * left alone they split words in the index.
 */
export function decodeEntities(text: string): string {
  return text.replace(/&(#x[0-9a-f]{1,6}|#[0-9]{1,7}|[a-z]{2,8});/gi, (whole, body: string) => {
    if (body[0] === '#') {
      const code = body[1] === 'x' || body[1] === 'X' ? parseInt(body.slice(2), 16) : parseInt(body.slice(1), 10);
      return code > 0 && code <= 0x10ffff && (code < 0xd800 || code > 0xdfff) ? String.fromCodePoint(code) : whole;
    }
    return NAMED_ENTITIES[body.toLowerCase()] ?? whole;
  });
}

/** One line with its run of spaces collapsed; NBSP and other Unicode spaces count as spaces. */
function cleanLine(line: string): string {
  return line.replace(/[\s\u00A0\u2000-\u200A\u202F\u205F\u3000]+/g, ' ').trim();
}

const BULLET = /^[•▪●◦■□➢►\-–*]\s+/;
const FINAL_PUNCTUATION = /[.,;:!?]$/;
const LETTER = /[A-Za-z\u05D0-\u05EA]/;

export function isClauseStart(line: string): boolean {
  return CLAUSE_PREFIX.test(line) || BULLET.test(line);
}

function isAllCapsEnglish(line: string): boolean {
  const letters = line.replace(/[^A-Za-z]/g, '');
  return letters.length >= 3 && letters === letters.toUpperCase() && !/[\u05D0-\u05EA]/.test(line) && line.length <= 80;
}

function isShortTitleLike(line: string): boolean {
  const words = line.split(' ');
  if (line.length > 70 || words.length > 10) return false;
  if (FINAL_PUNCTUATION.test(line) || !LETTER.test(line) || line.includes(';')) return false;
  // Hebrew PDF text extracted in visual order carries its final punctuation at the start.
  if (/^[.,;:!?\-–)(\][]/.test(line)) return false;
  // One short word ("And", "לבין" between the parties of a preamble) is a connective, not a title.
  if (words.length === 1 && line.replace(/[^\p{L}]/gu, '').length < 5) return false;
  // English continuation lines of a wrapped sentence start lowercase.
  return !/^[a-z]/.test(stripNumbering(line) || line);
}

interface Line {
  text: string;
  /** A blank line (or the page start) comes before this one. */
  afterBreak: boolean;
}

/** Heading level for `lines[i]`, or null when it reads as body text. */
function headingLevel(lines: Line[], i: number): number | null {
  const line = lines[i].text;
  const known = knownSectionLevel(line);
  if (known !== null && line.length <= 80) return known;
  const previous = lines[i - 1];
  // A line right under an unfinished long line is that sentence wrapping, not a title.
  if (!lines[i].afterBreak && previous && !FINAL_PUNCTUATION.test(previous.text) && previous.text.length > 70) return null;
  if (isAllCapsEnglish(line) && LETTER.test(line)) return 1;
  if (!isShortTitleLike(line)) return null;
  const next = lines[i + 1];
  // An English line going on in lowercase continues this one's sentence.
  if (!next || /^[a-z]/.test(next.text)) return null;
  // "Followed by body text": the next line is longer or reads as a sentence.
  const nextIsBody = next.text.length > line.length + 10 || FINAL_PUNCTUATION.test(next.text);
  return nextIsBody ? 2 : null;
}

/** Blocks of one page of plain text (no form feeds expected here). */
export function textToBlocks(text: string): Block[] {
  return finishNow(textToBlocksSteps(text));
}

function* textToBlocksSteps(text: string): Steps<Block[]> {
  const lines: Line[] = [];
  let afterBreak = true;
  for (const raw of decodeEntities(text).split(/\r\n|\r|\n/)) {
    yield;
    const line = cleanLine(raw);
    if (line === '') {
      afterBreak = true;
      continue;
    }
    lines.push({ text: line, afterBreak });
    afterBreak = false;
  }

  const blocks: Block[] = [];
  let paragraph: string[] = [];
  const flush = (): void => {
    if (paragraph.length) blocks.push({ type: 'text', text: paragraph.join(' ') });
    paragraph = [];
  };
  for (let i = 0; i < lines.length; i++) {
    yield;
    const { text: line, afterBreak: broke } = lines[i];
    const level = headingLevel(lines, i);
    if (level !== null) {
      flush();
      blocks.push({ type: 'heading', text: line.replace(/\s*:$/, ''), level });
      continue;
    }
    if (broke || isClauseStart(line)) flush();
    paragraph.push(line);
  }
  flush();
  return blocks;
}

/** Plain text as pages: form feeds split pages (as `pdftotext` writes them), else one page. */
export function parseText(text: string, file: string): ParsedPage[] {
  return finishNow(parseTextSteps(text, file));
}

/** `parseText` as steps, one per line (the build runs it with pauses: widget/core/steps.ts). */
export function* parseTextSteps(text: string, _file: string): Steps<ParsedPage[]> {
  const parts = text.replace(/^\uFEFF/, '').split('\f');
  while (parts.length > 1 && parts[parts.length - 1].trim() === '') parts.pop();
  const pages: ParsedPage[] = [];
  for (let index = 0; index < parts.length; index++) pages.push({ page: index + 1, blocks: yield* textToBlocksSteps(parts[index]) });
  return pages;
}
