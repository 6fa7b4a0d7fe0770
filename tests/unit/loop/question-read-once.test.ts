/**
 * The question is read once (text/question-reading.ts): every reader of the text layer that reads a
 * question is wrapped, and one answer through the real loop — the extractive engine, the GGUF gate
 * in front of a model, the web-llm prompt — calls each at most once on the question as typed and
 * once on the question as searched.
 */
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import type { ChatTurn } from '../../../widget/answer/types.ts';
import type { AnswerEngine, GenerateRequest } from '../../../widget/engines/engine.ts';
import { ExtractiveEngine } from '../../../widget/engines/extractive.ts';
import { GatedEngine, OPEN_GATE } from '../../../widget/engines/gguf/answer-gate.ts';
import { buildAnswerPrompt } from '../../../widget/engines/webllm/prompt.ts';
import { runAnswerLoop } from '../../../widget/loop/machine.ts';
import type { LocalSearchService } from '../../../widget/search/local-search-service.ts';
import { buildDemoIndex } from './helpers.ts';

/** Calls of each wrapped reader, by the text it was given; `wrapped` puts the counter around one export. */
const { calls, wrapped } = vi.hoisted(() => {
  const calls = new Map<string, string[]>();
  const wrapped = <M extends Record<string, unknown>>(mod: M, name: keyof M & string): M => {
    const reader = mod[name] as (...args: unknown[]) => unknown;
    const counted = (...args: unknown[]) => {
      if (typeof args[0] === 'string') calls.set(name, [...(calls.get(name) ?? []), args[0]]);
      return reader(...args);
    };
    return { ...mod, [name]: counted };
  };
  return { calls, wrapped };
});

vi.mock('../../../widget/text/question-type.ts', async (original) => wrapped(await original(), 'detectQuestionType'));
vi.mock('../../../widget/text/small-talk.ts', async (original) => wrapped(await original(), 'smallTalkKind'));
vi.mock('../../../widget/text/facts.ts', async (original) => wrapped(await original(), 'factLabels'));
vi.mock('../../../widget/text/terms.ts', async (original) => wrapped(await original(), 'contentWords'));
vi.mock('../../../widget/text/insurance-words.ts', async (original) => wrapped(await original(), 'mentionsInsurance'));
vi.mock('../../../widget/text/follow-up-subject.ts', async (original) => wrapped(await original(), 'namedInsurance'));

let search: LocalSearchService;
let cleanup: () => Promise<void> = async () => {};
beforeAll(async () => {
  ({ search, cleanup } = await buildDemoIndex());
}, 120_000);
afterAll(() => cleanup());

/** How often each reader read each of `texts`: what the loop may read once each. */
function readsOf(texts: readonly string[]): Record<string, number> {
  const out: Record<string, number> = {};
  for (const [reader, seen] of calls) {
    for (const text of new Set(texts)) {
      const n = seen.filter((t) => t === text).length;
      if (n > 0) out[`${reader}(${text})`] = n;
    }
  }
  return out;
}

async function ask(question: string, engine: AnswerEngine, history: ChatTurn[] = []) {
  calls.clear();
  const answer = await runAnswerLoop({ question, history }, { search, engine });
  const reads = readsOf([question, answer.searchedQuery]);
  return { answer, reads };
}

/** A model engine that writes from the prompt the web-llm and GGUF engines send, citing the first source. */
const promptEngine = (prompts: string[]): AnswerEngine => ({
  mode: 'llm',
  async generate(request: GenerateRequest) {
    const prompt = buildAnswerPrompt(request, { contextWindow: 4096 });
    prompts.push(prompt.messages.map((m) => m.content).join('\n'));
    return { text: `${request.passages[0]?.text.split('.')[0] ?? ''}. [1]` };
  },
});

const everyReadOnce = (reads: Record<string, number>) => Object.entries(reads).filter(([, n]) => n > 1);

describe('the question is read once', () => {
  it('on the extractive path: each reader reads the typed and the searched question at most once', async () => {
    const { answer, reads } = await ask('מה ההשתתפות העצמית בביטוח דירה?', new ExtractiveEngine());
    expect(answer.refused).toBe(false);
    // The readers did read it (the wrapping works), and each once.
    expect(Object.keys(reads)).toEqual(expect.arrayContaining(['detectQuestionType(מה ההשתתפות העצמית בביטוח דירה?)', 'smallTalkKind(מה ההשתתפות העצמית בביטוח דירה?)']));
    expect(everyReadOnce(reads)).toEqual([]);
    expect(answer.reading?.typed.type).toBe('amount');
  });

  it('for a follow-up: the typed question and the rewritten one each once', async () => {
    const first = await runAnswerLoop({ question: 'מה ההשתתפות העצמית בביטוח דירה?', history: [] }, { search, engine: new ExtractiveEngine() });
    const history: ChatTurn[] = [
      { role: 'user', text: 'מה ההשתתפות העצמית בביטוח דירה?', at: 0 },
      { role: 'assistant', text: first.text, answer: first, at: 1 },
    ];
    const { answer, reads } = await ask('ומה לגבי רכב?', new ExtractiveEngine(), history);
    expect(answer.searchedQuery).not.toBe('ומה לגבי רכב?');
    expect(answer.reading?.searched.text).toBe(answer.searchedQuery);
    expect(everyReadOnce(reads)).toEqual([]);
  });

  it('when it refuses (with the closest clauses, after the retry) or answers small talk', async () => {
    // Not answerable; nothing kept even after the broader retry; a greeting.
    for (const question of ['יש לכם ביטוח לחיות מחמד שמכסה טיפול וטרינרי לכלב שלי?', 'אם החתונה שלי בחו"ל מתבטלת, האם הביטוח מחזיר את הכסף לאולם ולקייטרינג?', 'שלום']) {
      const { answer, reads } = await ask(question, new ExtractiveEngine());
      expect(answer.refused, question).toBe(true);
      expect(everyReadOnce(reads), question).toEqual([]);
    }
  });

  it('through the GGUF gate and the web-llm prompt: the gate and the prompt read the reading, not the text', async () => {
    const prompts: string[] = [];
    const gated = new GatedEngine(promptEngine(prompts), new ExtractiveEngine(), OPEN_GATE);
    const { answer, reads } = await ask('תוך כמה זמן צריך לדווח על נזק בדירה?', gated);
    expect(prompts).toHaveLength(1);
    // The prompt's hint for a period came from the reading.
    expect(prompts[0]).toMatch(/asks for a period or a deadline/);
    expect(answer.reading?.typed.type).toBe('duration');
    expect(everyReadOnce(reads)).toEqual([]);
  });
});
