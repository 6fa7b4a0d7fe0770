/**
 * The reader's prompt in TypeScript against the prompts training/reader/prompt_format.py wrote
 * with the Gemma tokenizer the model was trained with (tests/fixtures/reader/prompt-cases.json,
 * from training/reader/widget_fixture.py): normalization, layout, budget and the no-answer rule
 * with a stand-in token counter, then the whole prompt and its token ids with the GGUF's own
 * tokenizer (spm-tokenizer.ts) where models/ holds Gemma (`npx harel-builder models fetch`).
 */
import { existsSync, openSync, readFileSync, readSync, closeSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { readGgufMetadata } from '../../../widget/core/format/gguf-file.ts';
import { isHarelError } from '../../../widget/core/errors.ts';
import { buildReaderPrompt, isNoAnswer, NO_ANSWER, normalizeReaderText, PASSAGE_TOKENS, PROMPT_TOKENS, QUESTION_TOKENS, readerPromptText } from '../../../widget/engines/gguf/reader-prompt.ts';
import { SpmTokenizer } from '../../../widget/engines/gguf/spm-tokenizer.ts';

interface Case {
  id: string;
  question: string;
  passage: string;
  expected: { question: string; passage: string; questionTokens: number; passageBudget: number; passageTokens: number; prompt: string; promptTokens: number; promptIds: number[] };
}
const FIXTURE = JSON.parse(readFileSync(new URL('../../fixtures/reader/prompt-cases.json', import.meta.url), 'utf8')) as {
  noAnswer: string;
  noAnswerIds: number[];
  fixedTokens: number;
  cases: Case[];
};
const GEMMA = new URL('../../../models/gguf/gemma-3-270m-q4_k_m.gguf', import.meta.url);

/** A stand-in counter: a control token or a newline is one token, other text one per 3 characters of each word. */
function fakeCount(text: string): number {
  let n = 0;
  for (const piece of text.split(/(<start_of_turn>|<end_of_turn>|\n)/)) {
    if (piece === '<start_of_turn>' || piece === '<end_of_turn>' || piece === '\n') n++;
    else for (const word of piece.split(' ').filter(Boolean)) n += Math.ceil(word.length / 3);
  }
  return n;
}

describe('reader prompt: normalization and layout', () => {
  it('normalizes as hebrew_text.normalize_space: entities, NFC, bidi controls, whitespace runs', () => {
    for (const c of FIXTURE.cases.filter((x) => x.id.startsWith('own-entities') || x.id.startsWith('own-nfd') || x.id.startsWith('heq'))) {
      expect(normalizeReaderText(c.question), c.id).toBe(c.expected.question);
    }
    const entities = FIXTURE.cases.find((c) => c.id === 'own-entities-bidi-newlines')!;
    expect(normalizeReaderText(entities.passage)).toBe(entities.expected.passage);
    // Python's \s also holds the information separators and NEL; U+FEFF is a bidi-like control dropped.
    expect(normalizeReaderText('\x1cא\x85ב\ufeffג&#x27;&apos;&lt;')).toBe("א בג''<");
  });

  it('lays the prompt out as prompt_format.prompt_ids, character for character', () => {
    for (const c of FIXTURE.cases) expect(readerPromptText(c.expected.question, c.expected.passage), c.id).toBe(c.expected.prompt);
  });

  it('tells a no-answer reply from a span', () => {
    expect(FIXTURE.noAnswer).toBe(NO_ANSWER);
    expect(isNoAnswer(NO_ANSWER)).toBe(true);
    expect(isNoAnswer(`  ${NO_ANSWER.replace(' ', '\n')}.`)).toBe(true);
    expect(isNoAnswer('אין')).toBe(false);
    expect(isNoAnswer(`30 יום ${NO_ANSWER}`)).toBe(false);
  });
});

describe('reader prompt: the budget', () => {
  it('keeps the question’s last words within 36 tokens and the passage’s first words within what is left', async () => {
    const question = Array.from({ length: 30 }, (_, i) => `מילה${i}`).join(' ');
    const passage = Array.from({ length: 200 }, (_, i) => `קטע${i}`).join(' ');
    const prompt = await buildReaderPrompt(question, passage, fakeCount);
    expect(fakeCount(prompt.question)).toBeLessThanOrEqual(QUESTION_TOKENS);
    expect(question.endsWith(prompt.question)).toBe(true);
    // One word more would not have fitted.
    const kept = prompt.question.split(' ').length;
    expect(
      fakeCount(
        question
          .split(' ')
          .slice(-kept - 1)
          .join(' '),
      ),
    ).toBeGreaterThan(QUESTION_TOKENS);
    const fixed = 1 + fakeCount(readerPromptText('', '').slice('<bos>'.length));
    const budget = Math.min(PASSAGE_TOKENS, PROMPT_TOKENS - fixed - fakeCount(prompt.question) - 2);
    expect(passage.startsWith(prompt.passage)).toBe(true);
    expect(fakeCount(prompt.passage)).toBeLessThanOrEqual(budget);
    const words = prompt.passage.split(' ').length;
    expect(
      fakeCount(
        passage
          .split(' ')
          .slice(0, words + 1)
          .join(' '),
      ),
    ).toBeGreaterThan(budget);
    expect(prompt.tokens).toBe(1 + fakeCount(prompt.text.slice('<bos>'.length)));
    expect(prompt.tokens).toBeLessThanOrEqual(PROMPT_TOKENS);
    expect(prompt.text).toBe(readerPromptText(prompt.question, prompt.passage));
  });

  it('leaves a passage that fits whole, and accepts an async counter', async () => {
    const prompt = await buildReaderPrompt('מה  גובה\nההשתתפות?', 'ההשתתפות העצמית היא 850 ש"ח.', async (t) => fakeCount(t));
    expect(prompt.question).toBe('מה גובה ההשתתפות?');
    expect(prompt.passage).toBe('ההשתתפות העצמית היא 850 ש"ח.');
  });

  it('refuses with READER_PROMPT_TOO_LONG where the question alone leaves no room', async () => {
    const giant = 'א'.repeat(3 * 170);
    const error = await buildReaderPrompt(giant, 'קטע קצר', fakeCount).catch((e: unknown) => e);
    expect(isHarelError(error) && error.code).toBe('READER_PROMPT_TOO_LONG');
    expect((error as Error).message).toMatch(/shorter question/);
  });
});

describe.skipIf(!existsSync(GEMMA))('reader prompt with Gemma’s own tokenizer (models/gguf)', () => {
  const fd = existsSync(GEMMA) ? openSync(GEMMA, 'r') : -1;
  const head = new Uint8Array(8 << 20);
  if (fd >= 0) {
    readSync(fd, head, 0, head.length, 0);
    closeSync(fd);
  }
  const tokenizer = fd >= 0 ? SpmTokenizer.fromGguf(readGgufMetadata(head)) : null;

  it('builds the very prompts prompt_format.py built, with the same token ids', async () => {
    const t = tokenizer!;
    for (const c of FIXTURE.cases) {
      const prompt = await buildReaderPrompt(c.question, c.passage, (text) => t.count(text, { parseSpecial: true }));
      expect(prompt.text, c.id).toBe(c.expected.prompt);
      expect(prompt.tokens, c.id).toBe(c.expected.promptTokens);
      expect([t.bosId, ...t.tokenize(prompt.text.slice('<bos>'.length), { parseSpecial: true })], c.id).toEqual(c.expected.promptIds);
    }
    expect(t.tokenize(NO_ANSWER)).toEqual(FIXTURE.noAnswerIds);
    expect(t.addBos).toBe(true);
  });
});
if (!existsSync(GEMMA)) process.stderr.write(`reader-prompt.test.ts: the real-tokenizer case is skipped: ${GEMMA.pathname} is missing (npx harel-builder models fetch)\n`);
