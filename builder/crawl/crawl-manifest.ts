/**
 * `manifest.json` in the crawl's output: every saved file mapped to where it came from, in the
 * shape `harel-builder build` reads, so `crawl` then `build` needs no glue. The crawl's own
 * bookkeeping (failures, redirects) rides along under keys the builder ignores.
 */
import { rename, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { MANIFEST_NAME } from '../ingest/manifest.ts';
import { BUILDER_VERSION } from '../version.ts';
import type { SavedRecord } from './crawl-record.ts';

export interface CrawlManifest {
  generator: string;
  startUrls: string[];
  updatedAt: string;
  /** False while a crawl is unfinished (interrupted): run `crawl` again to complete it. */
  complete: boolean;
  files: Record<string, Omit<SavedRecord, 'path'>>;
  redirects: Record<string, string>;
  failures: { url: string; code: string; message: string; httpStatus?: number }[];
}

export async function writeCrawlManifest(outDir: string, content: Omit<CrawlManifest, 'generator' | 'updatedAt' | 'files'> & { records: Iterable<SavedRecord> }): Promise<void> {
  const files: CrawlManifest['files'] = {};
  const sorted = [...content.records].sort((a, b) => (a.path < b.path ? -1 : a.path > b.path ? 1 : 0));
  for (const { path, ...entry } of sorted) files[path] = entry;
  const manifest: CrawlManifest = {
    generator: `harel-builder crawl ${BUILDER_VERSION}`,
    startUrls: content.startUrls,
    updatedAt: new Date().toISOString(),
    complete: content.complete,
    files,
    redirects: content.redirects,
    failures: content.failures,
  };
  const target = join(outDir, MANIFEST_NAME);
  const temporary = `${target}.${process.pid}.tmp`;
  await writeFile(temporary, `${JSON.stringify(manifest, null, 2)}\n`);
  await rename(temporary, target);
}
