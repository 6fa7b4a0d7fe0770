/** One question through the widget in a page, in a fresh conversation: `el.clear()`, then `el.ask()`. */
import type { Page } from '@playwright/test';
import type { Answer } from '../../../widget/answer/types.ts';

export type AskResult = { answer: Answer; error: null } | { answer: null; error: string };

/** The answer, or the error's code (its text where it has none): a failed question is a record, not a stop. */
export function askInFreshConversation(page: Page, question: string): Promise<AskResult> {
  return page.evaluate(async (q) => {
    const el = document.querySelector('harel-chat')!;
    await el.clear();
    try {
      return { answer: (await el.ask(q)) as Answer, error: null };
    } catch (error) {
      return { answer: null, error: (error as { code?: string }).code ?? String(error) };
    }
  }, question);
}
