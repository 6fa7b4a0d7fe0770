/**
 * The composer (`part="composer"`): the question box (Enter sends, Shift+Enter a new line, never
 * while an input method is composing), the way to a person, "stop" while something is answered or
 * waits, and "send".
 */
import { html, nothing, type TemplateResult } from 'lit';
import type { Lang } from '../core/schema.ts';
import { UI_STRINGS } from './strings.ts';

export interface ComposerModel {
  ui: Lang;
  draft: string;
  /** Whether an answer is being written or a question waits: "stop" is offered. */
  stoppable: boolean;
  canSend: boolean;
  /** The way to a person (escalate-view.ts). */
  escalateButton: TemplateResult;
}

export interface ComposerHandlers {
  onDraft(text: string): void;
  /** The form is sent (the send button): the draft as typed so far. */
  onSubmit(): void;
  /** Enter in the question box: the box's text. */
  onSend(text: string): void;
  onStop(): void;
}

export function renderComposer(m: ComposerModel, handlers: ComposerHandlers): TemplateResult {
  const s = UI_STRINGS[m.ui];
  return html`<form part="composer" @submit=${(e: Event) => {
    e.preventDefault();
    handlers.onSubmit();
  }}>
        <label class="sr-only" for="q">${s.inputLabel}</label>
        <textarea id="q" part="input" rows="1" dir="auto" placeholder=${s.placeholder} .value=${m.draft}
          @input=${(e: Event) => handlers.onDraft((e.target as HTMLTextAreaElement).value)}
          @keydown=${(e: KeyboardEvent) => onKeyDown(e, handlers)}></textarea>
        ${m.escalateButton}
        ${m.stoppable ? html`<button type="button" part="stop-button" @click=${() => handlers.onStop()}>${s.stop}</button>` : nothing}
        <button type="submit" class="primary" part="send-button" ?disabled=${!m.canSend}>${s.send}</button>
      </form>`;
}

function onKeyDown(event: KeyboardEvent, handlers: ComposerHandlers): void {
  if (event.key === 'Enter' && !event.shiftKey && !event.isComposing) {
    event.preventDefault();
    handlers.onSend((event.target as HTMLTextAreaElement).value);
  }
}
