/**
 * The conversation's rows (`part="messages"` below its starters): the turns and the questions
 * stopped or failed before their turn in the order asked, the answer being read or written, and
 * the questions still waiting (each showing the index's load progress while it loads). Keyed, and
 * each row guarded by what it shows: a state change (a step of the answer loop, a streamed token, a
 * new turn) renders only the rows it changed, not the whole conversation again.
 *
 * This module and the turn templates it renders (message-view.ts: answers, citation cards, quoted
 * tables, feedback) are imported by conversation-view.ts with the conversation's first row, a
 * question asked or a conversation restored: a first visit does not download them before.
 */
import { html, nothing, type TemplateResult } from 'lit';
import { guard } from 'lit/directives/guard.js';
import { repeat } from 'lit/directives/repeat.js';
import type { Lang } from '../core/schema.ts';
import type { AskOptions, ChatSession } from '../session/chat-session.ts';
import { conversationRows, type ConversationRow } from '../session/pending-questions.ts';
import type { TextLink } from './contact-links.ts';
import type { StarterQuestions } from './config.ts';
import type { DevicePages } from './device-documents.ts';
import type { LoadProgressView } from './load-progress.ts';
import { renderAnswerError, renderAssistantTurn, renderPendingReply, renderReading, renderStreaming, renderUserTurn, type TurnHandlers } from './message-view.ts';

export interface ConversationModel {
  ui: Lang;
  session: ChatSession | null;
  /** The site's starters (the `starters` attribute or property). */
  starters: StarterQuestions | undefined;
  /** The answer whose "copy" just succeeded. */
  copiedTurn: number | null;
  links: readonly TextLink[];
  pages: DevicePages;
  handlers: TurnHandlers;
  onStarter(question: string): void;
  onScroll(): void;
  /** The rows' templates arrived (conversation-rows.ts, imported with the first row): render again. */
  onRowsLoaded(): void;
}

/** Everything under the starters: the rows, the answer under way, the questions waiting. */
export function renderConversationRows(m: ConversationModel, session: ChatSession, progress: LoadProgressView | null): TemplateResult {
  const { ui } = m;
  const busy = session.answering != null;
  const turns = session.turns;
  const waiting = session.pending.filter((q) => q.state === 'waiting');
  return html`${renderRows(m)}
        ${busy && session.answering === 'read' ? renderReading(ui) : busy ? renderStreaming(session.streaming, turns.at(-1)?.role === 'user' ? turns.at(-1)!.text : '', ui) : nothing}
        ${repeat(
          waiting,
          (q) => q.id,
          (q) =>
            guard(
              [q, q.state, ui, progress?.label, progress?.amount, progress?.value, progress?.max],
              () => html`${renderUserTurn({ role: 'user', text: q.text, at: q.at })}${renderPendingReply(q, ui, progress)}`,
            ),
        )}`;
}

/** The turns and the questions stopped or failed before their turn, in the order asked. */
function renderRows(m: ConversationModel): unknown {
  const { ui, session } = m;
  if (!session) return nothing;
  const turns = session.turns;
  return repeat(
    conversationRows<AskOptions>(turns, session.pending),
    (row: ConversationRow<AskOptions>) => (row.kind === 'pending' ? `q${row.question.id}` : `t${row.index}`),
    (row: ConversationRow<AskOptions>) => {
      if (row.kind === 'pending') {
        const q = row.question;
        return guard([q, q.state, q.error, ui], () => html`${renderUserTurn({ role: 'user', text: q.text, at: q.at })}${renderPendingReply(q, ui, null)}`);
      }
      const i = row.index;
      const turn = turns[i];
      if (turn.role === 'user') {
        const failure = session.answerErrors.get(turn);
        return guard([turn, failure, ui], () => html`${renderUserTurn(turn)}${failure ? renderAnswerError(failure, ui) : nothing}`);
      }
      const question = turns[i - 1]?.text ?? '';
      const copied = m.copiedTurn === i;
      const { links, pages } = m;
      return guard([turn, i, question, ui, copied, links, pages], () => renderAssistantTurn(turn, i, question, ui, m.handlers, copied, links, pages));
    },
  );
}
