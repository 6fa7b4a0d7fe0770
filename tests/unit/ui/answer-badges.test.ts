import { describe, expect, it } from 'vitest';
import type { Answer, ChatTurn } from '../../../widget/answer/types.ts';
import { renderAssistantTurn, type TurnHandlers } from '../../../widget/ui/message-view.ts';
import { UI_STRINGS } from '../../../widget/ui/strings.ts';
import { templateMarkup as flatten } from './template-markup.ts';

const handlers: TurnHandlers = { onCite() {}, onCopy() {}, onRetry() {}, onFeedback() {}, onEscalate() {} };

function reply(answer: Partial<Answer>, question: string): string {
  const full: Answer = {
    text: 'x',
    citations: [],
    mode: 'extractive',
    confidence: 'low',
    refused: true,
    refusal: 'off-topic',
    domain: null,
    lang: 'he',
    searchedQuery: question,
    searchMode: 'bm25',
    retrieved: [],
    timings: { assess: 0, embed: 0, search: 0, grade: 0, generate: 0, ground: 0, total: 0 },
    ...answer,
  };
  const turn: ChatTurn = { role: 'assistant', text: full.text, answer: full, at: 0 };
  return flatten(renderAssistantTurn(turn, 1, question, 'he', handlers));
}

describe('the badges of an answer', () => {
  it('an off-topic reply says so, with no confidence and no domain beside it', () => {
    const html = reply({ refusal: 'off-topic', domain: 'car' }, 'ומה לגבי משחק הכדורגל?');
    expect(html).toContain('part="topic-badge"');
    expect(html).toContain(UI_STRINGS.he.offTopic);
    expect(html).not.toContain(UI_STRINGS.he.confidence.low);
    expect(html).not.toContain('confidence-badge');
    expect(html).not.toContain('domain-badge');
  });

  it('a greeting answered in kind carries no badge', () => {
    const html = reply({ refusal: 'off-topic' }, 'שלום');
    expect(html).not.toContain('badge');
  });

  it('a refusal for want of an answer keeps its confidence and domain', () => {
    const html = reply({ refusal: 'not-answerable', domain: 'car' }, 'האם הסוס שלי מכוסה?');
    expect(html).toMatch(/data-confidence="?low/);
    expect(html).toContain(UI_STRINGS.he.confidence.low);
    expect(html).toMatch(/data-domain="?car/);
    expect(html).not.toContain('topic-badge');
  });

  it('says when the leading fact was found by the reader model, and only then', () => {
    const reader = { span: '500 ש"ח', n: 1, ms: 7200, calls: 1, noAnswerProbability: 0.1, model: 'gemma-3-270m-harel-reader', reason: null };
    const found = reply({ refusal: null, refused: false, confidence: 'medium', reader: { ...reader, verdict: 'span' } }, 'מה ההשתתפות העצמית?');
    expect(found).toContain('part="reader-badge"');
    expect(found).toContain(UI_STRINGS.he.readerFound);
    expect(found).toContain('gemma-3-270m-harel-reader · 7.2 s');
    const notFound = reply({ refusal: null, refused: false, confidence: 'medium', reader: { ...reader, verdict: 'no-answer', span: null, n: null } }, 'מה ההשתתפות העצמית?');
    expect(notFound).not.toContain('reader-badge');
  });
});
