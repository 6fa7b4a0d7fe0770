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
