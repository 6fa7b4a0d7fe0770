/**
 * Cross-references inside a passage ("ראה סעיף 4.1", "כמפורט בסעיף 5", "see clause 4.1", "as
 * defined in section 2") and their resolution to the chunks of the same document that hold that
 * clause. A passage that says "subject to clause 5.1" is only half an answer without clause 5.1,
 * so the retriever attaches the referenced clause as supporting context.
 */
import type { Chunk } from '../schema.ts';

export interface CrossReference {
  /** The clause referred to, in Chunk.clause's form: '4.1', '3(ב)'. */
  clause: string;
  /** Where the reference starts in the text. */
  offset: number;
}

export interface ResolvedReference {
  clause: string;
  chunk: number;
}

const NUM = String.raw`\d{1,2}(?:\.\d{1,2}){0,4}`;
// A lettered sub-clause written after the number: "3(ב)", "3 (b)".
const LETTER = String.raw`(?:\s?\(([\u05D0-\u05EAa-z])\))?`;
const NEXT = String.raw`(?:\s*(?:,|ו-?|או|and|or|&)\s*\.?${NUM}(?:\s?\([\u05D0-\u05EAa-z]\))?)*`;
// A number that goes on (a date, a sum, a percentage) is not a clause.
const END = String.raw`(?!\.?\d|[/%,]\d)`;

const HEBREW_REF = new RegExp(String.raw`(?<![\u05D0-\u05EA])[והבלמשכ]{0,3}(?:סעיף|סעיפים|סעיפי)(?:\s+(?:קטן|משנה))?\s*\(?\.?(${NUM})${END}${LETTER}(${NEXT})`, 'gu');
// Hebrew PDF text extracted in visual order keeps the words of a line reversed: "לפוליסה 11 בסעיף".
const MIRRORED_REF = new RegExp(String.raw`(?<![\d.])\.?(${NUM})${END}\s+[והבלמשכ]{0,3}סעיף(?![\u05D0-\u05EA])`, 'gu');
const MIRRORED_EXTERNAL = /(?:חוק|לחוק|פקודת|לפקודת|תקנות|לתקנות|התקנות|הפקודה)\s*$/u;
const ENGLISH_REF = new RegExp(String.raw`\b(?:clause|section|paragraph|article|chapter)s?\s+(${NUM})${END}${LETTER}(${NEXT})`, 'giu');

// A section of a law, an ordinance or regulations is not a clause of this document.
const HEBREW_EXTERNAL = /^\s*\)?\s*(?:[בלו]?(?:ה)?(?:חוק|פקודת|פקודה|תקנות|תקנה|צו|חוזר)|של\s+(?:ה)?(?:חוק|פקודת|תקנות))/u;
const ENGLISH_EXTERNAL = /^\s*(?:of|to|under|in)\s+(?:the\s+)?(?:[A-Z][\w'-]*\s+){0,6}(?:Law|Act|Ordinance|Regulations|Code)\b/u;

/** The clause numbers a passage refers to, in order, without repeats. */
export function findCrossReferences(text: string): CrossReference[] {
  const out: CrossReference[] = [];
  const seen = new Set<string>();
  for (const [re, external] of [
    [HEBREW_REF, HEBREW_EXTERNAL],
    [ENGLISH_REF, ENGLISH_EXTERNAL],
  ] as const) {
    for (const m of text.matchAll(re)) {
      const after = text.slice(m.index + m[0].length, m.index + m[0].length + 80);
      if (external.test(after)) continue;
      const letter = m[2] ? `(${m[2]})` : '';
      const clauses = [`${m[1]}${letter}`];
      for (const more of (m[3] ?? '').matchAll(new RegExp(String.raw`(${NUM})(?:\s?\(([\u05D0-\u05EAa-z])\))?`, 'gu'))) {
        clauses.push(`${more[1]}${more[2] ? `(${more[2]})` : ''}`);
      }
      for (const clause of clauses) {
        if (seen.has(clause) || Number(clause.split(/[.(]/)[0]) === 0) continue;
        seen.add(clause);
        out.push({ clause, offset: m.index });
      }
    }
  }
  for (const m of text.matchAll(MIRRORED_REF)) {
    if (MIRRORED_EXTERNAL.test(text.slice(Math.max(0, m.index - 30), m.index))) continue;
    if (seen.has(m[1]) || Number(m[1].split('.')[0]) === 0) continue;
    seen.add(m[1]);
    out.push({ clause: m[1], offset: m.index });
  }
  return out.sort((a, b) => a.offset - b.offset);
}

/**
 * Resolves references against the clauses of each document. Per-document clause maps are built on
 * first use: a search resolves the references of its top k only, so most documents never need one.
 */
/**
 * The referenced clause's own text within its chunk: from the line that opens with its number, up
 * to the next line opening a sibling or parent clause ("5.1 …" out of "5. … 5.1 … 5.2 …"). The
 * whole chunk when no line opens with the number.
 */
export function clauseExcerpt(text: string, clause: string): string {
  const lines = text.split('\n');
  const number = clause.replace(/\(.*$/u, '');
  const opens = (line: string, n: string) => new RegExp(`^\\s*${n.replace(/\./g, '\\.')}(?![\\d.])`, 'u').test(line);
  const start = lines.findIndex((line) => opens(line, number));
  if (start < 0) return text;
  const next = /^\s*\d+(?:\.\d+)*\.?\s/u;
  let end = start + 1;
  while (end < lines.length && !(next.test(lines[end]) && !lines[end].trim().startsWith(`${number}.`))) end++;
  return lines.slice(start, end).join('\n');
}

/** A line opening with a dotted number ("5.1 …"), the number captured: lineOpening's question asked of every number at once. */
const LINE_NUMBER = /(?:^|\n)\s*(\d+(?:\.\d+)+)(?![\d.])/gu;

export class CrossReferenceResolver {
  private readonly chunks: readonly Chunk[];
  private byDoc: Map<number, number[]> | null = null;
  private readonly clauseMaps = new Map<number, Map<string, number>>();
  /** Per document: each dotted number a line opens with → the first chunk holding that line. */
  private readonly lineNumbers = new Map<number, Map<string, number>>();
  /**
   * resolve()'s answers by chunk and limit. Every search resolves all the hits it returns, each a
   * scan of the chunk's text and of its document's, and the same passages come back question
   * after question; the chunks never change under one resolver (the retriever makes a new one).
   */
  private readonly resolved = new Map<string, ResolvedReference[]>();

  constructor(chunks: readonly Chunk[]) {
    this.chunks = chunks;
  }

  /** The chunk opening `clause` in `doc`: the exact clause, else its number without the letter, else the first chunk under it. */
  lookup(doc: number, clause: string): number | null {
    const map = this.clauseMap(doc);
    const exact = map.get(clause);
    if (exact !== undefined) return exact;
    const number = clause.replace(/\(.*$/, '');
    const bare = map.get(number);
    if (bare !== undefined) return bare;
    for (const [c, i] of map) if (c.startsWith(`${number}.`) || c.startsWith(`${number}(`)) return i;
    return this.lineOpening(doc, number);
  }

  /**
   * A sub-clause the chunker kept inside its parent's chunk ("5.1 לקבלת כתב התחייבות…" in the
   * chunk of clause 5): the chunk with a line that opens with that number.
   */
  private lineOpening(doc: number, number: string): number | null {
    // Only dotted numbers: a line opening with a bare "9" is as likely "9 ימים" as clause 9.
    if (!/^\d+(?:\.\d+)+$/u.test(number)) return null;
    return this.lineNumbersOf(doc).get(number) ?? null;
  }

  /**
   * Every number lineOpening could be asked about in `doc`, read in one pass over its chunks
   * (decoding each chunk's text once) instead of one pass per number asked.
   */
  private lineNumbersOf(doc: number): Map<string, number> {
    let map = this.lineNumbers.get(doc);
    if (map) return map;
    this.clauseMap(doc);
    map = new Map();
    for (const i of this.byDoc?.get(doc) ?? []) {
      for (const m of this.chunks[i].text.matchAll(LINE_NUMBER)) if (!map.has(m[1])) map.set(m[1], i);
    }
    this.lineNumbers.set(doc, map);
    return map;
  }

  /** Chunks that `chunkIndex`'s references point to in its own document, at most `limit`. */
  resolve(chunkIndex: number, limit = 3): ResolvedReference[] {
    const key = `${chunkIndex}:${limit}`;
    let out = this.resolved.get(key);
    if (!out) {
      out = this.resolveNow(chunkIndex, limit);
      this.resolved.set(key, out);
    }
    return out.map((r) => ({ ...r }));
  }

  private resolveNow(chunkIndex: number, limit: number): ResolvedReference[] {
    const chunk = this.chunks[chunkIndex];
    const out: ResolvedReference[] = [];
    const targets = new Set<number>();
    for (const ref of findCrossReferences(chunk.text)) {
      const target = this.lookup(chunk.doc, ref.clause);
      if (target === null || target === chunkIndex || targets.has(target)) continue;
      targets.add(target);
      out.push({ clause: ref.clause, chunk: target });
      if (out.length >= limit) break;
    }
    return out;
  }

  private clauseMap(doc: number): Map<string, number> {
    let map = this.clauseMaps.get(doc);
    if (map) return map;
    if (!this.byDoc) {
      this.byDoc = new Map();
      this.chunks.forEach((c, i) => {
        const list = this.byDoc!.get(c.doc);
        if (list) list.push(i);
        else this.byDoc!.set(c.doc, [i]);
      });
    }
    map = new Map();
    // Chunks are stored in reading order: the first chunk of a clause is where it starts.
    for (const i of this.byDoc.get(doc) ?? []) {
      const clause = this.chunks[i].clause;
      if (clause !== null && !map.has(clause)) map.set(clause, i);
    }
    this.clauseMaps.set(doc, map);
    return map;
  }
}
