import type { TemplateResult } from 'lit';
import { describe, expect, it } from 'vitest';
import { documentText } from '../../../widget/answer/document-text.ts';
import { parseBlocks, renderInline, renderRichText } from '../../../widget/ui/rich-text.ts';
import { highlightSpans } from '../../../widget/ui/highlight.ts';
import { sourceHref } from '../../../widget/ui/citation-refs.ts';
import { answerLanguage, textDirection, textLang } from '../../../widget/ui/direction.ts';

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
    const parts = renderInline(
      'ראו <img src=x onerror=alert(1)> [1] וגם [2, 3]',
      (n) => {
        cited.push(n);
        return `#${n}`;
      },
      'rtl',
    );
    expect(cited).toEqual([1, 2, 3]);
    // The markup survives only as a string part: Lit interpolates strings as text nodes.
    expect(parts.filter((p) => typeof p === 'string').join('')).toContain('<img src=x onerror=alert(1)>');
  });

  it('bolds **text** through a template, not a string of HTML', () => {
    const parts = renderInline('זה **חשוב** מאוד', () => '', 'rtl');
    expect(parts).toHaveLength(3);
    expect(typeof parts[1]).toBe('object');
    expect(parts[0]).toBe('זה ');
  });
});

/** Rendered parts as text: citations as {n}, templates as their markup with their values in it; `nothing` (an attribute left unset) as nothing. */
function flatten(parts: unknown): string {
  if (Array.isArray(parts)) return parts.map(flatten).join('');
  if (typeof parts === 'symbol') return '';
  if (typeof parts !== 'object' || parts === null) return String(parts);
  const t = parts as TemplateResult;
  return t.strings.reduce((out, s, i) => out + s + (i < t.values.length ? flatten(t.values[i]) : ''), '');
}

describe('document text in an answer', () => {
  const cite = (n: number) => `{${n}}`;

  it("shows a quote's own [1], [2] [99] and ** as text in a <bdi>; only the engine's marker cites", () => {
    const cited: number[] = [];
    const line = `“${documentText('Pay the excess [1] first, see [2] [99], **not bold**.')}” [1]`;
    const parts = renderInline(
      line,
      (n) => {
        cited.push(n);
        return cite(n);
      },
      'rtl',
    );
    expect(cited).toEqual([1]);
    expect(flatten(parts)).toBe('“<bdi dir=ltr lang=en>Pay the excess [1] first, see [2] [99], **not bold**.</bdi>” {1}');
  });

  it("never shows a bidi override or isolate, in document text or in the engine's", () => {
    const line = `Model text\u202E reversed [1] “${documentText('invoice\u202Efdp.exe')}” [2]`;
    const text = flatten(renderInline(line, cite, 'ltr'));
    expect(text).toBe('Model text reversed {1} “<bdi dir=ltr lang=en>invoicefdp.exe</bdi>” {2}');
    expect(text).not.toMatch(/[\u202A-\u202E\u2066-\u2069]/);
  });

  it("gives every line and list item the answer's direction, even one that opens with a quote", () => {
    const text = `${documentText('השתתפות עצמית')}: ${documentText('250 ש"ח')} [1]\n“${documentText('6.4 Send original receipts with the claim.')}” [1]\n\n• “${documentText('סדק בשמשה')}” [2]`;
    const markup = flatten(renderRichText(text, cite, 'rtl'));
    expect(markup.match(/<(?:p|span|ul|li)\b[^>]*>/g)).toEqual(['<p dir=rtl>', '<span class="line" dir=rtl>', '<span class="line" dir=rtl>', '<ul dir=rtl>', '<li class="line" dir=rtl>']);
    // Each quote in its own language's direction: the English clause reads left to right in its Hebrew line.
    expect(markup.match(/<bdi[^>]*>[^<]*/g)).toEqual([
      '<bdi dir=rtl lang=he>השתתפות עצמית',
      '<bdi dir=rtl lang=he>250 ש"ח',
      '<bdi dir=ltr lang=en>6.4 Send original receipts with the claim.',
      '<bdi dir=rtl lang=he>סדק בשמשה',
    ]);
  });

  it("sets a quote without letters in its line's direction", () => {
    expect(flatten(renderInline(`Amount: ${documentText('1,000 – 2,000')} [1]`, cite, 'ltr'))).toBe('Amount: <bdi dir=ltr lang=>1,000 – 2,000</bdi> {1}');
    expect(flatten(renderInline(`הסכום: ${documentText('1,000 – 2,000')} [1]`, cite, 'rtl'))).toBe('הסכום: <bdi dir=rtl lang=>1,000 – 2,000</bdi> {1}');
    expect(textLang('$250')).toBeNull();
  });

  it("keeps lists and markers working in the engine's text, and reads no list marker in document text", () => {
    const text = `- first [1]\n${documentText('1. a numbered clause')} [2]`;
    const blocks = parseBlocks(text);
    expect(blocks.map((b) => b.kind)).toEqual(['ul', 'p']);
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

  it('links only what the URL policy lets through, resolving relative URLs against the page', () => {
    const page = 'https://www.insurer.example/help/';
    for (const url of ['javascript:alert(1)', ' JaVaScRiPt:alert(1)', 'java\tscript:alert(1)', '&#106;avascript:alert(1)', 'data:text/html,<b>x</b>', 'vbscript:x']) {
      expect(sourceHref({ url, file: 'car/pages/claims.txt', page: 1 }, page)).toBeNull();
    }
    expect(sourceHref({ url: '/car/policy.pdf', file: 'car/files/policy.pdf', page: 3 }, page)).toBe('https://www.insurer.example/car/policy.pdf#page=3');
    expect(sourceHref({ url: 'claims', file: 'car/pages/claims.txt', page: 1 }, page)).toBe('https://www.insurer.example/help/claims');
    // Without a page to resolve against (no DOM), a relative URL is no link.
    expect(sourceHref({ url: '/car/policy.pdf', file: 'car/files/policy.pdf', page: 3 }, undefined)).toBeNull();
  });

  it('sets direction by the message script', () => {
    expect(textDirection('מה הכיסוי? covers')).toBe('rtl');
    expect(textDirection('What is covered? מה')).toBe('ltr');
  });

  it("lays an answer out in its own language: the answer's once complete, else its question's", () => {
    expect(answerLanguage({ lang: 'en' }, 'מה הכיסוי?', 'he')).toBe('en');
    expect(answerLanguage(undefined, 'What is covered?', 'he')).toBe('en');
    expect(answerLanguage(undefined, 'מה הכיסוי?', 'en')).toBe('he');
    // A question without letters is answered in the interface's language.
    expect(answerLanguage(undefined, '5000?', 'en')).toBe('en');
  });
});
