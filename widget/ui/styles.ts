/**
 * The element's styles. Site owners restyle through CSS custom properties (colours, font,
 * radius, height) and `::part(...)`; nothing here reaches outside the shadow root.
 */
import { css } from 'lit';

export const chatStyles = css`
  :host {
    --_accent: var(--harel-chat-accent, #0b5cad);
    --_accent-fg: var(--harel-chat-accent-fg, #fff);
    --_bg: var(--harel-chat-bg, #fff);
    --_fg: var(--harel-chat-fg, #1b1f24);
    --_muted: var(--harel-chat-muted, #5a6470);
    --_surface: var(--harel-chat-surface, #f3f5f8);
    --_border: var(--harel-chat-border, #d5dbe3);
    --_mark: var(--harel-chat-highlight, #fff1a8);
    --_radius: var(--harel-chat-radius, 12px);
    --_font: var(--harel-chat-font, system-ui, -apple-system, 'Segoe UI', Arial, sans-serif);
    display: block;
    color: var(--_fg);
    font-family: var(--_font);
    font-size: var(--harel-chat-font-size, 16px);
    line-height: 1.5;
  }
  :host([theme='dark']) {
    --_bg: var(--harel-chat-bg, #15191e);
    --_fg: var(--harel-chat-fg, #e8ecf1);
    --_muted: var(--harel-chat-muted, #a3adb9);
    --_surface: var(--harel-chat-surface, #222830);
    --_border: var(--harel-chat-border, #38414c);
    --_mark: var(--harel-chat-highlight, #6b5a00);
    --_accent: var(--harel-chat-accent, #5aa2f0);
    --_accent-fg: var(--harel-chat-accent-fg, #0b1016);
  }
  * { box-sizing: border-box; }
  .panel {
    display: flex;
    flex-direction: column;
    height: var(--harel-chat-height, min(80vh, 760px));
    min-height: 360px;
    background: var(--_bg);
    border: 1px solid var(--_border);
    border-radius: var(--_radius);
    overflow: hidden;
  }
  header {
    display: flex;
    flex-wrap: wrap;
    align-items: center;
    gap: 0.25rem 0.75rem;
    padding: 0.6rem 0.9rem;
    border-block-end: 1px solid var(--_border);
  }
  header h2 { font-size: 1.05rem; margin: 0; flex: 1 1 auto; min-width: 0; }
  .titlebar { display: flex; align-items: center; gap: 0.35rem; flex-basis: 100%; }
  .titlebar button { min-height: 1.75rem; padding: 0.15rem 0.5rem; font-size: 0.78rem; }
  .titlebar .info { border-radius: 999px; min-width: 1.75rem; padding: 0; font-weight: 700; }
  .titlebar .info[aria-expanded='true'] { background: var(--_surface); border-color: var(--_accent); color: var(--_accent); }
  /* One plain sentence: how answers are written here. */
  .subtitle { flex-basis: 100%; margin: 0; color: var(--_muted); font-size: 0.8rem; line-height: 1.35; }
  /* What a site owner or a support engineer reads: behind the (i) button, or open with debug. */
  .tech { flex-basis: 100%; font-size: 0.78rem; color: var(--_muted); display: flex; flex-direction: column; gap: 0.25rem; max-height: 40%; overflow-y: auto; }
  .tech[hidden] { display: none; }
  .tech .row { display: flex; flex-wrap: wrap; gap: 0.35rem; align-items: center; }
  .badges { display: flex; flex-wrap: wrap; gap: 0.35rem; align-items: center; }
  .badge {
    display: inline-flex;
    align-items: center;
    gap: 0.25rem;
    border-radius: 999px;
    padding: 0.05rem 0.55rem;
    font-size: 0.75rem;
    border: 1px solid var(--_border);
    background: var(--_surface);
    white-space: nowrap;
  }
  .badge.mode { border-color: var(--_accent); color: var(--_accent); font-weight: 600; }
  .badge.high { border-color: #2e7d32; color: #2e7d32; }
  .badge.medium { border-color: #a86b00; color: #8a5800; }
  .badge.low { border-color: #b3261e; color: #b3261e; }
  .badge.off-topic { border-color: var(--_muted); color: var(--_muted); }
  :host([theme='dark']) .badge.high { color: #7bd17f; border-color: #7bd17f; }
  :host([theme='dark']) .badge.medium { color: #ffcc66; border-color: #ffcc66; }
  :host([theme='dark']) .badge.low { color: #ff8a80; border-color: #ff8a80; }
  .status { padding: 0.35rem 0.9rem; font-size: 0.82rem; color: var(--_muted); border-block-end: 1px solid var(--_border); }
  .status:empty { display: none; }
  .status.error { color: #b3261e; }
  progress { width: 100%; height: 0.4rem; }
  .log { flex: 1 1 auto; overflow-y: auto; padding: 0.75rem 0.9rem; display: flex; flex-direction: column; gap: 0.75rem; }
  .msg { max-width: 100%; }
  /* Takes no room: the pill floats over the list's bottom while there is something new below (follow-answers.ts). */
  .new-answer { position: relative; height: 0; flex: 0 0 auto; }
  .new-answer button {
    position: absolute;
    bottom: 0.5rem;
    inset-inline: 0;
    width: max-content;
    margin-inline: auto;
    border-radius: 999px;
    border-color: var(--_accent);
    background: var(--_accent);
    color: var(--_accent-fg);
    box-shadow: 0 2px 8px rgb(0 0 0 / 25%);
  }
  .new-answer button[hidden] { display: none; }
  .msg.user { align-self: flex-end; background: var(--_accent); color: var(--_accent-fg); border-radius: var(--_radius); padding: 0.45rem 0.8rem; max-width: 85%; white-space: pre-wrap; }
  .msg.assistant { background: var(--_surface); border-radius: var(--_radius); padding: 0.6rem 0.8rem; }
  .msg.assistant .body p { margin: 0 0 0.5rem; }
  /* One block per line: each has its own dir (rich-text.ts), which a line inside a shared paragraph could not. */
  .msg.assistant .body span.line { display: block; }
  .msg.assistant .body ul, .msg.assistant .body ol { margin: 0 0 0.5rem; padding-inline-start: 1.3rem; }
  .meta { display: flex; flex-wrap: wrap; gap: 0.35rem; align-items: center; margin-block-end: 0.35rem; }
  /* On the line: no superscript, no minimum height, so a marker never makes its line taller. */
  .cite {
    font: inherit;
    font-size: 0.75em;
    font-weight: 600;
    vertical-align: baseline;
    line-height: 1;
    min-height: 0;
    margin-inline: 0.1em;
    padding: 0 0.3em;
    border-radius: 4px;
    border: 1px solid var(--_accent);
    background: transparent;
    color: var(--_accent);
    cursor: pointer;
  }
  .sources { margin-block-start: 0.5rem; display: flex; flex-direction: column; gap: 0.35rem; }
  .sources h3 { font-size: 0.8rem; margin: 0; color: var(--_muted); font-weight: 600; }
  details.card { background: var(--_bg); border: 1px solid var(--_border); border-radius: 8px; padding: 0.35rem 0.6rem; }
  details.card[open] { border-color: var(--_accent); }
  details.card summary { cursor: pointer; font-size: 0.85rem; list-style-position: inside; overflow-wrap: anywhere; }
  .card .title { font-weight: 600; }
  .card .n { font-weight: 700; color: var(--_accent); }
  .card .where { color: var(--_muted); font-size: 0.78rem; overflow-wrap: anywhere; }
  .card blockquote { margin: 0.4rem 0; padding-inline-start: 0.6rem; border-inline-start: 3px solid var(--_accent); font-size: 0.88rem; white-space: pre-wrap; overflow-wrap: anywhere; }
  .card mark { background: var(--_mark); color: inherit; border-radius: 2px; }
  .card a { color: var(--_accent); font-size: 0.82rem; }
  /* Quoted table rows (message-view.ts): a real table, scrolled sideways rather than squeezed. */
  .card .table { overflow-x: auto; margin-block: 0.25rem; }
  .card table { border-collapse: collapse; white-space: normal; font-size: 0.85rem; }
  /* Words break only when one is wider than the whole card: a narrow column takes whole words. */
  .card th, .card td { border: 1px solid var(--_border); padding: 0.15rem 0.4rem; text-align: start; vertical-align: top; overflow-wrap: break-word; }
  .card th { background: var(--_surface); font-weight: 600; }
  .also { font-size: 0.75rem; color: var(--_muted); }
  .ref blockquote { border-inline-start-style: dashed; font-size: 0.82rem; max-height: 8rem; overflow-y: auto; }
  .actions { display: flex; gap: 0.35rem; margin-block-start: 0.4rem; flex-wrap: wrap; }
  button {
    font: inherit;
    font-size: 0.82rem;
    border: 1px solid var(--_border);
    background: var(--_bg);
    color: var(--_fg);
    border-radius: 8px;
    padding: 0.3rem 0.65rem;
    cursor: pointer;
    min-height: 2rem;
  }
  button.primary { background: var(--_accent); color: var(--_accent-fg); border-color: var(--_accent); }
  button:disabled { opacity: 0.55; cursor: default; }
  button:focus-visible, textarea:focus-visible, a:focus-visible, summary:focus-visible, details.card:focus-visible {
    outline: 3px solid var(--_accent);
    outline-offset: 2px;
  }
  .starters { display: flex; flex-direction: column; gap: 0.4rem; align-items: flex-start; }
  .starters h3 { font-size: 0.85rem; margin: 0; color: var(--_muted); font-weight: 600; }
  .starters button { text-align: start; }
  form { display: flex; gap: 0.5rem; padding: 0.6rem 0.9rem; border-block-start: 1px solid var(--_border); align-items: flex-end; }
  textarea {
    flex: 1 1 auto;
    resize: none;
    font: inherit;
    min-height: 2.6rem;
    max-height: 8rem;
    padding: 0.5rem 0.6rem;
    border: 1px solid var(--_border);
    border-radius: 8px;
    background: var(--_bg);
    color: var(--_fg);
    unicode-bidi: plaintext;
  }
  .thinking { color: var(--_muted); font-size: 0.85rem; }
  .reading { color: var(--_muted); font-size: 0.85rem; padding: 0 0.75rem; }
  .stopped { color: var(--_muted); font-size: 0.78rem; }
  .pending .progress { color: var(--_muted); font-size: 0.8rem; margin-block-start: 0.3rem; }
  .pending .detail { color: var(--_muted); font-size: 0.75rem; overflow-wrap: anywhere; }
  .sr-only { position: absolute; width: 1px; height: 1px; overflow: hidden; clip: rect(0 0 0 0); white-space: nowrap; }
  .model { display: flex; flex-wrap: wrap; gap: 0.4rem; align-items: center; font-size: 0.8rem; color: var(--_muted); flex-basis: 100%; }
  details.model { display: block; }
  .model summary { cursor: pointer; }
  .model .detail { font-size: 0.75rem; margin-block-start: 0.25rem; overflow-wrap: anywhere; }
  /* The customer's own documents (device-documents-view.ts): the add button, the privacy line, the list. */
  .panel { position: relative; }
  .documents { padding: 0.4rem 0.9rem; border-block-end: 1px solid var(--_border); font-size: 0.82rem; display: flex; flex-direction: column; gap: 0.3rem; max-height: 40%; overflow-y: auto; flex: 0 0 auto; }
  .documents-bar { display: flex; flex-wrap: wrap; align-items: center; gap: 0.5rem; }
  .documents-bar button { border-color: var(--_accent); color: var(--_accent); font-weight: 600; }
  .documents .hint, .documents .privacy { color: var(--_muted); font-size: 0.75rem; }
  .documents .privacy { margin: 0; }
  .documents-list { list-style: none; margin: 0; padding: 0; display: flex; flex-direction: column; gap: 0.3rem; }
  .document { display: flex; flex-wrap: wrap; align-items: center; gap: 0.15rem 0.5rem; padding: 0.3rem 0.5rem; border: 1px solid var(--_border); border-radius: 8px; background: var(--_surface); }
  .document .name { font-weight: 600; overflow-wrap: anywhere; }
  .document .pages { color: var(--_muted); font-weight: 400; }
  .document .doc-status { color: var(--_muted); flex: 1 1 12rem; }
  .document[data-state='ready'] .doc-status { color: #2e7d32; }
  .document[data-state='failed'] .doc-status { color: #8a5800; }
  :host([theme='dark']) .document[data-state='ready'] .doc-status { color: #7bd17f; }
  .document progress { flex-basis: 100%; }
  .document button { min-height: 1.8rem; padding: 0.15rem 0.55rem; margin-inline-start: auto; }
  .documents .remove-all { align-self: flex-start; min-height: 1.8rem; padding: 0.15rem 0.55rem; }
  /* The folded section's one control: a phone only (below); elsewhere the section stays open. */
  .documents-toggle { display: none; }
  .document-error { color: #b3261e; display: flex; flex-wrap: wrap; gap: 0.25rem 0.5rem; align-items: center; }
  :host([theme='dark']) .document-error { color: #ff8a80; }
  .document-error .detail { flex-basis: 100%; color: var(--_muted); font-size: 0.72rem; overflow-wrap: anywhere; }
  .document-error button { min-height: 1.6rem; padding: 0.1rem 0.5rem; }
  /* A file dragged over the panel: the whole panel takes it. */
  .panel[data-dropping] { outline: 3px dashed var(--_accent); outline-offset: -3px; }
  .drop-overlay { position: absolute; inset: 0; display: flex; align-items: center; justify-content: center; background: rgb(255 255 255 / 80%); pointer-events: none; font-weight: 600; color: var(--_accent); }
  :host([theme='dark']) .drop-overlay { background: rgb(0 0 0 / 70%); }
  /* A citation of the customer's own document, and the page it opens from this device. */
  details.card.device { border-inline-start: 4px solid var(--_accent); }
  .card .device-page { margin-block: 0.4rem; padding: 0.4rem 0.6rem; border: 1px dashed var(--_border); border-radius: 6px; font-size: 0.85rem; white-space: pre-wrap; overflow-wrap: anywhere; max-height: 16rem; overflow-y: auto; }
  .card .device-page .detail { color: var(--_muted); font-size: 0.72rem; }
  @media (max-width: 480px) {
    header { padding: 0.5rem 0.6rem; }
    .log { padding: 0.6rem; }
    form { padding: 0.5rem 0.6rem; gap: 0.35rem; }
    /* The question box keeps at least 60 % of the row: the way to a person is its icon here. */
    .escalate-label { display: none; }
    .msg.user { max-width: 92%; }
    /* Once the conversation started, the documents section is one row: its control opens it again. */
    .documents[data-folded] { padding-block: 0.25rem; }
    .documents[data-folded] > :not(.documents-toggle, .sr-only) { display: none; }
    .documents[data-folded] > .documents-toggle { display: inline-flex; align-self: flex-start; min-height: 1.9rem; padding: 0.15rem 0.6rem; border-color: var(--_accent); color: var(--_accent); font-weight: 600; }
  }
  /* Feedback on an answer, and the way to a person (feedback-view.ts, escalate-view.ts). */
  .feedback { display: inline-flex; align-items: center; gap: 0.25rem; margin-inline-start: auto; }
  .feedback button { display: inline-flex; align-items: center; justify-content: center; min-width: 2rem; padding: 0.3rem 0.45rem; color: var(--_muted); }
  .feedback button svg { fill: currentColor; }
  .feedback button svg.down { transform: rotate(180deg); }
  .feedback button[aria-pressed='true'] { color: var(--_accent-fg); background: var(--_accent); border-color: var(--_accent); }
  .feedback-thanks { font-size: 0.75rem; color: var(--_muted); }
  .feedback-reasons { display: flex; flex-wrap: wrap; align-items: center; gap: 0.3rem; margin-block-start: 0.4rem; }
  .feedback-reasons .label { font-size: 0.78rem; color: var(--_muted); flex-basis: 100%; }
  .feedback-reasons button { border-radius: 999px; padding: 0.15rem 0.6rem; min-height: 1.8rem; font-size: 0.78rem; }
  .feedback-reasons button[aria-pressed='true'] { border-color: var(--_accent); color: var(--_accent); font-weight: 600; }
  .escalate-offer { margin-block-start: 0.4rem; }
  .escalate-offer button { border-color: var(--_accent); color: var(--_accent); }
  button.escalate { flex: 0 0 auto; display: inline-flex; align-items: center; justify-content: center; gap: 0.3rem; min-width: 2.6rem; min-height: 2.6rem; }
  button.escalate svg { fill: currentColor; flex: 0 0 auto; }
  button.escalate[aria-expanded='true'] { border-color: var(--_accent); color: var(--_accent); }
  .contact { padding: 0.5rem 0.9rem; border-block-start: 1px solid var(--_border); background: var(--_surface); font-size: 0.88rem; max-height: 40%; overflow-y: auto; flex: 0 0 auto; }
  .contact h3 { font-size: 0.92rem; margin: 0 0 0.25rem; }
  .contact h3:focus-visible { outline: 3px solid var(--_accent); outline-offset: 2px; }
  .contact p { margin: 0 0 0.25rem; }
  .contact ul { margin: 0 0 0.4rem; padding-inline-start: 1.2rem; }
  .contact a { color: var(--_accent); unicode-bidi: isolate; }
  /*
   * A phone, e-mail or web address as a link (rich-text.ts, escalate-view.ts): moved whole to the
   * next line rather than broken at a hyphen; one longer than the line breaks where the line ends.
   */
  .body a.contact-link, .contact a { color: var(--_accent); display: inline-block; max-width: 100%; word-break: break-all; }
`;
