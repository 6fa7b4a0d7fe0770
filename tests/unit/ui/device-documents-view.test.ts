/**
 * The customer's own documents as the panel shows them, without a browser (templates flattened to
 * their markup): a document's status line through its meaning search, the list with its buttons
 * named after each document, an addition's progress, each DOCUMENT_* error in Hebrew and English,
 * and a device citation's card (labelled as the customer's, no link, the page shown as text).
 */
import type { TemplateResult } from 'lit';
import { describe, expect, it } from 'vitest';
import type { Answer, ChatTurn, Citation } from '../../../widget/answer/types.ts';
import type { DeviceDocumentInfo } from '../../../widget/core/device/device-document.ts';
import type { DocumentAddition } from '../../../widget/session/device-documents.ts';
import { renderDocumentList, type DocumentListHandlers } from '../../../widget/ui/device-documents-view.ts';
import { additionText, deviceCitationLabel, type DevicePages, devicePageKey, documentErrorText, documentStatus, isFileDrag, isolatedName } from '../../../widget/ui/device-documents.ts';
import { citationLabel } from '../../../widget/ui/citation-refs.ts';
import { renderAssistantTurn, type TurnHandlers } from '../../../widget/ui/message-view.ts';
import { UI_STRINGS } from '../../../widget/ui/strings.ts';

/** A template as its markup with its values in it (`nothing`, an attribute left unset, as nothing). */
function flatten(parts: unknown): string {
  if (Array.isArray(parts)) return parts.map(flatten).join('');
  if (typeof parts === 'symbol' || typeof parts === 'function') return '';
  if (typeof parts !== 'object' || parts === null) return String(parts);
  const t = parts as TemplateResult;
  if (!t.strings) {
    // repeat(items, key, template): each item through its template.
    const values = (parts as { values?: unknown[] }).values ?? [];
    const [items, , template] = values;
    if (Array.isArray(items) && typeof template === 'function') return items.map((item, i) => flatten(template(item, i))).join('');
    return '';
  }
  return t.strings.reduce((out, s, i) => out + s + (i < t.values.length ? flatten(t.values[i]) : ''), '');
}

/** Whether `text` is one of a template's values (rendered as text, escaped), not part of its markup. */
function isValue(parts: unknown, text: string): boolean {
  if (Array.isArray(parts)) return parts.some((p) => isValue(p, text));
  if (typeof parts !== 'object' || parts === null) return false;
  const values = (parts as { values?: unknown[] }).values ?? [];
  return values.some((v) => v === text || isValue(v, text));
}

/** The text as read, without the isolates that keep a name's order in a sentence. */
const bare = (text: string) => text.replace(/[\u2066-\u2069]/g, '');

/** Markup as compared here: no isolates, and no quotes (a bound attribute's value is written without them). */
const markup = (parts: unknown) => bare(flatten(parts)).replace(/"/g, '');

const info = (over: Partial<DeviceDocumentInfo> = {}): DeviceDocumentInfo => ({
  id: 'doc-1',
  name: 'My home policy.pdf',
  pages: 40,
  chunks: 180,
  lang: 'he',
  addedAt: 1,
  embedding: { status: 'running', done: 72, total: 180 },
  ...over,
});

const noop: DocumentListHandlers = { onCancel() {}, onRemove() {}, onRemoveAll() {} };

describe('a listed document', () => {
  it('answers by words at once, then says how far its meaning search is, then ready', () => {
    expect(documentStatus(info(), 'en')).toEqual({ state: 'words', text: 'Answers by words now; meaning search 40%', percent: 40 });
    expect(documentStatus(info({ embedding: { status: 'waiting', done: 0, total: 180 } }), 'he').text).toBe('עונה לפי מילים כבר עכשיו; חיפוש לפי משמעות 0%');
    expect(documentStatus(info({ embedding: { status: 'done', done: 180, total: 180 } }), 'en')).toMatchObject({ state: 'ready', text: 'Ready', percent: null });
    expect(documentStatus(info({ embedding: { status: 'none', done: 0, total: 0 } }), 'en').text).toBe('Ready');
    expect(documentStatus(info({ embedding: { status: 'failed', done: 3, total: 180, error: 'out of memory' } }), 'he')).toMatchObject({ state: 'failed' });
  });

  it('lists each document with its pages and status; its button names it, and stops the meaning search while it runs', () => {
    const removed: string[] = [];
    const html = markup(
      renderDocumentList([info(), info({ id: 'doc-2', name: 'Car.pdf', pages: 1, embedding: { status: 'done', done: 9, total: 9 } })], [], 'en', {
        ...noop,
        onRemove: (d) => removed.push(d.id),
      }),
    );
    expect(html).toContain('My home policy.pdf');
    expect(html).toContain('40 pages');
    expect(html).toContain('1 page');
    expect(html).toContain('Answers by words now; meaning search 40%');
    expect(html).toContain('aria-label=Stop the meaning search and remove My home policy.pdf from this device');
    expect(html).toContain('aria-label=Remove Car.pdf from this device');
    expect(html).toContain('>Stop and remove</button>');
    expect(html).toContain('part=documents-remove-all');
    expect((html.match(/<button/g) ?? []).length).toBe(3);
  });

  it('one document: no "remove all" (its own button removes it); none: no list at all', () => {
    const html = markup(renderDocumentList([info({ embedding: { status: 'done', done: 1, total: 1 } })], [], 'he', noop));
    expect(html).not.toContain('documents-remove-all');
    expect(html).toContain('>הסרה</button>');
    expect(markup(renderDocumentList([], [], 'he', noop))).toBe('');
  });

  it('an addition shows its reading progress by pages, then that it is prepared for search, with a cancel button naming it', () => {
    const reading: DocumentAddition = { key: 1, name: 'Policy.pdf', step: 'read', progress: { step: 'parse', done: 3, total: 40 } };
    expect(bare(additionText(reading, 'en'))).toBe('Reading Policy.pdf: page 3 of 40');
    expect(bare(additionText(reading, 'he'))).toBe('קורא את Policy.pdf: עמוד 3 מתוך 40');
    expect(bare(additionText({ ...reading, progress: null }, 'en'))).toBe('Reading Policy.pdf…');
    expect(bare(additionText({ ...reading, step: 'index' }, 'en'))).toBe('Preparing Policy.pdf for search…');
    const html = markup(renderDocumentList([], [reading], 'en', noop));
    expect(html).toContain('aria-label=Cancel adding Policy.pdf');
    expect(html).toContain('data-state=reading');
  });
});

describe('why a document could not be added', () => {
  const codes = ['DOCUMENT_NOT_PDF', 'DOCUMENT_ENCRYPTED', 'DOCUMENT_NO_TEXT', 'DOCUMENT_TOO_LARGE', 'DOCUMENT_TOO_MANY_PAGES', 'DOCUMENT_DUPLICATE', 'DOCUMENT_STORAGE_QUOTA', 'DOCUMENT_UNREADABLE'];

  it.each(codes)('%s: a sentence of its own in both languages, naming the file', (code) => {
    const he = bare(documentErrorText({ code }, 'פוליסה.pdf', 'he'));
    const en = bare(documentErrorText({ code }, 'policy.pdf', 'en'));
    expect(he).toContain('פוליסה.pdf');
    expect(en).toContain('policy.pdf');
    expect(he).not.toBe(bare(UI_STRINGS.he.documents.failed('פוליסה.pdf')));
    expect(en).not.toBe(bare(UI_STRINGS.en.documents.failed('policy.pdf')));
  });

  it('the limits are said: 20 MB and 300 pages; a scan is said to need OCR, which is not done here', () => {
    expect(documentErrorText({ code: 'DOCUMENT_TOO_LARGE' }, 'a.pdf', 'en')).toContain('20 MB');
    expect(documentErrorText({ code: 'DOCUMENT_TOO_LARGE' }, 'a.pdf', 'he')).toContain('20 MB');
    expect(documentErrorText({ code: 'DOCUMENT_TOO_MANY_PAGES' }, 'a.pdf', 'en')).toContain('300 pages');
    expect(documentErrorText({ code: 'DOCUMENT_TOO_MANY_PAGES' }, 'a.pdf', 'he')).toContain('300 עמודים');
    expect(documentErrorText({ code: 'DOCUMENT_NO_TEXT' }, 'a.pdf', 'en')).toMatch(/scan/);
  });

  it('a code without words of its own says the file could not be added', () => {
    expect(bare(documentErrorText({ code: 'UNEXPECTED' }, 'a.pdf', 'en'))).toBe('a.pdf could not be added.');
  });

  it("a file name's bidi controls are removed and the name isolated, so it cannot reorder the sentence", () => {
    const name = isolatedName('\u202Efdp.exe');
    expect(name).toBe('\u2068fdp.exe\u2069');
    expect(documentErrorText({ code: 'DOCUMENT_NOT_PDF' }, '\u202Efdp.exe', 'he')).not.toContain('\u202E');
  });
});

describe('a drag over the panel', () => {
  it('is taken only when it carries files', () => {
    expect(isFileDrag({ types: ['Files'] })).toBe(true);
    expect(isFileDrag({ types: ['text/plain', 'text/uri-list'] })).toBe(false);
    expect(isFileDrag(null)).toBe(false);
  });
});

describe('a citation of the customer’s own document', () => {
  const device: Citation = {
    n: 1,
    origin: 'device',
    deviceDocument: 'doc-1',
    chunkId: 'd1',
    file: 'My home policy.pdf',
    page: 4,
    url: null,
    title: 'My home policy.pdf',
    sectionPath: ['Deductibles'],
    clause: null,
    quote: 'Water damage deductible: 850 NIS.',
    alsoIn: [],
  };
  const site: Citation = { ...device, origin: 'site', deviceDocument: undefined, file: 'apartment/booklet.pdf', title: 'Home booklet', url: 'https://insurer.example/booklet.pdf' };

  function turn(citations: Citation[]): ChatTurn {
    const answer: Answer = {
      text: 'Water damage deductible: 850 NIS. [1]',
      citations,
      mode: 'extractive',
      confidence: 'high',
      refused: false,
      refusal: null,
      domain: null,
      lang: 'en',
      searchedQuery: 'q',
      searchMode: 'bm25',
      retrieved: [],
      timings: { assess: 0, embed: 0, search: 0, grade: 0, generate: 0, ground: 0, total: 0 },
    };
    return { role: 'assistant', text: answer.text, answer, at: 0 };
  }
  const opened: Citation[] = [];
  const handlers: TurnHandlers = { onCite() {}, onCopy() {}, onRetry() {}, onFeedback() {}, onEscalate() {}, onDevicePage: (c) => opened.push(c) };

  it('is labelled as the customer’s document with its page, in both languages, and has no link', () => {
    expect(bare(deviceCitationLabel('My home policy.pdf', 4, 'en'))).toBe('Your document — My home policy.pdf, page 4');
    expect(bare(deviceCitationLabel('הפוליסה שלי.pdf', 4, 'he'))).toBe('המסמך שלך — הפוליסה שלי.pdf, עמ׳ 4');
    expect(bare(citationLabel(device, 'en'))).toBe('Your document — My home policy.pdf, page 4');
    expect(citationLabel(site, 'en')).toBe('Home booklet, p. 4');
    const html = markup(renderAssistantTurn(turn([device]), 1, 'deductible', 'en', handlers));
    expect(html).toContain('data-origin=device');
    expect(html).toContain('Your document — My home policy.pdf, page 4');
    expect(html).not.toContain('citation-link');
    expect(html).not.toContain('href=');
    expect(html).toContain('part=device-page-button');
    expect(html).toContain('aria-expanded=false');
    expect(html).toContain('>Show the page</button>');
    // The marker's accessible name says whose document it cites.
    expect(html).toContain('aria-label=Sources 1: Your document — My home policy.pdf, page 4');
  });

  it('the site’s citation keeps its link and title', () => {
    const html = markup(renderAssistantTurn(turn([site]), 1, 'deductible', 'en', handlers));
    expect(html).toContain('citation-link');
    expect(html).not.toContain('device-page-button');
    expect(html).not.toContain('Your document');
  });

  it('shows the opened page as plain text in its own direction, never as markup', () => {
    const text = 'Page 4 <img src=x onerror=alert(1)> deductible 850';
    const pages: DevicePages = new Map([[devicePageKey('doc-1', 4), { status: 'shown', text }]]);
    const rendered = renderAssistantTurn(turn([device]), 1, 'deductible', 'en', handlers, false, [], pages);
    const html = markup(rendered);
    expect(html).toContain('part=device-page');
    expect(html).toContain('part=device-page data-state=shown role=region aria-label=Page 4 of My home policy.pdf dir=auto>');
    expect(html).toContain('>Hide the page</button>');
    expect(isValue(rendered, text)).toBe(true);
  });

  it('a page of a document removed since says so', () => {
    const pages: DevicePages = new Map([[devicePageKey('doc-1', 4), { status: 'failed', code: 'DOCUMENT_NOT_FOUND', message: 'No added document doc-1' }]]);
    const html = markup(renderAssistantTurn(turn([device]), 1, 'deductible', 'he', handlers, false, [], pages));
    expect(html).toContain('data-code=DOCUMENT_NOT_FOUND');
    expect(html).toContain('My home policy.pdf הוסר מהמכשיר');
  });
});
