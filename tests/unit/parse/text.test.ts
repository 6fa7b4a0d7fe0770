import { describe, expect, it } from 'vitest';
import { parseMarkdown } from '../../../builder/parse/markdown.ts';
import { parsePageJson } from '../../../builder/parse/page-json.ts';
import { decodeEntities, parseText } from '../../../builder/parse/text.ts';
import { deriveTitle, fileTitle } from '../../../widget/core/chunk/title.ts';
import { isHarelError } from '../../../builder/errors.ts';
import type { Block } from '../../../widget/core/schema.ts';

const headings = (blocks: Block[]): [string, number | undefined][] => blocks.filter((b) => b.type === 'heading').map((b) => [b.text, b.level]);

describe('parseText', () => {
  it('finds title-like lines, known section names and ALL-CAPS lines as headings', () => {
    const text = [
      'Home Contents Policy',
      'This policy covers your belongings against the events listed below.',
      '',
      'IMPORTANT NOTICE',
      'Read this policy carefully.',
      '',
      'General Conditions',
      'You must take reasonable care.',
      '',
      'Definitions:',
      '"Home" means the private dwelling at the address shown.',
      '',
      'פרק ב - כיסויים',
      'הפוליסה מכסה נזקי מים, אש ופריצה בדירה המבוטחת.',
      '',
      'חריגים',
      'החברה לא תהיה אחראית לנזק שנגרם בזדון.',
    ].join('\n');
    const [page] = parseText(text, 'policy.txt');
    expect(headings(page.blocks)).toEqual([
      ['Home Contents Policy', 2],
      ['IMPORTANT NOTICE', 1],
      ['General Conditions', 2],
      ['Definitions', 2],
      ['פרק ב - כיסויים', 1],
      ['חריגים', 2],
    ]);
  });

  it('joins wrapped lines into paragraphs, splits on blank lines, starts a block at each numbered clause', () => {
    const text = [
      'The insurer will pay for loss or damage to the contents caused by any of the',
      'events below, up to the sum insured shown in the schedule.',
      '',
      '3.1 Fire, lightning and explosion.',
      '3.2 Theft following forcible entry into the home, provided',
      'that the police were notified.',
      'א. נזקי מים מצנרת.',
      '(b) storm damage.',
    ].join('\n');
    const [page] = parseText(text, 'x.txt');
    expect(page.blocks).toEqual([
      { type: 'text', text: 'The insurer will pay for loss or damage to the contents caused by any of the events below, up to the sum insured shown in the schedule.' },
      { type: 'text', text: '3.1 Fire, lightning and explosion.' },
      { type: 'text', text: '3.2 Theft following forcible entry into the home, provided that the police were notified.' },
      { type: 'text', text: 'א. נזקי מים מצנרת.' },
      { type: 'text', text: '(b) storm damage.' },
    ]);
  });

  it('does not make a heading of a short line inside a wrapped sentence, a list of short items, or a lone line', () => {
    const wrapped = 'The cover applies to any loss that happens inside the territorial limits of\nIsrael and the areas\nunder its control.';
    expect(headings(parseText(wrapped, 'x.txt')[0].blocks)).toEqual([]);
    expect(headings(parseText('Fire\nFlood\nTheft', 'x.txt')[0].blocks)).toEqual([]);
    expect(headings(parseText('Just a line', 'x.txt')[0].blocks)).toEqual([]);
  });

  it('splits pages on form feeds, drops a trailing empty page, and keeps one page otherwise', () => {
    const pages = parseText('page one text.\fpage two text.\f', 'x.txt');
    expect(pages.map((p) => [p.page, p.blocks.map((b) => b.text)])).toEqual([
      [1, ['page one text.']],
      [2, ['page two text.']],
    ]);
    expect(parseText('no feeds here.', 'x.txt')).toEqual([{ page: 1, blocks: [{ type: 'text', text: 'no feeds here.' }] }]);
  });

  it('decodes the HTML entities scrapers leave in page text and normalises spaces', () => {
    expect(decodeEntities('צד ג&#x27; &quot;הר הביטוח&quot; &amp; &#8362; &bogus;')).toBe('צד ג\' "הר הביטוח" & ₪ &bogus;');
    expect(parseText('a\u00A0\u00A0 b\t\tc.', 'x.txt')[0].blocks).toEqual([{ type: 'text', text: 'a b c.' }]);
  });
});

describe('parseMarkdown', () => {
  const md = [
    '# Travel Policy',
    '',
    'Intro paragraph that',
    'wraps over two lines with **bold** and a [link](https://example.com).',
    '',
    '## Cover ##',
    '- Medical expenses',
    '- Lost luggage',
    '1. Claims must be filed within 30 days',
    '',
    '| Cover | Limit |',
    '|---|:---:|',
    '| Medical | $1,000,000 |',
    '| Luggage | $2,000 |',
    '',
    '```',
    'code line 1',
    'code line 2',
    '```',
    '',
    'Setext Title',
    '============',
    '### פרק ג׳ - חריגים',
    '---',
    'after rule',
  ].join('\n');
  const [page] = parseMarkdown(md, 'travel.md');

  it('reads headings with levels (ATX and setext)', () => {
    expect(headings(page.blocks)).toEqual([
      ['Travel Policy', 1],
      ['Cover', 2],
      ['Setext Title', 1],
      ['פרק ג׳ - חריגים', 3],
    ]);
  });

  it('reads paragraphs without inline markup, list items as their own blocks, numbers kept', () => {
    expect(page.blocks).toContainEqual({ type: 'text', text: 'Intro paragraph that wraps over two lines with bold and a link.' });
    expect(page.blocks).toContainEqual({ type: 'text', text: 'Medical expenses' });
    expect(page.blocks).toContainEqual({ type: 'text', text: 'Lost luggage' });
    expect(page.blocks).toContainEqual({ type: 'text', text: '1. Claims must be filed within 30 days' });
    expect(page.blocks).toContainEqual({ type: 'text', text: 'after rule' });
  });

  it('turns pipe tables into rows without the separator line', () => {
    expect(page.blocks.filter((b) => b.type === 'row').map((b) => b.text)).toEqual(['Cover | Limit', 'Medical | $1,000,000', 'Luggage | $2,000']);
  });

  it('keeps code fences as text with their line breaks', () => {
    expect(page.blocks).toContainEqual({ type: 'text', text: 'code line 1\ncode line 2' });
  });
});

describe('parsePageJson', () => {
  const valid = {
    file: 'dental/pages/faq.txt',
    domain: 'dental',
    kind: 'txt',
    url: 'https://example.com/faq',
    pages: [
      { page: 1, text: 'שאלות ותשובות\nמה מכסה ביטוח השיניים? הביטוח מכסה טיפולים משמרים.' },
      { page: 3, text: 'CLAIMS\nSend the form by mail.' },
    ],
  };

  it('returns the metadata and pages run through the text parser, page numbers kept', () => {
    const { meta, pages } = parsePageJson(valid, 'dental/pages/faq.txt.json');
    expect(meta).toEqual({ file: 'dental/pages/faq.txt', domain: 'dental', kind: 'txt', url: 'https://example.com/faq' });
    expect(pages.map((p) => p.page)).toEqual([1, 3]);
    expect(pages[0].blocks[0]).toEqual({ type: 'heading', text: 'שאלות ותשובות', level: 2 });
    expect(pages[1].blocks).toEqual([
      { type: 'heading', text: 'CLAIMS', level: 2 },
      { type: 'text', text: 'Send the form by mail.' },
    ]);
  });

  it.each([
    ['not an object', [1, 2]],
    ['"file"', { ...valid, file: '' }],
    ['relative path', { ...valid, file: '../etc/passwd' }],
    ['"domain"', { ...valid, domain: 3 }],
    ['"kind"', { ...valid, kind: 'docx' }],
    ['"url"', { ...valid, url: 42 }],
    ['"pages" must be an array', { ...valid, pages: 'x' }],
    ['pages[0].page', { ...valid, pages: [{ page: 0, text: 'x' }] }],
    ['pages[1].text', { ...valid, pages: [{ page: 1, text: 'x' }, { page: 2 }] }],
    [
      'appears twice',
      {
        ...valid,
        pages: [
          { page: 1, text: 'x' },
          { page: 1, text: 'y' },
        ],
      },
    ],
  ])('rejects a wrong shape (%s) with INVALID_PAGE_JSON', (reason, json) => {
    let caught: unknown;
    try {
      parsePageJson(json, 'bad.json');
    } catch (error) {
      caught = error;
    }
    expect(isHarelError(caught, 'INVALID_PAGE_JSON')).toBe(true);
    expect((caught as Error).message).toContain('bad.json');
    expect((caught as Error).message).toContain(reason);
  });

  it('accepts a null url', () => {
    expect(parsePageJson({ ...valid, url: null }, 'x.json').meta.url).toBeNull();
  });
});

describe('deriveTitle', () => {
  const page = (blocks: Block[]) => [{ page: 1, blocks }];

  it('takes the first heading near the top, skipping generic part names', () => {
    expect(
      deriveTitle(
        page([
          { type: 'text', text: 'a long opening sentence that is certainly longer than any title would ever be, really.' },
          { type: 'heading', text: 'Travel Policy', level: 1 },
        ]),
        'x.pdf',
      ),
    ).toBe('Travel Policy');
    expect(
      deriveTitle(
        page([
          { type: 'heading', text: 'תוכן עניינים', level: 2 },
          { type: 'text', text: 'פוליסת ביטוח דירה' },
        ]),
        'x.pdf',
      ),
    ).toBe('פוליסת ביטוח דירה');
  });

  it('takes the page name before " | " from scraped page text', () => {
    const scraped = `ביטול ביטוח דירה | הראל ביטוח ופיננסים ${'דלג לתוכן ראשי '.repeat(10)}`;
    expect(deriveTitle(page([{ type: 'text', text: scraped }]), 'apartment/pages/cancellation.txt')).toBe('ביטול ביטוח דירה');
  });

  it('falls back to the file name without extension or dashes', () => {
    expect(deriveTitle(page([{ type: 'row', text: '1 | 2 | 3' }]), 'apartment/files/תנאי-פוליסה_2024.pdf')).toBe('תנאי פוליסה 2024');
    expect(deriveTitle([], 'dental/pages/default.aspx.txt')).toBe('default');
    expect(fileTitle('plain')).toBe('plain');
  });
});
