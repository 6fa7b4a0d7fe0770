/**
 * An answer's rating controls and what follows them: thumbs up / down (toggle buttons, labelled
 * in the interface's language), the reasons offered after a rating down, and the way to a person
 * when the answer refused or was rated down. Pure templates: the element owns the state.
 */
import { html, nothing, svg, type TemplateResult } from 'lit';
import type { ChatTurn } from '../answer/types.ts';
import type { Lang } from '../core/schema.ts';
import { escalationFor, type EscalateReason } from './escalate.ts';
import { FEEDBACK_REASONS, feedbackOf, type FeedbackChange } from './feedback.ts';
import { UI_STRINGS } from './strings.ts';

export interface FeedbackHandlers {
  onFeedback(turnIndex: number, change: FeedbackChange): void;
  /** `opener` is the control the customer used: focus returns to it when the contact panel closes. */
  onEscalate(turnIndex: number, reason: EscalateReason, opener: HTMLElement): void;
}

const THUMB = svg`<path d="M2 21h4V9H2v12zm20-11c0-1.1-.9-2-2-2h-6.3l.95-4.57.03-.32c0-.41-.17-.79-.44-1.06L13.17 1 6.59 7.59C6.22 7.95 6 8.45 6 9v10c0 1.1.9 2 2 2h9c.83 0 1.54-.5 1.84-1.22l3.02-7.05c.09-.23.14-.47.14-.73v-2z"/>`;

function thumb(down: boolean): TemplateResult {
  return html`<svg viewBox="0 0 24 24" width="16" height="16" aria-hidden="true" focusable="false" class=${down ? 'down' : 'up'}>${THUMB}</svg>`;
}

/** Thumbs up and down for an answered turn (inside its actions row). */
export function renderFeedbackButtons(turn: ChatTurn, turnIndex: number, ui: Lang, handlers: FeedbackHandlers): TemplateResult {
  const s = UI_STRINGS[ui];
  const rating = feedbackOf(turn)?.rating ?? null;
  return html`<span class="feedback" role="group" aria-label=${s.feedbackLabel} data-rating=${rating ?? 'none'}>
    <button type="button" part="feedback-up" aria-pressed=${rating === 'up' ? 'true' : 'false'} aria-label=${s.feedbackUp} title=${s.feedbackUp}
      @click=${() => handlers.onFeedback(turnIndex, { rating: 'up' })}>${thumb(false)}</button>
    <button type="button" part="feedback-down" aria-pressed=${rating === 'down' ? 'true' : 'false'} aria-label=${s.feedbackDown} title=${s.feedbackDown}
      @click=${() => handlers.onFeedback(turnIndex, { rating: 'down' })}>${thumb(true)}</button>
    ${rating ? html`<span class="feedback-thanks">${s.feedbackThanks}</span>` : nothing}
  </span>`;
}

/** Below the actions: the reasons after a rating down, and "talk to a representative" when the answer refused or was rated down. */
export function renderFeedbackFollowUp(turn: ChatTurn, turnIndex: number, ui: Lang, handlers: FeedbackHandlers): TemplateResult | typeof nothing {
  const s = UI_STRINGS[ui];
  const feedback = feedbackOf(turn);
  const escalation = escalationFor(turn);
  if (feedback?.rating !== 'down' && !escalation) return nothing;
  return html`${
    feedback?.rating === 'down'
      ? html`<div class="feedback-reasons" part="feedback-reasons" role="group" aria-labelledby=${`reasons-${turnIndex}`} data-reason=${feedback.reason ?? 'none'}>
          <span class="label" id=${`reasons-${turnIndex}`}>${s.feedbackReasonsLabel}</span>
          ${FEEDBACK_REASONS.map(
            (reason) => html`<button type="button" part="feedback-reason" data-reason=${reason} aria-pressed=${feedback.reason === reason ? 'true' : 'false'}
              @click=${() => handlers.onFeedback(turnIndex, { reason })}>${s.feedbackReasons[reason]}</button>`,
          )}
        </div>`
      : nothing
  }
    ${
      escalation
        ? html`<div class="escalate-offer"><button type="button" part="action escalate-action" data-action="escalate" data-reason=${escalation}
          @click=${(e: Event) => handlers.onEscalate(turnIndex, escalation, e.currentTarget as HTMLElement)}>${s.escalate}</button></div>`
        : nothing
    }`;
}
