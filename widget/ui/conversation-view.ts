/**
 * The conversation list (`part="messages"`): the starters before the first question, then its
 * rows (conversation-rows.ts). Those, and every template of an answer, are imported with the first
 * row — a question asked, or a conversation restored — since a first visit that only looks needs
 * none of them; the rows show as soon as they are in (a local file, milliseconds), and the answer
 * loop itself is imported at the same moment (session/answer-loop.ts).
 */
import { html, nothing, type TemplateResult } from 'lit';
import type { Lang } from '../core/schema.ts';
import type { ChatSession } from '../session/chat-session.ts';
import type { StarterQuestions } from './config.ts';
import type { ConversationModel } from './conversation-rows.ts';
import { describeLoadProgress } from './load-progress.ts';
import { DEFAULT_STARTERS, UI_STRINGS } from './strings.ts';

export type { ConversationModel } from './conversation-rows.ts';

type RowsModule = typeof import('./conversation-rows.ts');
let rowsModule: RowsModule | null = null;
let rowsImport: Promise<RowsModule> | null = null;
/** The elements (a page may hold several) that rendered without their rows while they loaded. */
const waitingForRows = new Set<() => void>();

/** The rows' module, or null while it is imported (`onLoaded` then renders again once it is in). */
function conversationRowsView(onLoaded: () => void): RowsModule | null {
  if (rowsModule) return rowsModule;
  waitingForRows.add(onLoaded);
  if (!rowsImport) {
    rowsImport = import('./conversation-rows.ts');
    rowsImport.then(
      (module) => {
        rowsModule = module;
        for (const render of waitingForRows) render();
        waitingForRows.clear();
      },
      // A failed fetch (offline before the file was ever cached) is tried again on the next render.
      () => {
        rowsImport = null;
      },
    );
  }
  return null;
}

export function renderConversationList(m: ConversationModel): TemplateResult {
  const { ui, session } = m;
  const busy = session?.answering != null;
  const hasRows = Boolean(session && (session.turns.length || session.pending.length || busy));
  const rows = session && hasRows ? conversationRowsView(m.onRowsLoaded) : null;
  // While the index loads, a waiting question's reply shows the load's progress.
  const progress = session && session.indexStatus !== 'ready' ? describeLoadProgress(session.indexProgress, ui) : null;
  return html`<div class="log" part="messages" role="region" aria-label=${UI_STRINGS[ui].title} aria-busy=${busy ? 'true' : 'false'} @scroll=${m.onScroll}>
        ${hasRows ? nothing : renderStarters(m)}
        ${rows && session ? rows.renderConversationRows(m, session, progress) : nothing}
      </div>`;
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
