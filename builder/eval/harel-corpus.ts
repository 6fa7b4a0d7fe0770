/**
 * Reads the shared Harel corpus (`{file, domain, kind, url, pages:[{page, text}]}` per JSON file)
 * and the development questions, for the evaluation scripts and the real-data tests.
 */
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

export interface CorpusDocument {
  file: string;
  domain: string;
  kind: string;
  url: string | null;
  pages: { page: number; text: string }[];
}

export interface DevQuestion {
  id: string;
  domain: string;
  question: string;
  answerable?: boolean;
}

/** `<repo>/../shared/data/harel`, where the shared data lives beside the checkout. */
export const HAREL_DATA_DIR = fileURLToPath(new URL('../../../shared/data/harel/', import.meta.url));

function jsonFiles(dir: string): string[] {
  const out: string[] = [];
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) out.push(...jsonFiles(path));
    else if (entry.name.endsWith('.json')) out.push(path);
  }
  return out.sort();
}

export function loadCorpus(dataDir = HAREL_DATA_DIR): CorpusDocument[] {
  return jsonFiles(join(dataDir, 'corpus')).map((path) => JSON.parse(readFileSync(path, 'utf8')) as CorpusDocument);
}

export function loadQuestions(name: 'dev-v2' | 'dev-v3', dataDir = HAREL_DATA_DIR): DevQuestion[] {
  return JSON.parse(readFileSync(join(dataDir, 'questions', `${name}.json`), 'utf8')) as DevQuestion[];
}

export function hasHarelData(dataDir = HAREL_DATA_DIR): boolean {
  return existsSync(join(dataDir, 'corpus')) && existsSync(join(dataDir, 'questions', 'dev-v2.json'));
}

/**
 * Router training input from a corpus document: the file name and the first line serve as the
 * title (scraped pages put "<title> | הראל…" first), short lines as headings.
 */
export function routerDoc(doc: CorpusDocument): { domain: string; title: string; headings: string[]; text: string } {
  const name = (doc.file.split('/').pop() ?? doc.file).replace(/\.(pdf|txt|html?|aspx|json)$/gi, '').replace(/[-_]+/g, ' ');
  const firstLine =
    (doc.pages[0]?.text ?? '')
      .split('\n')
      .map((l) => l.trim())
      .find(Boolean) ?? '';
  const title = `${name}\n${firstLine.split(' | ')[0].slice(0, 150)}`;
  const headings: string[] = [];
  for (const page of doc.pages) {
    for (const line of page.text.split('\n')) {
      const l = line.trim();
      if (l.length >= 3 && l.length <= 60 && l.split(/\s+/).length <= 8 && headings.length < 300) headings.push(l);
    }
  }
  return { domain: doc.domain, title, headings, text: doc.pages.map((p) => p.text).join('\n') };
}
