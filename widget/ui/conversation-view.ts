/**
 * The conversation list (`part="messages"`): the starters before the first question, the turns and
 * the questions stopped or failed before their turn in the order asked, the answer being read or
 * written, and the questions still waiting (each showing the index's load progress while it
 * loads). Keyed, and each row guarded by what it shows: a state change (a step of the answer loop,
 * a streamed token, a new turn) renders only the rows it changed, not the whole conversation again.
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
import { describeLoadProgress } from './load-progress.ts';
import { renderAnswerError, renderAssistantTurn, renderPendingReply, renderReading, renderStreaming, renderUserTurn, type TurnHandlers } from './message-view.ts';
import { DEFAULT_STARTERS, UI_STRINGS } from './strings.ts';

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
}

export function renderConversationList(m: ConversationModel): TemplateResult {
  const { ui, session } = m;
  const busy = session?.answering != null;
  const turns = session?.turns ?? [];
  const pending = session?.pending ?? [];
  const waiting = pending.filter((q) => q.state === 'waiting');
  // While the index loads, a waiting question's reply shows the load's progress.
  const progress = session && session.indexStatus !== 'ready' ? describeLoadProgress(session.indexProgress, ui) : null;
  return html`<div class="log" part="messages" role="region" aria-label=${UI_STRINGS[ui].title} aria-busy=${busy ? 'true' : 'false'} @scroll=${m.onScroll}>
        ${turns.length || pending.length || busy ? nothing : renderStarters(m)}
        ${renderRows(m)}
        ${busy && session.answering === 'read' ? renderReading(ui) : busy ? renderStreaming(session.streaming, turns.at(-1)?.role === 'user' ? turns.at(-1)!.text : '', ui) : nothing}
        ${repeat(
          waiting,
          (q) => q.id,
          (q) =>
            guard(
              [q, q.state, ui, progress?.label, progress?.amount, progress?.value, progress?.max],
              () => html`${renderUserTurn({ role: 'user', text: q.text, at: q.at })}${renderPendingReply(q, ui, progress)}`,
            ),
        )}
      </div>`;
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

/** The starters: the site's own, else the index's, else neutral ones (those two once the index is read). */
export function startersFor(own: StarterQuestions | undefined, session: ChatSession | null, ui: Lang): string[] {
  const mine = Array.isArray(own) ? own : own?.[ui];
  if (mine?.length) return mine;
  if (session?.indexStatus === 'loading') return [];
  return session?.indexInfo?.site?.starters?.[ui]?.length ? session.indexInfo.site.starters[ui]! : DEFAULT_STARTERS[ui];
}

function renderStarters(m: ConversationModel): TemplateResult | typeof nothing {
  const s = UI_STRINGS[m.ui];
  const starters = startersFor(m.starters, m.session, m.ui);
  if (!starters.length) return nothing;
  return html`<div class="starters" part="starters"><h3>${s.starters}</h3>
      ${starters.map((q) => html`<button type="button" dir="auto" @click=${() => m.onStarter(q)}>${q}</button>`)}</div>`;
}
