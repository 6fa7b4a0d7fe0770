/**
 * The loop on real Harel documents: the travel domain of the shared corpus (built here, BM25 only)
 * and its dev-v2 questions. Skips when ../shared/data is absent.
 */
import { existsSync, readFileSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildIndex } from '../../../builder/pipeline/build-index.ts';
import { readIndexFolder } from '../../../builder/read-index-folder.ts';
import { ExtractiveEngine } from '../../../widget/engines/extractive.ts';
import { runAnswerLoop } from '../../../widget/loop/machine.ts';
import { oneLine } from '../../../widget/text/sentences.ts';
import { LocalSearchService } from '../../../widget/search/local-search-service.ts';

const DATA = fileURLToPath(new URL('../../../../shared/data/harel/', import.meta.url));
const present = existsSync(join(DATA, 'corpus/travel')) && existsSync(join(DATA, 'questions/dev-v2.json'));
if (!present) console.warn(`loop real-corpus tests skipped: ${DATA} is absent (the shared data sits beside the repo).`);

interface DevQuestion {
  id: string;
  domain: string;
  answerable: boolean;
  question: string;
}

describe.skipIf(!present)('answer loop on the Harel travel documents (dev-v2)', () => {
  let dir = '';
  let search: LocalSearchService;
  let texts: Map<string, string>;
  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'harel-loop-real-'));
    await buildIndex({ inputs: [join(DATA, 'corpus/travel')], outDir: join(dir, 'index'), embed: false, embedder: 'none', allowRemote: false, dtype: 'q8', maxTokens: 350, overlap: 0.15 });
    const index = await readIndexFolder(join(dir, 'index'));
    search = LocalSearchService.fromIndex(index);
    texts = new Map();
    for (const c of index.chunks) {
      const key = `${index.documents[c.doc].file}\u0000${c.page}`;
      texts.set(key, `${texts.get(key) ?? ''} ${c.text}`);
    }
  });
  afterAll(() => (dir ? rm(dir, { recursive: true, force: true }) : undefined));

  it('answers most travel questions with verbatim quotes from travel documents', async () => {
    const questions = (JSON.parse(readFileSync(join(DATA, 'questions/dev-v2.json'), 'utf8')) as DevQuestion[]).filter((q) => q.domain === 'travel' && q.answerable).slice(0, 8);
    const engine = new ExtractiveEngine();
    let answered = 0;
    for (const q of questions) {
      const a = await runAnswerLoop({ question: q.question, history: [] }, { search, engine });
      expect(a.lang).toBe('he');
      if (a.refused) continue;
      answered++;
      expect(a.refusal).toBeNull();
      expect(a.citations.length).toBeGreaterThan(0);
      for (const c of a.citations) {
        expect(c.file.startsWith('travel/')).toBe(true);
        // The extractive quote is a sentence of the passage (its section, for a widened context).
        const page = oneLine(texts.get(`${c.file}\u0000${c.page}`) ?? '');
        for (const part of c.quote.split(' … ')) expect(page).toContain(part);
      }
    }
    // Calibrated on the whole corpus: about 87 % of answerable questions are answered (GRADE_MIN_RELEVANCE).
    expect(answered).toBeGreaterThanOrEqual(5);
  });

  it('refuses off-topic questions with the contact channels the site set', async () => {
    const engine = new ExtractiveEngine();
    // A Harel page would set Harel's channels; the widget itself names no insurer.
    const contacts = { name: { he: 'הראל', en: 'Harel' }, phone: '*2735', website: 'https://www.harel-group.co.il' };
    for (const question of ['מי ניצח במשחק אתמול?', 'how do I bake sourdough bread?']) {
      const a = await runAnswerLoop({ question, history: [] }, { search, engine, contacts });
      expect(a.refusal).toBe('off-topic');
      expect(a.text).toContain('*2735');
    }
  });
});
