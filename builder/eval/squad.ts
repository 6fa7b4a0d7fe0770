/**
 * SQuAD 2.0 files (HeQ) as a corpus: each paragraph is one single-page document, keyed
 * `<article>/<paragraph>` so a question's target is known without storing the text twice.
 */
import type { ParsedDocument } from '../../widget/core/schema.ts';
import { detectLang } from '../../widget/core/tokenizer/index.ts';

export interface SquadFile {
  version?: string;
  data: {
    title: string;
    source?: string;
    paragraphs: {
      context: string;
      qas: { id: string; question: string; is_impossible?: boolean; answers: { text: string; answer_start: number }[] }[];
    }[];
  }[];
}

export function isSquad(json: unknown): json is SquadFile {
  if (typeof json !== 'object' || json === null || !Array.isArray((json as SquadFile).data)) return false;
  const first = (json as SquadFile).data[0];
  return first === undefined || Array.isArray(first.paragraphs);
}

export function squadParagraphFile(article: number, paragraph: number): string {
  return `squad/${article}/${paragraph}`;
}

export function squadDocuments(squad: SquadFile): ParsedDocument[] {
  const docs: ParsedDocument[] = [];
  squad.data.forEach((article, a) => {
    article.paragraphs.forEach((paragraph, p) => {
      docs.push({
        file: squadParagraphFile(a, p),
        url: null,
        domain: article.source ?? 'general',
        lang: detectLang(paragraph.context),
        title: article.title,
        kind: 'txt',
        pages: [{ page: 1, blocks: [{ type: 'text', text: paragraph.context }] }],
      });
    });
  });
  return docs;
}
