/**
 * Question files the evaluation accepts, read into one shape: the Harel development sets
 * (`ground_truth_sources` of `any_of` file/page pairs) and SQuAD 2.0 files such as HeQ (each
 * question's own paragraph is its target; see squad.ts for how paragraphs become documents).
 */
import { readFile } from 'node:fs/promises';
import { basename } from 'node:path';
import { createError } from '../errors.ts';
import { isSquad, squadParagraphFile, type SquadFile } from './squad.ts';

export interface SourceRef {
  file: string;
  /** null: any page of the file establishes the fact (web pages). */
  page: number | null;
}

export interface EvalQuestion {
  id: string;
  question: string;
  domain: string | null;
  difficulty: string | null;
  kind: string | null;
  answerable: boolean;
  /** One entry per fact the answer needs; any ref of an entry establishes that fact. */
  facts: SourceRef[][];
  answers: string[];
}

interface HarelQuestion {
  id: string;
  question: string;
  domain?: string;
  difficulty?: string;
  kind?: string;
  answerable?: boolean;
  ground_truth_answer?: string;
  ground_truth_sources?: { any_of: { file: string; page: number | null }[] }[];
}

function fromHarel(items: HarelQuestion[], file: string): EvalQuestion[] {
  return items.map((q, i) => {
    if (typeof q.question !== 'string') throw createError('QUESTIONS_INVALID', file, `entry ${i} has no question`);
    const facts = (q.ground_truth_sources ?? []).map((s) => s.any_of.map((r) => ({ file: r.file, page: r.page ?? null })));
    return {
      id: q.id ?? `q${i + 1}`,
      question: q.question,
      domain: q.domain ?? null,
      difficulty: q.difficulty ?? null,
      kind: q.kind ?? null,
      answerable: q.answerable ?? facts.length > 0,
      facts,
      answers: q.ground_truth_answer ? [q.ground_truth_answer] : [],
    };
  });
}

function fromSquad(squad: SquadFile): EvalQuestion[] {
  const out: EvalQuestion[] = [];
  squad.data.forEach((article, a) => {
    article.paragraphs.forEach((paragraph, p) => {
      for (const qa of paragraph.qas) {
        const answerable = !qa.is_impossible && qa.answers.length > 0;
        out.push({
          id: qa.id,
          question: qa.question,
          domain: article.source ?? null,
          difficulty: null,
          kind: answerable ? 'squad' : 'unanswerable',
          answerable,
          facts: answerable ? [[{ file: squadParagraphFile(a, p), page: null }]] : [],
          answers: qa.answers.map((x) => x.text),
        });
      }
    });
  });
  return out;
}

export function parseQuestions(json: unknown, file: string): EvalQuestion[] {
  if (Array.isArray(json)) return fromHarel(json as HarelQuestion[], file);
  if (isSquad(json)) return fromSquad(json);
  throw createError('QUESTIONS_INVALID', file, 'expected an array of questions or a SQuAD {data:[…]} object');
}

export async function loadQuestions(path: string): Promise<EvalQuestion[]> {
  let json: unknown;
  try {
    json = JSON.parse(await readFile(path, 'utf8'));
  } catch (error) {
    throw createError('QUESTIONS_INVALID', basename(path), error instanceof Error ? error.message : String(error));
  }
  return parseQuestions(json, basename(path));
}
