/**
 * The citation cards under an answer, as the element drives them: opened from a marker in the
 * answer (focus goes into the card), closed by Esc (focus back on its marker), and an answer with
 * its sources as the "copy" button puts it on the clipboard.
 */
import { plainAnswerText } from '../answer/document-text.ts';
import type { ChatTurn } from '../answer/types.ts';
import { stripBidiControls } from '../core/bidi-controls.ts';
import type { Lang } from '../core/schema.ts';
import { scrollBehavior } from './follow-answers.ts';
import { cardId, citationLabel, sourceHref } from './citation-refs.ts';

type Root = Element | ShadowRoot | DocumentFragment;

/** Opens source `n` of turn `turnIndex` and moves focus into it; returns the card's id, or null when there is none. */
export function openCitationCard(root: Root, turnIndex: number, n: number): string | null {
  const card = root.querySelector<HTMLDetailsElement>(`#${cardId(turnIndex, n)}`);
  if (!card) return null;
  card.open = true;
  card.scrollIntoView({ block: 'nearest', behavior: scrollBehavior() });
  card.querySelector('summary')?.focus();
  return card.id;
}

/** Closes the open card holding focus, else the one opened last, else the last open one; returns whether one was. */
export function closeOpenCard(root: Root, active: Element | null, lastCard: string | null): boolean {
  const open = [...root.querySelectorAll<HTMLDetailsElement>('details.card[open]')];
  if (!open.length) return false;
  const card = open.find((c) => active && c.contains(active)) ?? open.find((c) => c.id === lastCard) ?? open[open.length - 1];
  card.open = false;
  const marker = card.closest('article')?.querySelector<HTMLButtonElement>(`button.cite[data-n="${card.dataset.n}"]`);
  (marker ?? card.querySelector('summary'))?.focus();
  return true;
}

/**
 * What a reader sees, not the stored form: document runs unwrapped, no bidi controls, and only
 * links the URL policy allows (a conversation edited in IndexedDB may hold others).
 */
export function answerClipboardText(turn: ChatTurn, ui: Lang): string {
  const sources = (turn.answer?.citations ?? []).map((c) => {
    const href = sourceHref(c);
    return `[${c.n}] ${stripBidiControls(citationLabel(c, ui))}${href ? ` — ${href}` : ''}`;
  });
  return [plainAnswerText(turn.text), ...sources].join('\n');
}
