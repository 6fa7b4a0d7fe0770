/**
 * Structure-first chunking: sections (headings, numbered clauses) decide where passages start;
 * the token bound only decides where long sections are cut. Pure: no Node APIs (may move to
 * widget/core).
 *
 * Choices, for retrieval and citations:
 * - A chunk never crosses a page: answers are cited by file and page.
 * - Consecutive units of one section pack up to `maxTokens`. A small section (the current chunk
 *   under half the bound) takes in the next sections while they fit and stay within the same
 *   top-level section (headings of level ≤ 2 and top-level clause). Many 20-token chunks embed
 *   poorly and flood BM25 with near-empty hits; merging siblings on one page costs nothing in
 *   page-level citation. The chunk keeps the sectionPath and clause of its first unit: that is
 *   where the reader starts reading, and the parentId (top-level clause) is shared by all of them.
 * - Headings travel with the text under them: a heading never ends a chunk when text follows it
 *   on the page.
 * - Overlap (~15 %) only between pieces of one section that was cut for size; a new section is a
 *   natural border and needs none. Table pieces repeat the header row instead.
 */
import type { Chunk, ParsedDocument } from '../schema.ts';
import { findBoilerplate } from './boilerplate.ts';
import { topClause } from './clause.ts';
import { contentHash, sectionId } from './hash.ts';
import { documentUnitsSteps, type Unit } from './sections.ts';
import { packSentences, splitSentences } from './sentences.ts';
import { estimateTokens } from './tokens.ts';
import { finishNow, type Steps } from '../steps.ts';

export { estimateTokens } from './tokens.ts';
export { contentHash, sectionId } from './hash.ts';
export { findBoilerplate, boilerplateKey, isPageNumber } from './boilerplate.ts';
export { chunkContextPrefix } from './context.ts';

export interface ChunkOptions {
  /** Bound on a chunk's tokens (default 350). */
  maxTokens?: number;
  /** Overlap between cut pieces of one section, as a fraction of maxTokens (default 0.15). */
  overlap?: number;
  /** Noise floor: smaller chunks without a clause or any number are dropped (default 12). */
  minTokens?: number;
  /** The embedder's tokenizer when loaded; default `estimateTokens`. */
  countTokens?: (text: string) => number;
}

interface Part {
  unit: Unit;
  text: string;
  tokens: number;
}

interface Draft {
  parts: Part[];
  tokens: number;
}

export function chunkDocument(doc: ParsedDocument, docIndex: number, options: ChunkOptions = {}): Chunk[] {
  return finishNow(chunkDocumentSteps(doc, docIndex, options));
}

/**
 * `chunkDocument` as steps, one per unit and per chunk: the build runs it with pauses so that a
 * long document does not hold off Ctrl-C (widget/core/steps.ts).
 */
export function* chunkDocumentSteps(doc: ParsedDocument, docIndex: number, options: ChunkOptions = {}): Steps<Chunk[]> {
  const maxTokens = options.maxTokens ?? 350;
  const overlapTokens = Math.round(maxTokens * (options.overlap ?? 0.15));
  const minTokens = options.minTokens ?? 12;
  const count = options.countTokens ?? estimateTokens;

  const units = yield* documentUnitsSteps(doc, findBoilerplate(doc));
  const drafts: Draft[] = [];
  let current: Draft = { parts: [], tokens: 0 };

  const flush = (carry = true): Part[] => {
    // Trailing headings belong to what follows them on the page, not to the chunk before.
    const carried: Part[] = [];
    while (carry && current.parts.length > 1 && current.parts[current.parts.length - 1].unit.kind === 'heading') {
      carried.unshift(current.parts.pop()!);
    }
    if (current.parts.length) drafts.push(current);
    current = { parts: [], tokens: 0 };
    return carried;
  };
  const add = (part: Part): void => {
    current.parts.push(part);
    current.tokens += part.tokens;
  };
  const startWith = (parts: Part[]): void => {
    for (const p of parts) add(p);
  };

  for (let u = 0; u < units.length; u++) {
    yield;
    const unit = units[u];
    const tokens = count(unit.text);
    const part: Part = { unit, text: unit.text, tokens };
    const last = current.parts[current.parts.length - 1]?.unit;
    const first = current.parts[0]?.unit;

    if (last && last.page !== unit.page) flush(false);
    const open = current.parts.length > 0;
    const sameSection = open && last!.sectionKey === unit.sectionKey;
    const trailingHeading = open && last!.kind === 'heading';
    const mergeable = open && first!.topKey === unit.topKey && current.tokens < maxTokens / 2;
    if (open && current.tokens + tokens <= maxTokens && (sameSection || trailingHeading || mergeable)) {
      add(part);
      continue;
    }

    // The unit starts a new chunk (or several).
    const previous = open ? current : null;
    const carried = open ? flush() : [];
    const carriedTokens = carried.reduce((s, p) => s + p.tokens, 0);
    const lead: Part[] = [...carried];
    const header = unit.table && !unit.table.isHeader ? { unit, text: unit.table.header, tokens: count(unit.table.header) } : null;
    // A header too big to repeat (a flattened form table) would crowd out the rows it labels.
    if (header && header.tokens <= maxTokens / 3) {
      lead.unshift(header);
    } else if (sameSection && previous && unit.kind === 'text' && !carried.length) {
      lead.push(...overlapTail(previous, overlapTokens, count));
    }
    const leadTokens = lead.reduce((s, p) => s + p.tokens, 0);

    if (leadTokens + tokens <= maxTokens) {
      startWith(lead);
      add(part);
      continue;
    }
    if (carriedTokens + tokens <= maxTokens) {
      startWith(carried);
      add(part);
      continue;
    }
    // Too long for one chunk: cut at sentence borders; the last piece stays open for what follows.
    const repeated = header && header.tokens <= maxTokens / 3 ? header.tokens : 0;
    const room = Math.max(maxTokens - Math.max(carriedTokens, repeated), Math.floor(maxTokens / 2));
    const pieces = packSentences(splitSentences(unit.text), room, overlapTokens, count);
    pieces.forEach((piece, index) => {
      if (index === 0) {
        startWith(carried);
        if (carriedTokens + piece.tokens > maxTokens) flush(false);
      } else flush(false);
      if (index > 0 && header && header.tokens <= maxTokens / 3) add(header);
      add({ unit, text: piece.text, tokens: piece.tokens });
    });
  }
  flush();
  return yield* finish(doc, docIndex, drafts, minTokens, count);
}

/** The last sentences of a chunk, up to the overlap budget (one sentence of up to 1.5× it). */
function overlapTail(draft: Draft, budget: number, count: (t: string) => number): Part[] {
  const lastText = [...draft.parts].reverse().find((p) => p.unit.kind === 'text');
  if (!lastText || budget <= 0) return [];
  const sentences = splitSentences(lastText.text);
  const taken: string[] = [];
  let used = 0;
  for (let i = sentences.length - 1; i > 0; i--) {
    const t = count(sentences[i]);
    if (used + t > budget && !(taken.length === 0 && t <= budget * 1.5)) break;
    taken.unshift(sentences[i]);
    used += t;
  }
  return taken.length ? [{ unit: lastText.unit, text: taken.join(' '), tokens: used }] : [];
}

function* finish(doc: ParsedDocument, docIndex: number, drafts: Draft[], minTokens: number, count: (t: string) => number): Steps<Chunk[]> {
  const chunks: Chunk[] = [];
  const ids = new Set<string>();
  for (const draft of drafts) {
    yield;
    // A chunk that opens with headings takes the path of the text they head (the deepest of them)
    // and the first clause among them ("Exclusions / 4. War / 4.1 …" → 4: where reading starts).
    const firstText = draft.parts.findIndex((p) => p.unit.kind !== 'heading');
    const leading = firstText < 0 ? draft.parts : draft.parts.slice(0, firstText + 1);
    const head = leading[leading.length - 1].unit;
    const clause = leading.map((p) => p.unit.clause).find((c) => c !== null) ?? null;
    const text = draft.parts
      .map((p) => p.text.trim())
      .filter(Boolean)
      .join('\n');
    if (!text) continue;
    const tokens = count(text);
    // Noise: a few words without any number (no clause number, amount or date) carry nothing a
    // question could be matched on; "3. Theft" or "₪ 5,000" stay.
    if (tokens < minTokens && !/\d/.test(text)) continue;
    const page = draft.parts[0].unit.page;
    let id = contentHash(`${doc.file}\u0000${page}\u0000${text}`);
    // The same passage twice on one page (a repeated note): later copies get a derived id.
    for (let n = 1; ids.has(id); n++) id = contentHash(`${doc.file}\u0000${page}\u0000${text}\u0000${n}`);
    ids.add(id);
    chunks.push({
      id,
      doc: docIndex,
      page,
      sectionPath: head.sectionPath,
      clause,
      parentId: sectionId(doc.file, head.sectionPath, topClause(clause)),
      text,
      tokens,
    });
  }
  return chunks;
}
