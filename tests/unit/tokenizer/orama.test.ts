import { describe, expect, it } from 'vitest';
import { create, insert, search } from '@orama/orama';
import { createOramaTokenizer } from '../../../builder/eval/orama-tokenizer.ts';
import { tokenize } from '../../../widget/core/tokenizer/index.ts';

const DOCS = ['הכיסוי בביטוח הרכב כולל נזק לרכב של צד שלישי', 'ביטוח נסיעות לחו"ל מכסה הוצאות רפואיות', 'רכבת ישראל', 'The policy covers dental treatments'];

function texts(result: { hits: { document: { text: string } }[] }): string[] {
  return result.hits.map((h) => h.document.text);
}

describe('Orama adapter', () => {
  it("Orama's default tokenizer finds nothing in Hebrew", () => {
    const db = create({ schema: { text: 'string' } as const });
    expect(db.tokenizer.tokenize('ביטוח נסיעות')).toEqual([]);
    for (const text of DOCS) insert(db, { text });
    expect(texts(search(db, { term: 'ביטוח' }) as never)).toEqual([]);
  });

  it('indexes and finds Hebrew through prefixes, acronyms and English stems', () => {
    const db = create({ schema: { text: 'string' } as const, components: { tokenizer: createOramaTokenizer() } });
    for (const text of DOCS) insert(db, { text });
    expect(texts(search(db, { term: 'ביטוח' }) as never).sort()).toEqual([DOCS[0], DOCS[1]].sort());
    expect(texts(search(db, { term: 'חו"ל' }) as never)).toEqual([DOCS[1]]);
    expect(texts(search(db, { term: 'והנסיעות' }) as never)).toEqual([DOCS[1]]);
    expect(texts(search(db, { term: 'covered dental treatment' }) as never)).toEqual([DOCS[3]]);
  });

  it('passes documents with a property and queries without one', () => {
    const seen: { prop: string | undefined }[] = [];
    const inner = createOramaTokenizer();
    const spy = {
      ...inner,
      tokenize: (raw: string, lang?: string, prop?: string) => {
        seen.push({ prop });
        return inner.tokenize(raw, lang, prop);
      },
    };
    const db = create({ schema: { text: 'string' } as const, components: { tokenizer: spy } });
    insert(db, { text: 'ביטוח ביטוח רכב' });
    search(db, { term: 'ביטוח ביטוח' });
    expect(seen).toEqual([{ prop: 'text' }, { prop: undefined }]);
    expect(inner.tokenize('ביטוח ביטוח', undefined, 'text')).toEqual(tokenize('ביטוח ביטוח'));
    expect(inner.tokenize('ביטוח ביטוח')).toEqual(tokenize('ביטוח ביטוח', { forQuery: true }));
  });

  it('matches by term prefix by default, by whole term with wholeTerms', () => {
    const loose = create({ schema: { text: 'string' } as const, components: { tokenizer: createOramaTokenizer() } });
    const strict = create({ schema: { text: 'string' } as const, components: { tokenizer: createOramaTokenizer({ wholeTerms: true }) } });
    for (const text of DOCS) {
      insert(loose, { text });
      insert(strict, { text });
    }
    expect(texts(search(loose, { term: 'רכב' }) as never)).toContain(DOCS[2]);
    expect(texts(search(strict, { term: 'רכב' }) as never)).toEqual([DOCS[0]]);
  });
});
