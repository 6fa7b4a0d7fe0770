/**
 * Messages between the page and the LLM worker. The worker runs web-llm's own
 * `WebWorkerMLCEngineHandler`, whose requests and replies are web-llm's protocol (its `kind`s are
 * listed below so a stray message is recognisable). The widget adds two notices of its own, sent
 * by the workers' RPC (widget/workers/rpc.ts, whose `rpc` tag web-llm's messages lack), so a
 * worker that fails outside a web-llm request — its module failing to load, an unhandled
 * rejection — is reported instead of leaving a load waiting forever.
 */

/** web-llm 0.2.86's request kinds (main → worker), from its `message.d.ts`. */
export type WebLlmRequestKind =
  | 'reload'
  | 'runtimeStatsText'
  | 'interruptGenerate'
  | 'unload'
  | 'resetChat'
  | 'getMaxStorageBufferBindingSize'
  | 'getGPUVendor'
  | 'forwardTokensAndSample'
  | 'chatCompletionNonStreaming'
  | 'completionNonStreaming'
  | 'embedding'
  | 'listResumableSessions'
  | 'resumeChatCompletion'
  | 'resumeChatCompletionStreamInit'
  | 'deleteResumableSession'
  | 'getMessage'
  | 'chatCompletionStreamInit'
  | 'completionStreamInit'
  | 'completionStreamNextChunk'
  | 'completionStreamReturn'
  | 'customRequest'
  | 'keepAlive'
  | 'setLogLevel'
  | 'setAppConfig';

/** web-llm's reply kinds (worker → main). */
export type WebLlmResponseKind = 'return' | 'throw' | 'initProgressCallback' | 'heartbeat';

/** The widget's own worker → main notices. */
export type HarelWorkerNotice = { type: 'ready' } | { type: 'error'; message: string };
