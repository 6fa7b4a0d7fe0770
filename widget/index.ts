/**
 * The widget's public entry: importing it defines `<harel-chat>` and exports the types a page
 * (or an eval) needs to drive it.
 */
import { HarelChatElement } from './ui/harel-chat.ts';

export { HarelChatElement, DEFAULT_MODEL } from './ui/harel-chat.ts';
export type { HarelChatReadyDetail, HarelChatErrorDetail, ModeSetting } from './ui/harel-chat.ts';
export type { Answer, AnswerMode, AnswerTimings, Citation, ChatTurn, Confidence, RankedPassage, StoredAnswer } from './answer/types.ts';
export type { FeedbackRating, FeedbackReason, HarelChatFeedbackDetail } from './ui/feedback.ts';
export type { EscalateReason, HarelChatEscalateDetail, TranscriptEntry } from './ui/escalate.ts';
export type { IndexInfo } from './search/search-service.ts';
export type { DeviceDocumentInfo, DeviceEmbeddingStatus } from './core/device/device-document.ts';
export type { HarelChatDocumentsDetail } from './ui/device-documents-view.ts';
export type { ContactChannels } from './text/strings.ts';
export type { QuestionReading, TextReading } from './text/question-reading.ts';
export type { ErrorCode } from './core/errors.ts';

if (!customElements.get('harel-chat')) customElements.define('harel-chat', HarelChatElement);

declare global {
  interface HTMLElementTagNameMap {
    'harel-chat': HarelChatElement;
  }
  interface HTMLElementEventMap {
    'harel-chat:ready': CustomEvent<import('./ui/harel-chat.ts').HarelChatReadyDetail>;
    'harel-chat:answer': CustomEvent<import('./answer/types.ts').Answer>;
    'harel-chat:error': CustomEvent<import('./ui/harel-chat.ts').HarelChatErrorDetail>;
    /** A rating of an answer given or changed (not when withdrawn); for the site's analytics. */
    'harel-chat:feedback': CustomEvent<import('./ui/feedback.ts').HarelChatFeedbackDetail>;
    /** The customer asks for a person; cancelable: preventDefault() keeps the built-in contact panel closed. */
    'harel-chat:escalate': CustomEvent<import('./ui/escalate.ts').HarelChatEscalateDetail>;
    /** The customer's own documents changed: one was added or removed, or its meaning search started, finished or failed. */
    'harel-chat:documents': CustomEvent<import('./ui/device-documents-view.ts').HarelChatDocumentsDetail>;
  }
}
