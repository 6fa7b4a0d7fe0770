/**
 * The way to a person, as the element shows it: the always-available control
 * (`part="escalate-button"`), the `harel-chat:escalate` event, and the built-in contact panel
 * (`part="contact-panel"`) that lists the site's channels unless the page cancels the event to open
 * its own form or chat. A Lit reactive controller, so the element only wires it in.
 *
 * Focus: opening the panel moves focus to its heading; closing it (its button, or Esc inside it)
 * returns focus to the control that opened it, or to the always-available control when that one is
 * gone.
 */
import { html, nothing, svg, type LitElement, type ReactiveController, type TemplateResult } from 'lit';
import type { ChatTurn } from '../answer/types.ts';
import type { Lang } from '../core/schema.ts';
import { contactEntries, type SiteContacts, escalationTranscript, type EscalateReason, type HarelChatEscalateDetail } from './escalate.ts';
import { UI_STRINGS } from './strings.ts';

/** A headset: the always-available control's icon (its name is its accessible label and title). */
const HEADSET = svg`<path d="M12 1c-4.97 0-9 4.03-9 9v7c0 1.66 1.34 3 3 3h3v-8H5v-2c0-3.87 3.13-7 7-7s7 3.13 7 7v2h-4v8h4v1h-7v2h6c1.66 0 3-1.34 3-3V10c0-4.97-4.03-9-9-9z"/>`;

/** What the controller reads from the element when the customer asks for a person. */
export interface EscalationSource {
  turns(): readonly ChatTurn[];
  buildId(): string;
  contacts(): SiteContacts | null | undefined;
}

export class EscalationController implements ReactiveController {
  /** Why the panel is open, or null when it is closed. */
  open: EscalateReason | null = null;
  private opener: HTMLElement | null = null;

  constructor(
    private readonly host: LitElement,
    private readonly source: EscalationSource,
  ) {
    host.addController(this);
  }

  hostDisconnected(): void {
    this.open = null;
    this.opener = null;
  }

  /**
   * The customer asks for a person: fires `harel-chat:escalate` (bubbling, composed, cancelable)
   * and, unless the page called `preventDefault()`, opens the contact panel. Returns whether it opened.
   */
  escalate(reason: EscalateReason, opener: HTMLElement | null): boolean {
    const detail: HarelChatEscalateDetail = {
      transcript: escalationTranscript(this.source.turns()),
      reason,
      buildId: this.source.buildId(),
    };
    const event = new CustomEvent('harel-chat:escalate', { detail, bubbles: true, composed: true, cancelable: true });
    if (!this.host.dispatchEvent(event)) return false;
    this.open = reason;
    this.opener = opener;
    this.host.requestUpdate();
    void this.host.updateComplete.then(() => {
      const heading = this.host.renderRoot.querySelector<HTMLElement>('#contact-title');
      heading?.focus();
      heading?.scrollIntoView?.({ block: 'nearest' });
    });
    return true;
  }

  close(): void {
    if (!this.open) return;
    this.open = null;
    const opener = this.opener;
    this.opener = null;
    this.host.requestUpdate();
    void this.host.updateComplete.then(() => {
      const target = opener?.isConnected ? opener : this.host.renderRoot.querySelector<HTMLElement>('[part~="escalate-button"]');
      target?.focus();
    });
  }

  /**
   * The always-available control: opens the panel (reason 'asked'), or closes it when open. An
   * icon with a short word beside it; on a phone the word is hidden so the question box keeps at
   * least 60 % of the composer's row, and the full name stays its accessible label and title.
   */
  renderButton(ui: Lang): TemplateResult {
    const s = UI_STRINGS[ui];
    return html`<button type="button" class="escalate" part="escalate-button" aria-label=${s.escalate} title=${s.escalate}
      aria-expanded=${this.open ? 'true' : 'false'} aria-controls="contact-panel"
      @click=${(e: Event) => (this.open ? this.close() : this.escalate('asked', e.currentTarget as HTMLElement))}
      ><svg viewBox="0 0 24 24" width="18" height="18" aria-hidden="true" focusable="false">${HEADSET}</svg><span class="escalate-label">${s.escalateShort}</span></button>`;
  }

  /** The built-in contact panel, when open: the site's name and channels, or a neutral line when it set none. */
  renderPanel(ui: Lang): TemplateResult | typeof nothing {
    if (!this.open) return nothing;
    const s = UI_STRINGS[ui];
    const { name, entries } = contactEntries(this.source.contacts(), ui);
    const whom = name ? html`<bdi>${name}</bdi>` : s.contactService;
    return html`<section class="contact" id="contact-panel" part="contact-panel" aria-labelledby="contact-title" data-reason=${this.open}
        @keydown=${(e: KeyboardEvent) => this.onKeyDown(e)}>
      <h3 id="contact-title" tabindex="-1">${s.contactTitle}</h3>
      ${
        entries.length
          ? html`<p>${s.contactReach} ${whom}:</p>
            <ul>${entries.map(
              (entry) =>
                html`<li data-kind=${entry.kind}>${s.contactKinds[entry.kind]}: ${
                  entry.href
                    ? html`<a part="contact-link" href=${entry.href} dir="ltr" target=${entry.kind === 'website' ? '_blank' : nothing}
                    rel=${entry.kind === 'website' ? 'noopener noreferrer' : nothing}>${entry.value}</a>`
                    : html`<bdi dir="ltr">${entry.value}</bdi>`
                }${entry.hours ? html` (<bdi>${entry.hours}</bdi>)` : nothing}</li>`,
            )}</ul>`
          : html`<p>${name ? html`${s.contactReach} ${whom}.` : s.contactNone}</p>`
      }
      <button type="button" part="contact-close" @click=${() => this.close()}>${s.close}</button>
    </section>`;
  }

  private onKeyDown(event: KeyboardEvent): void {
    if (event.key !== 'Escape') return;
    // Esc inside the panel closes it, and only it (not the answer being written).
    event.stopPropagation();
    this.close();
  }
}
