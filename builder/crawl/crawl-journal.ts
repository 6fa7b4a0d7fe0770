/**
 * The crawl's memory between runs, in `<out>/.crawl/`: an append-only journal of what was
 * queued and what came of it. Appending one line per event means a crawl killed at any moment
 * loses at most the line being written, and a torn last line is simply ignored on resume.
 *
 * `journal.jsonl` is the current crawl; when it has ended, the next run moves it to
 * `previous.jsonl`, whose records give the conditional headers (ETag, Last-Modified) and the
 * saved files that an incremental re-crawl keeps.
 */
import { appendFileSync, mkdirSync } from 'node:fs';
import { readFile, rename, rm, truncate, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { createError } from '../errors.ts';
import type { JournalEvent, QueueItem, SavedRecord, UrlOutcome } from './crawl-record.ts';

export const STATE_DIR = '.crawl';
const CURRENT = 'journal.jsonl';
const PREVIOUS = 'previous.jsonl';

/** A journal read back: the queue in order and the outcome of every URL that has one. */
export interface JournalState {
  startUrls: string[];
  queued: QueueItem[];
  outcomes: Map<string, UrlOutcome>;
  sitemapsDone: boolean;
  ended: boolean;
}

/** A previous crawl's saved files and links, by URL and by final URL. */
export interface PriorCrawl {
  records: Map<string, SavedRecord>;
  links: Map<string, string[]>;
}

async function readEvents(file: string): Promise<JournalEvent[] | null> {
  const text = await readFile(file, 'utf8').catch(() => null);
  if (text === null) return null;
  const events: JournalEvent[] = [];
  const lines = text.split('\n');
  for (let i = 0; i < lines.length; i++) {
    if (!lines[i].trim()) continue;
    try {
      events.push(JSON.parse(lines[i]) as JournalEvent);
    } catch (error) {
      // Only the last line can be torn by a kill; a bad line earlier means the file was edited.
      if (i >= lines.length - 2) break;
      throw createError('CRAWL_STATE_INVALID', file, `line ${i + 1}: ${error instanceof Error ? error.message : String(error)}`);
    }
  }
  return events;
}

function replay(events: JournalEvent[]): JournalState {
  const state: JournalState = { startUrls: [], queued: [], outcomes: new Map(), sitemapsDone: false, ended: false };
  for (const event of events) {
    if (event.t === 'start') state.startUrls = event.startUrls;
    else if (event.t === 'sitemaps') state.sitemapsDone = true;
    else if (event.t === 'queue') state.queued.push(event.item);
    else if (event.t === 'done') state.outcomes.set(event.url, event.outcome);
    else if (event.t === 'end') state.ended = true;
  }
  return state;
}

function priorFrom(state: JournalState | null): PriorCrawl {
  const prior: PriorCrawl = { records: new Map(), links: new Map() };
  for (const outcome of state?.outcomes.values() ?? []) {
    if (outcome.status !== 'saved' && outcome.status !== 'unchanged') continue;
    prior.records.set(outcome.record.url, outcome.record);
    prior.records.set(outcome.record.finalUrl, outcome.record);
    prior.links.set(outcome.record.finalUrl, outcome.links);
  }
  return prior;
}

/**
 * `--fresh`: forget the unfinished crawl and every ETag, Last-Modified and link learnt, but not
 * which files earlier crawls saved. A fresh crawl that no longer reaches one of them must still
 * delete it, or `build` would index a file that no manifest entry traces to a URL.
 */
async function forgetValidators(current: string, previous: string): Promise<void> {
  const saved = new Map<string, SavedRecord>();
  for (const file of [previous, current]) {
    // An unreadable journal is what --fresh is for: what it saved cannot be known, so skip it.
    const events = await readEvents(file).catch(() => null);
    for (const outcome of events ? replay(events).outcomes.values() : []) {
      if (outcome.status === 'saved' || outcome.status === 'unchanged') saved.set(outcome.record.path, outcome.record);
    }
  }
  const at = new Date().toISOString();
  const lines: JournalEvent[] = [{ t: 'start', at, startUrls: [] }];
  for (const record of saved.values()) {
    lines.push({ t: 'done', url: record.url, outcome: { status: 'unchanged', record: { ...record, etag: null, lastModified: null }, links: [] } });
  }
  lines.push({ t: 'end', at, reason: 'finished' });
  await writeFile(previous, lines.map((event) => `${JSON.stringify(event)}\n`).join(''));
  await rm(current, { force: true });
}

export class CrawlJournal {
  readonly #file: string;
  /** The unfinished crawl this run continues, or null for a new crawl. */
  readonly resumed: JournalState | null;
  readonly prior: PriorCrawl;

  private constructor(file: string, resumed: JournalState | null, prior: PriorCrawl) {
    this.#file = file;
    this.resumed = resumed;
    this.prior = prior;
  }

  /**
   * Opens the state in `outDir`: continues an unfinished crawl, or starts a new one on top of the
   * last finished crawl; `fresh` forgets both but for the files they saved.
   */
  static async open(outDir: string, options: { fresh: boolean; startUrls: string[] }): Promise<CrawlJournal> {
    const dir = join(outDir, STATE_DIR);
    const current = join(dir, CURRENT);
    const previous = join(dir, PREVIOUS);
    mkdirSync(dir, { recursive: true });
    if (options.fresh) await forgetValidators(current, previous);
    const events = await readEvents(current);
    const state = events ? replay(events) : null;
    if (state && !state.ended) {
      // Cut a torn last line off before appending, or the next event would be glued onto it and
      // the journal unreadable from then on.
      const bytes = await readFile(current);
      if (bytes.length > 0 && bytes[bytes.length - 1] !== 0x0a) await truncate(current, bytes.lastIndexOf(0x0a) + 1);
      const previousEvents = await readEvents(previous);
      return new CrawlJournal(current, state, priorFrom(previousEvents ? replay(previousEvents) : null));
    }
    if (state) await rename(current, previous);
    const previousEvents = state ? events : await readEvents(previous);
    const journal = new CrawlJournal(current, null, priorFrom(previousEvents ? replay(previousEvents) : null));
    journal.append({ t: 'start', at: new Date().toISOString(), startUrls: options.startUrls });
    return journal;
  }

  append(event: JournalEvent): void {
    appendFileSync(this.#file, `${JSON.stringify(event)}\n`);
  }
}
