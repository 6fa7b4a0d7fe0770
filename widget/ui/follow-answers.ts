/**
 * Keeps new answers in view: the one place the message list scrolls by itself.
 *
 * The rule:
 * - The list follows what is added to it (a question, its answer as it is written, its sources),
 *   whoever asked: the composer, a starter, "ask again" or the page's `el.ask()`.
 * - It follows down to the question being answered (the next one to be, or else the last one) and
 *   no further: a long answer is shown from its start, not its end, and the customer scrolls on
 *   to read the rest.
 * - Once the customer scrolls up to read, it stays where they are; anything new then shows the
 *   "new answer" pill, which takes them down. Scrolling back to the bottom follows again, and so
 *   does a question the customer asks in the widget (they want to see its answer); a question from
 *   the page does not move them.
 * - It jumps rather than glides under `prefers-reduced-motion: reduce`.
 *
 * The pill's visibility is set on the element itself, not through the host's render: it changes
 * on scroll and after a render, and state set there would make a second render of each one.
 */
import { html, type ReactiveController, type ReactiveControllerHost, type TemplateResult } from 'lit';

/** Closer than this to the bottom counts as at the bottom. */
const AT_BOTTOM_PX = 24;
/** Room left above the latest question when the list stops at it. */
const ABOVE_QUESTION_PX = 8;

/** How to scroll: 'auto' (a jump) when the customer asked for less motion. */
export function scrollBehavior(): ScrollBehavior {
  return globalThis.matchMedia?.('(prefers-reduced-motion: reduce)').matches ? 'auto' : 'smooth';
}

export interface FollowTarget {
  /** The scrolling message list. */
  list(): HTMLElement | null;
  /** The pill `renderPill` made. */
  pill(): HTMLElement | null;
  /** Changes whenever the conversation gains something to show (a turn, a streamed token, a waiting question). */
  progress(): string;
}

export class AnswerFollower implements ReactiveController {
  private following = true;
  private lastTop = 0;
  private lastProgress = '';

  constructor(
    host: ReactiveControllerHost,
    private readonly target: FollowTarget,
  ) {
    host.addController(this);
  }

  /** The customer asked in the widget: follow its answer, wherever they had scrolled. */
  follow(): void {
    this.following = true;
    this.setPill(false);
  }

  hostUpdated(): void {
    const progress = this.target.progress();
    if (progress === this.lastProgress) return;
    this.lastProgress = progress;
    if (this.following) this.scrollToLatest();
    else if (this.hasBelow()) this.setPill(true);
  }

  /** The list's scroll listener: a scroll up leaves the latest answer, one to the bottom comes back to it. */
  readonly onScroll = (): void => {
    const list = this.target.list();
    if (!list) return;
    const top = list.scrollTop;
    if (!this.hasBelow()) this.follow();
    // Only the customer scrolls up: the list itself only ever scrolls down, and content that
    // shrinks moves the list to its (new) bottom, which is handled above.
    else if (top < this.lastTop - 1) this.following = false;
    this.lastTop = top;
  };

  /** The pill, placed right after the list (it floats over the list's bottom); shown by `setPill`. */
  renderPill(label: string): TemplateResult {
    return html`<div class="new-answer"><button type="button" part="new-answer-button" hidden @click=${() => this.takeDown()}>${label} ↓</button></div>`;
  }

  private takeDown(): void {
    this.follow();
    this.scrollToLatest();
  }

  private hasBelow(): boolean {
    const list = this.target.list();
    return !!list && list.scrollHeight - list.clientHeight - list.scrollTop > AT_BOTTOM_PX;
  }

  private scrollToLatest(): void {
    const list = this.target.list();
    if (!list) return;
    const bottom = list.scrollHeight - list.clientHeight;
    const question = currentQuestion(list);
    const questionTop = question ? question.getBoundingClientRect().top - list.getBoundingClientRect().top + list.scrollTop - ABOVE_QUESTION_PX : bottom;
    const top = Math.max(0, Math.min(bottom, questionTop));
    if (top > list.scrollTop + 1) list.scrollTo({ top, behavior: scrollBehavior() });
  }

  private setPill(shown: boolean): void {
    const pill = this.target.pill();
    if (pill) pill.hidden = !shown;
  }
}

/**
 * The question whose answer is wanted in view: the one being answered (just before the answer
 * being written), else the next waiting one (just before its reply), else the last one asked.
 */
function currentQuestion(list: HTMLElement): HTMLElement | null {
  const next = list.querySelector('.msg.assistant[aria-busy="true"], [data-pending="waiting"]')?.previousElementSibling;
  if (next instanceof HTMLElement && next.matches('.msg.user')) return next;
  const questions = list.querySelectorAll<HTMLElement>('.msg.user');
  return questions[questions.length - 1] ?? null;
}
