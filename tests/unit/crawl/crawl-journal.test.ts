import { appendFileSync, existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { CrawlJournal, STATE_DIR } from '../../../builder/crawl/crawl-journal.ts';
import type { JournalEvent, QueueItem, SavedRecord, UrlOutcome } from '../../../builder/crawl/crawl-record.ts';
import { isHarelError } from '../../../builder/errors.ts';

const SITE = 'https://www.example.co.il';
const START = [`${SITE}/`];

let outDir: string;

beforeEach(() => {
  outDir = mkdtempSync(join(tmpdir(), 'crawl-journal-'));
});

afterEach(() => {
  rmSync(outDir, { recursive: true, force: true });
});

function journalFile(): string {
  return join(outDir, STATE_DIR, 'journal.jsonl');
}

function readJournal(): JournalEvent[] {
  return readFileSync(journalFile(), 'utf8')
    .trim()
    .split('\n')
    .map((line) => JSON.parse(line) as JournalEvent);
}

function item(path: string, depth = 1): QueueItem {
  return { url: `${SITE}${path}`, depth, kind: 'page', referrer: `${SITE}/` };
}

function record(path: string, finalPath = path): SavedRecord {
  return {
    path: `www.example.co.il${finalPath}.html`,
    url: `${SITE}${path}`,
    finalUrl: `${SITE}${finalPath}`,
    domain: 'general',
    contentType: 'text/html',
    fetchedAt: '2024-01-01T00:00:00.000Z',
    checkedAt: '2024-01-01T00:00:00.000Z',
    etag: `"${finalPath}"`,
    lastModified: null,
    sha256: 'ab'.repeat(32),
    bytes: 100,
  };
}

const SAVED: UrlOutcome = { status: 'saved', change: 'new', record: record('/a'), links: [`${SITE}/b`, `${SITE}/c`] };
const UNCHANGED: UrlOutcome = { status: 'unchanged', record: record('/old', '/new'), links: [`${SITE}/a`] };
const FAILED: UrlOutcome = { status: 'failed', code: 'CRAWL_HTTP_STATUS', message: '404', httpStatus: 404, permanent: true };
const SKIPPED: UrlOutcome = { status: 'skipped', reason: 'disallowed by robots.txt' };

async function open(fresh = false): Promise<CrawlJournal> {
  return CrawlJournal.open(outDir, { fresh, startUrls: START });
}

async function openError(): Promise<unknown> {
  try {
    await open();
  } catch (error) {
    return error;
  }
  return undefined;
}

/** A crawl that queued and settled some URLs, then was killed (no `end`). */
async function interruptedCrawl(): Promise<void> {
  const journal = await open();
  journal.append({ t: 'queue', item: item('/a') });
  journal.append({ t: 'queue', item: item('/old') });
  journal.append({ t: 'sitemaps', at: '2024-01-01T00:00:01.000Z' });
  journal.append({ t: 'done', url: `${SITE}/a`, outcome: SAVED });
  journal.append({ t: 'queue', item: item('/missing', 2) });
  journal.append({ t: 'done', url: `${SITE}/missing`, outcome: FAILED });
}

describe('CrawlJournal.open', () => {
  it('starts a new crawl in an empty folder with a start event', async () => {
    const journal = await open();
    expect(journal.resumed).toBeNull();
    expect(journal.prior.records.size).toBe(0);
    expect(journal.prior.links.size).toBe(0);
    const events = readJournal();
    expect(events).toHaveLength(1);
    expect(events[0]).toMatchObject({ t: 'start', startUrls: START });
    expect(Number.isNaN(Date.parse((events[0] as { at: string }).at))).toBe(false);
  });

  it('resumes an unfinished crawl: queue in order, outcomes by URL, sitemaps done', async () => {
    await interruptedCrawl();
    const journal = await open();
    expect(journal.resumed).not.toBeNull();
    const resumed = journal.resumed!;
    expect(resumed.startUrls).toEqual(START);
    expect(resumed.queued).toEqual([item('/a'), item('/old'), item('/missing', 2)]);
    expect([...resumed.outcomes.keys()]).toEqual([`${SITE}/a`, `${SITE}/missing`]);
    expect(resumed.outcomes.get(`${SITE}/a`)).toEqual(SAVED);
    expect(resumed.outcomes.get(`${SITE}/missing`)).toEqual(FAILED);
    expect(resumed.sitemapsDone).toBe(true);
    expect(resumed.ended).toBe(false);
    // A resumed crawl does not start over: no second start event.
    expect(readJournal().filter((event) => event.t === 'start')).toHaveLength(1);
  });

  it('reports sitemaps as not done until the sitemaps event', async () => {
    const journal = await open();
    journal.append({ t: 'queue', item: item('/a') });
    expect((await open()).resumed?.sitemapsDone).toBe(false);
  });

  it('keeps appending to the resumed journal', async () => {
    await interruptedCrawl();
    const journal = await open();
    journal.append({ t: 'done', url: `${SITE}/old`, outcome: SKIPPED });
    const again = await open();
    expect(again.resumed?.outcomes.get(`${SITE}/old`)).toEqual(SKIPPED);
    expect(again.resumed?.queued).toHaveLength(3);
  });

  it('ignores a torn last line', async () => {
    await interruptedCrawl();
    appendFileSync(journalFile(), '{"t":"done","url":"https://www.example.co.il/old","outco');
    const journal = await open();
    expect(journal.resumed?.queued).toHaveLength(3);
    expect(journal.resumed?.outcomes.has(`${SITE}/old`)).toBe(false);
  });

  it('cuts a torn last line off, so the events appended after it stay readable', async () => {
    await interruptedCrawl();
    appendFileSync(journalFile(), '{"t":"done","url":"https://www.example.co.il/old","outco');
    const resumed = await open();
    resumed.append({ t: 'done', url: `${SITE}/old`, outcome: SKIPPED });
    resumed.append({ t: 'queue', item: item('/later', 2) });
    const again = await open();
    expect(again.resumed?.outcomes.get(`${SITE}/old`)).toEqual(SKIPPED);
    expect(again.resumed?.queued.map((queued) => queued.url)).toEqual([`${SITE}/a`, `${SITE}/old`, `${SITE}/missing`, `${SITE}/later`]);
  });

  it('throws CRAWL_STATE_INVALID for a corrupt line in the middle', async () => {
    await interruptedCrawl();
    const lines = readFileSync(journalFile(), 'utf8').split('\n');
    lines[2] = '{"t":"queue", this is not json';
    writeFileSync(journalFile(), lines.join('\n'));
    const error = await openError();
    expect(isHarelError(error, 'CRAWL_STATE_INVALID')).toBe(true);
    expect((error as Error).message).toContain('line 3');
    expect((error as Error).message).toContain('--fresh');
  });

  it('starts a new crawl after an ended one, exposing its saved and unchanged records and links', async () => {
    await interruptedCrawl();
    const second = await open();
    second.append({ t: 'done', url: `${SITE}/old`, outcome: UNCHANGED });
    second.append({ t: 'done', url: `${SITE}/x`, outcome: SKIPPED });
    second.append({ t: 'end', at: '2024-01-01T00:01:00.000Z', reason: 'finished' });

    const next = await open();
    expect(next.resumed).toBeNull();
    const { records, links } = next.prior;
    expect(records.get(`${SITE}/a`)).toEqual(record('/a'));
    expect(records.get(`${SITE}/old`)).toEqual(record('/old', '/new'));
    expect(records.get(`${SITE}/new`)).toEqual(record('/old', '/new'));
    expect(records.has(`${SITE}/missing`)).toBe(false);
    expect(records.has(`${SITE}/x`)).toBe(false);
    expect(records.size).toBe(3);
    expect(links.get(`${SITE}/a`)).toEqual([`${SITE}/b`, `${SITE}/c`]);
    expect(links.get(`${SITE}/new`)).toEqual([`${SITE}/a`]);
    expect(links.size).toBe(2);
    // The new crawl's journal holds only its own start; the old one became previous.jsonl.
    expect(readJournal()).toHaveLength(1);
    expect(readJournal()[0].t).toBe('start');
    expect(existsSync(join(outDir, STATE_DIR, 'previous.jsonl'))).toBe(true);
  });

  it('keeps the finished crawl as prior while the next one is resumed', async () => {
    const first = await open();
    first.append({ t: 'done', url: `${SITE}/a`, outcome: SAVED });
    first.append({ t: 'end', at: '2024-01-01T00:01:00.000Z', reason: 'limit' });
    const second = await open();
    second.append({ t: 'queue', item: item('/b') });
    const resumed = await open();
    expect(resumed.resumed?.queued).toEqual([item('/b')]);
    expect(resumed.resumed?.outcomes.size).toBe(0);
    expect(resumed.prior.records.get(`${SITE}/a`)).toEqual(record('/a'));
  });

  it('forgets the unfinished crawl, validators and links when fresh, but not the files saved', async () => {
    const first = await open();
    first.append({ t: 'done', url: `${SITE}/a`, outcome: SAVED });
    first.append({ t: 'end', at: '2024-01-01T00:01:00.000Z', reason: 'finished' });
    const second = await open();
    second.append({ t: 'queue', item: item('/b') });

    const fresh = await open(true);
    expect(fresh.resumed).toBeNull();
    // Still known, so that a fresh crawl no longer reaching /a deletes its file; but nothing to
    // send If-None-Match / If-Modified-Since with, and no links to follow without fetching.
    expect(fresh.prior.records.get(`${SITE}/a`)).toEqual({ ...record('/a'), etag: null, lastModified: null });
    expect(fresh.prior.links.get(`${SITE}/a`)).toEqual([]);
    expect(readJournal()).toHaveLength(1);
    expect(existsSync(join(outDir, STATE_DIR, 'previous.jsonl'))).toBe(true);
  });

  it('recovers from a corrupt journal when fresh', async () => {
    await interruptedCrawl();
    writeFileSync(journalFile(), 'garbage\n{"t":"queue"}\nmore garbage\n');
    expect(isHarelError(await openError(), 'CRAWL_STATE_INVALID')).toBe(true);
    const fresh = await open(true);
    expect(fresh.resumed).toBeNull();
  });
});
