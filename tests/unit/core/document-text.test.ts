/**
 * Document text inside an answer (answer/document-text.ts) and the code that reads markers
 * around it: a policy's own "[1]", "[2] [99]", "**" or bidi controls stay document text, from
 * the engine through citation parsing and grounding to what a reader gets.
 */
import { describe, expect, it } from 'vitest';
import { answerSegments, documentText, documentValue, joinSegments, plainAnswerText } from '../../../widget/answer/document-text.ts';
import { hasBidiControls, stripBidiControls } from '../../../widget/core/bidi-controls.ts';
import { ExtractiveEngine } from '../../../widget/engines/extractive.ts';
import { parseCitations } from '../../../widget/loop/citations.ts';
import { groundAnswer } from '../../../widget/loop/ground.ts';
import { passage } from '../loop/helpers.ts';
import { readStandalone } from '../../../widget/text/question-reading.ts';

const RLO = '\u202E';

describe('bidi controls', () => {
  it('removes embeddings, overrides, isolates and the deprecated format characters, and keeps the marks', () => {
    const all = '\u202A\u202B\u202C\u202D\u202E\u2066\u2067\u2068\u2069\u206A\u206B\u206C\u206D\u206E\u206F';
    expect(stripBidiControls(`a${all}b`)).toBe('ab');
    expect(stripBidiControls(`invoice${RLO}fdp.exe`)).toBe('invoicefdp.exe');
    expect(stripBidiControls('שלום\u200F. ok\u200E \u061C')).toBe('שלום\u200F. ok\u200E \u061C');
    expect(hasBidiControls(`x${RLO}`)).toBe(true);
    expect(hasBidiControls('x\u200F')).toBe(false);
  });
});

describe('documentText', () => {
  it('wraps document text in an isolate, escapes its brackets and drops its bidi controls and line breaks', () => {
    const wrapped = documentText(`see [1] and [2] [99], **not bold**, invoice${RLO}fdp.exe,\nnext line \u2069 \u2068`);
    expect(wrapped).toBe('\u2068see [\u20601] and [\u20602] [\u206099], **not bold**, invoicefdp.exe, next line  \u2069');
    expect(wrapped).not.toMatch(/\[\s*\d/);
    expect(documentValue(wrapped.slice(1, -1))).toBe('see [1] and [2] [99], **not bold**, invoicefdp.exe, next line  ');
  });

  it('cuts an answer into engine and document segments and joins it back unchanged', () => {
    const text = `Amount: ${documentText('250 NIS')} [1]\n“${documentText('Pay [1] first.')}” [2]`;
    const segments = answerSegments(text);
    expect(segments.map((s) => s.kind)).toEqual(['engine', 'document', 'engine', 'document', 'engine']);
    expect(segments[3].text).toBe('Pay [\u20601] first.');
    expect(joinSegments(segments)).toBe(text);
    expect(plainAnswerText(text)).toBe('Amount: 250 NIS [1]\n“Pay [1] first.” [2]');
  });

  it('reads a run left open (a stream cut short) as document text to the end', () => {
    expect(answerSegments('x “\u2068quote [\u20601')).toEqual([
      { kind: 'engine', text: 'x “' },
      { kind: 'document', text: 'quote [\u20601' },
    ]);
    expect(answerSegments('no runs [1]')).toEqual([{ kind: 'engine', text: 'no runs [1]' }]);
  });
});

describe('citations around document text', () => {
  const passages = [passage('first', { n: 1 }), passage('second', { n: 2 }), passage('third', { n: 3 })];

  it("leaves a quote's own [1], [2] [99] as written: not renumbered, not removed, not counted", () => {
    const text = `According to the policy documents:\n“${documentText('Pay the excess [1] first, see [2] [99].')}” [3]`;
    const parsed = parseCitations(text, passages);
    expect(parsed.sources.map((p) => p.n)).toEqual([3]);
    expect(parsed.dropped).toEqual([]);
    expect(plainAnswerText(parsed.text)).toBe('According to the policy documents:\n“Pay the excess [1] first, see [2] [99].” [1]');
  });

  it("still renumbers and removes the engine's own markers, and tidies the spaces they leave, around runs", () => {
    const text = `Lead: ${documentText('850 NIS')} [2] [9].\n“${documentText('a  b  [7] .')}” [9] [3]`;
    const parsed = parseCitations(text, passages);
    expect(parsed.dropped).toEqual([9]);
    expect(plainAnswerText(parsed.text)).toBe('Lead: 850 NIS [1].\n“a  b  [7] .” [2]');
    expect(parsed.sources.map((p) => p.n)).toEqual([2, 3]);
  });

  it('grounds a quote on the passage its marker names, not on a number inside it', async () => {
    const water = passage('Water damage is covered up to 40,000 NIS per claim [2].', { n: 1 });
    const theft = passage('Theft of a bicycle from the yard is handled separately.', { n: 2 });
    const answer = await new ExtractiveEngine().generate({
      question: 'Is water damage covered?',
      reading: readStandalone('Is water damage covered?'),
      lang: 'en',
      passages: [water, theft],
      history: [],
    });
    const parsed = parseCitations(answer.text, [water, theft]);
    expect(plainAnswerText(parsed.text)).toContain('“Water damage is covered up to 40,000 NIS per claim [2].” [1]');
    expect(parsed.sources.map((p) => p.chunkId)).toEqual([water.chunkId]);
    const ground = await groundAnswer(parsed.text, parsed.sources, {});
    const quote = ground.sentences.find((s) => s.sentence.includes('Water damage'))!;
    expect(quote.citations).toEqual([1]);
    expect(quote.supported).toBe(true);
  });
});
