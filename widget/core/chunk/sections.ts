/**
 * The structure walk: a document's pages become units (headings, paragraphs, table rows), each
 * tagged with the heading path and clause it sits in. The state (heading stack, clause) carries
 * across pages, since sections do.
 */
import type { Block, ParsedDocument } from '../schema.ts';
import { boilerplateKey, isPageNumber } from './boilerplate.ts';
import { parseClauseLine, type ClauseLine } from './clause.ts';
import { cleanTitle, detectHeading } from './headings.ts';
import { finishNow, type Steps } from '../steps.ts';

export type UnitKind = 'heading' | 'text' | 'row';

export interface Unit {
  kind: UnitKind;
  text: string;
  page: number;
  sectionPath: string[];
  clause: string | null;
  /** Same section (path and clause): consecutive units pack together freely. */
  sectionKey: string;
  /** Headings of level ≤ 2: small sections merge only within one top-level section. */
  topKey: string;
  /** Rows: the table they belong to, and its header row. */
  table?: { id: number; header: string; isHeader: boolean };
}

interface Heading {
  level: number;
  title: string;
  /** The numeric clause it was opened in (its own number for "3. Exclusions"); null outside any. */
  scope: string | null;
}

/** "3.2.1" sits within "3.2" and "3"; "3.10" does not sit within "3.1". */
function within(clause: string, scope: string): boolean {
  return clause === scope || clause.startsWith(`${scope}.`);
}

interface Line {
  kind: UnitKind;
  text: string;
  level?: number;
  /** First line of its block: a paragraph never continues across blocks. */
  blockStart: boolean;
}

const TABLE_SEPARATOR = /^\|?\s*:?-{2,}:?\s*(\|\s*:?-{2,}:?\s*)*\|?$/;
const MARKDOWN_ROW = /^\|.*\|$/;

function cells(row: string): number {
  return row.split('|').length;
}

/**
 * The kept lines of a page. Furniture goes, except its first occurrence in the document: a running
 * header is the document's name, worth one copy, and a repeated sentence taken for furniture by
 * mistake is not lost altogether.
 */
function* linesOf(blocks: Block[], furniture: Set<string>, seen: Set<string>): Steps<Line[]> {
  const out: Line[] = [];
  for (const block of blocks) {
    yield;
    let first = true;
    for (const raw of block.text.split('\n')) {
      // Table rules a text parser joined into a paragraph carry no words.
      const text = raw
        .replace(/\|?(?:\s*:?-{3,}:?\s*\|)+/g, ' ')
        .replace(/\s+/g, ' ')
        .trim();
      if (!text || isPageNumber(text)) continue;
      const key = boilerplateKey(text);
      if (furniture.has(key)) {
        if (seen.has(key)) continue;
        seen.add(key);
      }
      if (TABLE_SEPARATOR.test(text)) continue;
      const kind: UnitKind = block.type === 'text' && MARKDOWN_ROW.test(text) ? 'row' : block.type;
      out.push({ kind, text, level: block.level, blockStart: first });
      first = false;
    }
  }
  return out;
}

/** Walks the document; `furniture` holds boilerplate keys to drop. */
export function documentUnits(doc: ParsedDocument, furniture: Set<string>): Unit[] {
  return finishNow(documentUnitsSteps(doc, furniture));
}

/** `documentUnits` as steps, one per block and line (widget/core/steps.ts). */
export function* documentUnitsSteps(doc: ParsedDocument, furniture: Set<string>): Steps<Unit[]> {
  const stack: Heading[] = [];
  let clause: string | null = null;
  // The numeric clause a lettered item hangs under ("3.2" for "(א)" → "3.2(א)").
  let numeric: string | null = null;
  let tableId = 0;
  let table: { id: number; header: string; columns: number } | null = null;
  const units: Unit[] = [];
  const seenFurniture = new Set<string>();

  const snapshot = (kind: UnitKind, text: string, page: number): Unit => {
    const sectionPath = stack.map((h) => h.title);
    const top = stack.filter((h) => h.level <= 2).map((h) => h.title);
    return {
      kind,
      text,
      page,
      sectionPath,
      clause,
      sectionKey: `${sectionPath.join('\u001f')}\u0000${clause ?? ''}`,
      topKey: top.join('\u001f'),
    };
  };
  const setClause = (parsed: ClauseLine): void => {
    if (parsed.mark.kind === 'number') {
      numeric = parsed.mark.value;
      clause = numeric;
      // Headings opened inside a clause end with it: "Total loss" under 6 does not label clause 7.
      while (stack.length && stack[stack.length - 1].scope !== null && !within(numeric, stack[stack.length - 1].scope!)) {
        stack.pop();
      }
    } else {
      clause = numeric ? `${numeric}(${parsed.mark.value})` : `(${parsed.mark.value})`;
    }
  };
  const pushHeading = (level: number, title: string): void => {
    while (stack.length && stack[stack.length - 1].level >= level) stack.pop();
    if (title) stack.push({ level, title, scope: numeric });
  };

  for (const page of doc.pages) {
    const lines = yield* linesOf(page.blocks, furniture, seenFurniture);
    const clauses: (ClauseLine | null)[] = [];
    for (const l of lines) {
      yield;
      clauses.push(l.kind === 'row' ? null : parseClauseLine(l.text));
    }
    // A table continues across a page break only when the page opens with rows of the same width.
    if (table && !(lines[0]?.kind === 'row' && cells(lines[0].text) === table.columns)) table = null;
    let paragraph: Unit | null = null;

    for (let i = 0; i < lines.length; i++) {
      yield;
      const line = lines[i];
      const parsed = clauses[i];
      if (line.kind === 'row') {
        paragraph = null;
        if (!table || cells(line.text) !== table.columns) {
          table = { id: ++tableId, header: line.text, columns: cells(line.text) };
        }
        const unit = snapshot('row', line.text, page.page);
        unit.table = { id: table.id, header: table.header, isHeader: line.text === table.header };
        units.push(unit);
        continue;
      }
      table = null;

      if (line.kind === 'heading') {
        paragraph = null;
        if (parsed) setClause(parsed);
        // An unnumbered top-level heading starts a new numbering scope.
        else if ((line.level ?? 1) <= 2) clause = numeric = null;
        pushHeading(line.level ?? 1, cleanTitle(parsed ? parsed.rest : line.text));
        units.push(snapshot('heading', line.text, page.page));
        continue;
      }

      const previous = !line.blockStart && i > 0 ? lines[i - 1].text : null;
      const heading = detectHeading(line.text, parsed, {
        previous,
        next: lines[i + 1]?.text ?? null,
        nextClause: clauses[i + 1] ?? null,
        openClause: numeric,
      });
      if (heading) {
        paragraph = null;
        if (parsed) setClause(parsed);
        else if (heading.level <= 2) clause = numeric = null;
        pushHeading(heading.level, heading.title);
        units.push(snapshot('heading', line.text, page.page));
        continue;
      }
      if (parsed) {
        setClause(parsed);
        paragraph = null;
      }
      if (paragraph && !line.blockStart) {
        paragraph.text += `\n${line.text}`;
      } else {
        paragraph = snapshot('text', line.text, page.page);
        units.push(paragraph);
      }
    }
  }
  return units;
}
