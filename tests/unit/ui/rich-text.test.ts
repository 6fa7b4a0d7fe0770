import { describe, expect, it } from 'vitest';
import { parseBlocks, renderInline } from '../../../widget/ui/rich-text.ts';
import { highlightSpans } from '../../../widget/ui/highlight.ts';
import { sourceHref } from '../../../widget/ui/message-view.ts';
import { textDirection } from '../../../widget/ui/direction.ts';

describe('rich text subset', () => {
  it('splits paragraphs and lists', () => {
    const blocks = parseBlocks('פסקה ראשונה\nשורה שנייה\n\n- פריט א\n- פריט ב\n1. ראשון\n2) שני');
    expect(blocks).toEqual([
      { kind: 'p', lines: ['פסקה ראשונה', 'שורה שנייה'] },
      { kind: 'ul', items: ['פריט א', 'פריט ב'] },
      { kind: 'ol', items: ['ראשון', 'שני'] },
    ]);
  });

  it('turns [n] and [n, m] into citation markers and keeps markup as plain text', () => {
    const cited: number[] = [];
    const parts = renderInline('ראו <img src=x onerror=alert(1)> [1] וגם [2, 3]', (n) => {
      cited.push(n);
      return `#${n}`;
    });
    expect(cited).toEqual([1, 2, 3]);
    // The markup survives only as a string part: Lit interpolates strings as text nodes.
    expect(parts.filter((p) => typeof p === 'string').join('')).toContain('<img src=x onerror=alert(1)>');
  });

  it('bolds **text** through a template, not a string of HTML', () => {
    const parts = renderInline('זה **חשוב** מאוד', () => '');
    expect(parts).toHaveLength(3);
    expect(typeof parts[1]).toBe('object');
    expect(parts[0]).toBe('זה ');
  });
});

describe('highlighting', () => {
  it('marks passage words that match the question through the tokenizer (prefixes stripped)', () => {
    const spans = highlightSpans('ההשתתפות העצמית בביטוח הרכב היא 250 ש"ח', 'מה ההשתתפות העצמית בביטוח?');
    const marked = spans.filter((s) => s.match).map((s) => s.text.trim());
    expect(marked.join(' ')).toContain('ההשתתפות העצמית בביטוח');
    expect(marked.join(' ')).not.toContain('250');
    expect(spans.map((s) => s.text).join('')).toBe('ההשתתפות העצמית בביטוח הרכב היא 250 ש"ח');
  });
});

describe('source links and direction', () => {
  it('opens PDFs at the cited page and web pages as they are', () => {
    expect(sourceHref({ url: 'https://x.example/a.pdf', file: 'a.pdf', page: 4 })).toBe('https://x.example/a.pdf#page=4');
    expect(sourceHref({ url: 'https://x.example/doc', file: 'car/files/doc.pdf', page: 2 })).toBe('https://x.example/doc#page=2');
    expect(sourceHref({ url: 'https://x.example/page', file: 'car/pages/p.txt', page: 1 })).toBe('https://x.example/page');
    expect(sourceHref({ url: null, file: 'a.pdf', page: 1 })).toBeNull();
  });

  it('sets direction by the message script', () => {
    expect(textDirection('מה הכיסוי? covers')).toBe('rtl');
    expect(textDirection('What is covered? מה')).toBe('ltr');
  });
});
