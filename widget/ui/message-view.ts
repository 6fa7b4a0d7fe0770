/**
 * Templates for one turn of the conversation: the customer's question, or an answer with its
 * badges, citation markers linked to source cards, and its actions. Pure functions of their
 * input: the element owns the state and passes handlers in.
 *
 * Everything a card shows from the index (title, section path, quote, references, other
 * editions) is rendered as text with its bidi controls removed and in an isolated element
 * (`dir`, `<bdi>`), and its link goes through the URL policy again (core/url-policy.ts): the index
 * may have been edited after the builder checked it. Quoted table rows show as a table under their
 * header (answer/quote-tables.ts), cell by cell as text.
 */
import { html, nothing, type TemplateResult } from 'lit';
import { quoteBlocks, type QuoteBlock } from '../answer/quote-tables.ts';
import type { Answer, ChatTurn, Citation, StoredAnswer } from '../answer/types.ts';
import type { Lang } from '../core/schema.ts';
import { smallTalkKind } from '../text/small-talk.ts';
import type { PendingQuestion } from '../session/pending-questions.ts';
import type { TextLink } from './contact-links.ts';
import { renderDevicePage } from './device-documents-view.ts';
import { cardId, citationLabel, isDeviceCitation, shown, sourceHref } from './citation-refs.ts';
import { deviceCitationLabel, type DevicePages, devicePageKey } from './device-documents.ts';
import { answerLanguage, langDirection, textDirection, textLang } from './direction.ts';
import { renderFeedbackButtons, renderFeedbackFollowUp, type FeedbackHandlers } from './feedback-view.ts';
import { highlightSpans } from './highlight.ts';
import type { LoadProgressView } from './load-progress.ts';
import { renderRichText } from './rich-text.ts';
import { renderProgressBar } from './status-view.ts';
import { domainName, UI_STRINGS } from './strings.ts';

export interface TurnHandlers extends FeedbackHandlers {
  onCite(turnIndex: number, n: number): void;
  onCopy(turnIndex: number): void;
  onRetry(turnIndex: number): void;
  /** A device citation's "show the page" (the customer's own document): opens or closes its page's text. */
  onDevicePage?(citation: Citation): void;
}

const NO_PAGES: DevicePages = new Map();

/**
 * Whether a section heading repeats the document's title: equal up to case, spacing and dashes,
 * or its start when the builder shortened the heading with an ellipsis.
 */
function sameText(heading: string, title: string): boolean {
  const norm = (t: string) =>
    t
      .normalize('NFKC')
      .toLowerCase()
      .replace(/[\s\u2010-\u2015-]+/g, ' ')
      .trim();
  const h = norm(heading);
  const t = norm(title);
  if (h === t) return true;
  const cut = h.replace(/(?:…|\.\.\.)$/, '').trim();
  return cut !== h && cut.length > 0 && t.startsWith(cut);
}

/** A quote from a document, in its own language and direction (the interface's for one without letters). */
function quoteLang(text: string, ui: Lang): { dir: 'rtl' | 'ltr'; lang: Lang | typeof nothing } {
  const lang = textLang(text);
  return { dir: langDirection(lang ?? ui), lang: lang ?? nothing };
}

/** Text with the words that match the question marked. */
function marked(text: string, question: string): (TemplateResult | string)[] {
  return highlightSpans(text, question).map((span) => (span.match ? html`<mark>${span.text}</mark>` : span.text));
}

/** A cell in its own text's direction; one without letters (an amount) takes the table's. */
function cellDir(text: string): { dir: 'rtl' | 'ltr' | typeof nothing; lang: Lang | typeof nothing } {
  const lang = textLang(text);
  return lang ? { dir: langDirection(lang), lang } : { dir: nothing, lang: nothing };
}

/**
 * Quoted table rows under their header, as a table: the columns run in the quote's direction (the
 * blockquote's `dir`), each cell in its own text's. Cells are text, as every quote is.
 */
function quoteTable(table: Extract<QuoteBlock, { kind: 'table' }>, question: string): TemplateResult {
  const cell = (text: string, tag: 'th' | 'td') => {
    const d = cellDir(text);
    return tag === 'th' ? html`<th scope="col" dir=${d.dir} lang=${d.lang}>${marked(text, question)}</th>` : html`<td dir=${d.dir} lang=${d.lang}>${marked(text, question)}</td>`;
  };
  const rows = table.rows.length ? html`<tbody>${table.rows.map((row) => html`<tr>${row.map((c) => cell(c, 'td'))}</tr>`)}</tbody>` : nothing;
  return html`<div class="table"><table part="citation-table"><thead><tr>${table.header.map((c) => cell(c, 'th'))}</tr></thead>${rows}</table></div>`;
}

/** A quote as the card shows it: its text with the question's words marked, and its table rows as tables. */
function quoteContent(citation: Citation, quote: string, question: string): (TemplateResult | string)[] {
  const header = citation.tableHeader ? shown(citation.tableHeader) : null;
  return quoteBlocks(quote, header).flatMap((block) => (block.kind === 'text' ? marked(block.text, question) : [quoteTable(block, question)]));
}

/**
 * A citation of the customer's own document: labelled as theirs (not the site's booklet), with no
 * link (it was never on the web), and a button that opens the cited page's text from this device.
 */
function deviceCitationCard(citation: Citation, turnIndex: number, question: string, ui: Lang, handlers: TurnHandlers, pages: DevicePages): TemplateResult {
  const s = UI_STRINGS[ui];
  const documentId = citation.deviceDocument ?? '';
  const name = shown(citation.file);
  const quote = shown(citation.quote);
  const path = citation.sectionPath.map(shown).filter((p) => p.trim() && !sameText(p, name));
  const q = quoteLang(quote, ui);
  const id = cardId(turnIndex, citation.n);
  const page = pages.get(devicePageKey(documentId, citation.page));
  return html`<details class="card device" id=${id} part="citation-card device-citation" data-n=${citation.n} data-origin="device" data-document=${documentId} data-page=${citation.page}>
    <summary><span class="n">[${citation.n}]</span> <span class="title origin" part="citation-title">${deviceCitationLabel(name, citation.page, ui)}</span>${
      path.length ? html` <span class="where">· ${path.map((p, i) => html`${i ? ' › ' : ''}<bdi>${p}</bdi>`)}</span>` : nothing
    }</summary>
    <blockquote dir=${q.dir} lang=${q.lang} part="citation-quote">${quoteContent(citation, quote, question)}</blockquote>
    ${
      handlers.onDevicePage
        ? html`<button type="button" part="device-page-button" aria-expanded=${page ? 'true' : 'false'} aria-controls=${`${id}-page`}
            @click=${() => handlers.onDevicePage?.(citation)}>${page ? s.documents.hidePage : s.documents.showPage}</button>`
        : nothing
    }
    ${page ? renderDevicePage(page, `${id}-page`, name, citation.page, ui) : nothing}
  </details>`;
}

function citationCard(citation: Citation, turnIndex: number, question: string, ui: Lang, handlers: TurnHandlers, pages: DevicePages): TemplateResult {
  if (isDeviceCitation(citation)) return deviceCitationCard(citation, turnIndex, question, ui, handlers, pages);
  const s = UI_STRINGS[ui];
  const href = sourceHref(citation);
  const quote = shown(citation.quote);
  const title = shown(citation.title);
  // A document's outline often starts with its own title: the line names it once.
  const path = citation.sectionPath.map(shown).filter((p) => p.trim() && !sameText(p, title));
  // The card's own line is in the interface's direction (it inherits the article's). Each piece
  // from the index is isolated (<bdi>): an English title or heading in a Hebrew line, or the
  // reverse, keeps its own direction and does not drag the separators or the page along.
  const q = quoteLang(quote, ui);
  return html`<details class="card" id=${cardId(turnIndex, citation.n)} part="citation-card" data-n=${citation.n} data-file=${citation.file} data-page=${citation.page}>
    <summary><span class="n">[${citation.n}]</span> <bdi class="title" part="citation-title">${title}</bdi>${
      path.length ? html` <span class="where">· ${path.map((p, i) => html`${i ? ' › ' : ''}<bdi>${p}</bdi>`)}</span>` : nothing
    } <span class="where">· ${s.page} ${citation.page}</span></summary>
    <blockquote dir=${q.dir} lang=${q.lang} part="citation-quote">${quoteContent(citation, quote, question)}</blockquote>
    ${href ? html`<a href=${href} target="_blank" rel="noopener noreferrer" part="citation-link">${s.openSource}</a>` : nothing}
    ${(citation.references ?? []).map((r) => {
      const text = shown(r.text);
      const ref = quoteLang(text, ui);
      return html`<div class="ref" part="citation-reference"><span class="also">${s.refersTo(r.clause, r.page)}</span>
        <blockquote dir=${ref.dir} lang=${ref.lang}>${text}</blockquote></div>`;
    })}
    ${
      citation.alsoIn.length
        ? html`<div class="also">${s.alsoIn} ${citation.alsoIn.map(
            (a, i) => html`${i ? ', ' : ''}${a.lang ? html`<bdi>(${s.languageName(a.lang)})</bdi> ` : nothing}<bdi>${shown(a.title)}</bdi> (${s.page} ${a.page})`,
          )}</div>`
        : nothing
    }
  </details>`;
}

/**
 * What kind of answer this is. A question about something else says so, not "no definitive answer"
 * (it was never looked up), and names no domain (it is in none); a greeting or thanks answered in
 * kind carries no badge at all. The loop picks the same reply by the same question (loop/machine.ts).
 */
function answerBadges(answer: StoredAnswer & Pick<Answer, 'reading'>, question: string, ui: Lang): TemplateResult | typeof nothing {
  const s = UI_STRINGS[ui];
  if (answer.refusal === 'off-topic') {
    // A stored answer keeps no reading (it is the evaluation's, kept in memory): its question is read again.
    const talk = answer.reading ? answer.reading.typed.smallTalk : smallTalkKind(question);
    if (talk === 'greeting' || talk === 'thanks') return nothing;
    return html`<div class="meta"><span class="badge off-topic" part="topic-badge" data-refusal="off-topic">${s.offTopic}</span></div>`;
  }
  return html`<div class="meta">
    <span class="badge ${answer.confidence}" part="confidence-badge" data-confidence=${answer.confidence}>${s.confidence[answer.confidence]}</span>
    ${answer.domain ? html`<span class="badge" part="domain-badge" data-domain=${answer.domain}>${s.domain}: ${domainName(answer.domain, ui)}</span>` : nothing}
    ${
      // The leading fact was found by the reader model, not quoted by rule: the answer says which.
      answer.reader?.verdict === 'span'
        ? html`<span class="badge" part="reader-badge" data-verdict="span" title=${`${answer.reader.model ?? ''} · ${(answer.reader.ms / 1000).toFixed(1)} s`}>${s.readerFound}</span>`
        : nothing
    }
  </div>`;
}

export function renderUserTurn(turn: ChatTurn): TemplateResult {
  return html`<div class="msg user" part="message user-message" dir=${textDirection(turn.text)}>${turn.text}</div>`;
}

/**
 * An answer: its text in the answer's language and direction, everything around it (badges,
 * sources, actions) in the interface's, as the rest of the panel. `links`: the site's contact
 * details, linked where the answer writes them (contact-links.ts).
 */
export function renderAssistantTurn(
  turn: ChatTurn,
  turnIndex: number,
  question: string,
  ui: Lang,
  handlers: TurnHandlers,
  copied = false,
  links: readonly TextLink[] = [],
  pages: DevicePages = NO_PAGES,
): TemplateResult {
  const s = UI_STRINGS[ui];
  const answer = turn.answer;
  const lang = answerLanguage(answer, question, ui);
  const cite = (n: number) => {
    const c = answer?.citations.find((x) => x.n === n);
    if (!c) return `[${n}]`;
    return html`<button type="button" class="cite" part="citation-marker" data-n=${n}
      aria-label=${`${s.sources} ${n}: ${citationLabel(c, ui)}`}
      @click=${() => handlers.onCite(turnIndex, n)}>${n}</button>`;
  };
  return html`<article class="msg assistant" part="message assistant-message" dir=${langDirection(ui)}
      data-mode=${answer?.mode ?? nothing} data-refused=${answer ? String(answer.refused) : nothing}>
    ${answer ? answerBadges(answer, question, ui) : nothing}
    ${turn.text || !turn.stopped ? answerBody(turn.text, lang, cite, links) : nothing}
    ${turn.stopped ? html`<div class="stopped">${turn.text ? s.answerStopped : s.queuedStopped} ⏹</div>` : nothing}
    ${
      answer?.citations.length
        ? html`<section class="sources" aria-label=${s.sources}><h3>${s.sources}</h3>${answer.citations.map((c) => citationCard(c, turnIndex, question, ui, handlers, pages))}</section>`
        : nothing
    }
    ${
      answer
        ? html`<div class="actions">
          <button type="button" part="action" data-action="copy" @click=${() => handlers.onCopy(turnIndex)}>${copied ? s.copied : s.copy}</button>
          <button type="button" part="action" data-action="retry" @click=${() => handlers.onRetry(turnIndex)}>${s.retry}</button>
          ${renderFeedbackButtons(turn, turnIndex, ui, handlers)}
        </div>
        ${renderFeedbackFollowUp(turn, turnIndex, ui, handlers)}`
        : nothing
    }
  </article>`;
}

/** The reply to a question whose answer failed (not stopped): that it was not answered, and why. */
export function renderAnswerError(error: { code: string; message: string }, ui: Lang): TemplateResult {
  const s = UI_STRINGS[ui];
  return html`<article class="msg assistant pending" part="message assistant-message answer-error" dir=${langDirection(ui)} data-code=${error.code}>
    <div class="body"><p>${s.answerFailed}</p></div>
    <div class="detail" dir="ltr">[${error.code}] ${error.message}</div>
  </article>`;
}

/** The answer being written to `question`: streamed text, no citations linked yet. */
export function renderStreaming(text: string, question: string, ui: Lang): TemplateResult {
  return html`<article class="msg assistant" part="message assistant-message" aria-busy="true" dir=${langDirection(ui)}>
    ${text ? answerBody(text, answerLanguage(undefined, question, ui), (n) => `[${n}]`) : html`<div class="thinking">${UI_STRINGS[ui].thinking}</div>`}
  </article>`;
}

/** While the reader model reads the cited page: the composed answer is shown above this line. */
export function renderReading(ui: Lang): TemplateResult {
  return html`<div class="reading" part="reader-status" role="status" dir=${langDirection(ui)}>${UI_STRINGS[ui].readingPage}</div>`;
}

function answerBody(text: string, lang: Lang, cite: (n: number) => TemplateResult | string, links: readonly TextLink[] = []): TemplateResult {
  const dir = langDirection(lang);
  return html`<div class="body" dir=${dir} lang=${lang}>${renderRichText(text, cite, dir, links)}</div>`;
}

/**
 * The reply to a question asked before search worked: that it waits for the documents, with the
 * load's progress (or, once loaded, that it is next); that the documents could not be loaded and
 * why; or that the customer stopped it. Not a live region: the element announces the wait once,
 * rather than on every progress tick.
 */
export function renderPendingReply(question: PendingQuestion, ui: Lang, progress: LoadProgressView | null): TemplateResult {
  const s = UI_STRINGS[ui];
  const state = question.state;
  return html`<article class="msg assistant pending" part="message assistant-message pending-reply" dir=${langDirection(ui)} data-pending=${state}
      data-code=${question.error?.code ?? nothing}>
    ${
      state === 'waiting'
        ? progress
          ? html`<div class="thinking">${s.queued}</div>
            <div class="progress" aria-hidden="true">${progress.label}${progress.amount ? html`: <span class="amount">${progress.amount}</span>` : nothing}
              ${renderProgressBar(progress)}</div>`
          : html`<div class="thinking">${s.queuedNext}</div>`
        : state === 'failed'
          ? html`<div class="body"><p>${s.queuedFailed}</p></div>
            ${question.error ? html`<div class="detail" dir="ltr">[${question.error.code}] ${question.error.message}</div>` : nothing}`
          : html`<div class="stopped">${s.queuedStopped} ⏹</div>`
    }
  </article>`;
}
