import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { extractCandidates, mineLexicon } from '../../../builder/lexicon/mine-lexicon.ts';
import { parseMinedLexicon } from '../../../widget/core/retrieval/mined-lexicon.ts';

const pairs = (text: string) => extractCandidates(text).map((c) => `${c.kind}: ${c.phrases.join(' = ')}`);

describe('extractCandidates', () => {
  it('finds English terms beside Hebrew ones at a clause boundary, mirrored parentheses too', () => {
    expect(pairs('1.4.14 פגיעה מוחית מתאונה (BRAIN DAMAGE BY ACCIDENT)')).toEqual(['translation: פגיעה מוחית מתאונה = BRAIN DAMAGE BY ACCIDENT']);
    expect(pairs('- 1.3.1 סרטן )CANCER( נוכחות גידול')).toEqual(['translation: סרטן = CANCER']);
    expect(pairs('הכיסוי: צד שלישי (Third Party)')).toEqual(['translation: צד שלישי = Third Party']);
  });

  it('checks an acronym against the initials of the words before it', () => {
    expect(pairs('call International Medical Assistance (IMA) now')).toContain('acronym: International Medical Assistance = IMA');
    expect(pairs('לפי חוק פיצויים לנפגעי תאונות דרכים (פלת"ד)')).toContain('acronym: פיצויים לנפגעי תאונות דרכים = פלת"ד');
    expect(pairs('the policy schedule (IMA)')).toEqual([]);
  });

  it('takes short definitions, not the first words of long ones', () => {
    expect(pairs('"טוטאל לוס" פירושו: אובדן גמור.')).toEqual(['definition: טוטאל לוס = אובדן גמור']);
    expect(pairs('"אבדן מוחלט" פירושו: מקרה שבו, הנזק עולה על 50% משווי הרכב')).toEqual([]);
  });

  it('leaves out phrases with no clear start and translations of unequal length (near misses)', () => {
    expect(pairs('החודרת דרך רקמות הגוף (Invasive Procedure)')).toEqual([]);
    expect(pairs('1.2 טיפולי כלילי צינתור (CORONARY)')).toEqual([]);
  });
});

describe('mineLexicon', () => {
  const chunkTexts = ['סרטן', 'רכב', 'רכב', 'רכב', 'CANCER diagnosis', 'סעיף'];

  it('keeps checked pairs, drops definitions one document vouches for, and skips what the curated lexicon has', () => {
    const lexicon = mineLexicon(
      [
        { doc: 0, text: '1. סרטן (CANCER)' },
        { doc: 0, text: '"מכונית" פירושו: רכב פרטי.' },
        { doc: 1, text: '2. צד שלישי (third party)' },
      ],
      chunkTexts,
      { maxChunkShare: 0.6 },
    );
    expect(lexicon.entries).toEqual([{ phrases: ['CANCER', 'סרטן'], kind: 'translation', docs: 1 }]);
    expect(parseMinedLexicon(JSON.parse(JSON.stringify(lexicon)))).toEqual(lexicon);
  });

  it('drops a pair whose phrase is in too many chunks to be a useful trigger', () => {
    const lexicon = mineLexicon([{ doc: 0, text: '1. רכב (vehicle unit)' }], chunkTexts, { maxChunkShare: 0.3 });
    expect(lexicon.entries).toEqual([]);
  });

  it('caps the count', () => {
    const pages = ['1. סרטן (CANCER)', '2. שבץ (STROKE)', '3. עיוורון (BLINDNESS)'].map((text, doc) => ({ doc, text }));
    expect(mineLexicon(pages, chunkTexts, { maxEntries: 2, maxChunkShare: 1 }).entries).toHaveLength(2);
  });
});

const CORPUS = fileURLToPath(new URL('../../../../shared/data/harel/corpus/', import.meta.url));
const present = existsSync(CORPUS);
if (!present) console.warn(`lexicon mining real-corpus tests skipped: ${CORPUS} is absent (the shared data sits beside the repo).`);

describe.skipIf(!present)('mining the real corpus', () => {
  it('finds the diseases policy translations and acronyms, and stays small', () => {
    const list = (d: string): string[] => readdirSync(d, { withFileTypes: true }).flatMap((e) => (e.isDirectory() ? list(join(d, e.name)) : e.name.endsWith('.json') ? [join(d, e.name)] : []));
    const pages: { doc: number; text: string }[] = [];
    const chunkTexts: string[] = [];
    list(CORPUS).forEach((file, doc) => {
      for (const p of (JSON.parse(readFileSync(file, 'utf8')) as { pages: { text: string }[] }).pages) {
        pages.push({ doc, text: p.text });
        chunkTexts.push(p.text);
      }
    });
    const lexicon = mineLexicon(pages, chunkTexts);
    const has = (a: string, b: string) => lexicon.entries.some((e) => e.phrases.includes(a) && e.phrases.includes(b));
    expect(has('CANCER', 'סרטן')).toBe(true);
    expect(has('HIV', 'Human Immunodeficiency Virus')).toBe(true);
    expect(has('ניוון שרירים', 'MUSCULAR DYSTROPHY')).toBe(true);
    expect(lexicon.entries.length).toBeLessThan(60);
    // Nothing names a law's year or a bare statute as a synonym.
    expect(lexicon.entries.flatMap((e) => e.phrases).filter((p) => /^ה?ת[א-ת]{0,3}"[א-ת]$|^חוק /.test(p))).toEqual([]);
  }, 60_000);
});
