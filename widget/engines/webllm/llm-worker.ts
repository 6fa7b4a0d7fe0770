/**
 * The dedicated Web Worker that hosts web-llm (not a service worker: web-llm's service-worker
 * engine and a Workbox worker have been seen to fight over activation). web-llm is imported
 * here, so its 6 MB load and the model's GPU work stay off the page's thread.
 */
import { WebWorkerMLCEngineHandler } from '@mlc-ai/web-llm';
import { notifier } from '../../workers/rpc.ts';
import type { HarelWorkerNotice } from './protocol.ts';

declare const self: DedicatedWorkerGlobalScope;

const handler = new WebWorkerMLCEngineHandler();
self.onmessage = (event: MessageEvent) => handler.onmessage(event);

const report = notifier<HarelWorkerNotice>(self);

self.addEventListener('unhandledrejection', (event) => {
  report({ type: 'error', message: describe(event.reason) });
});
self.addEventListener('error', (event) => {
  report({ type: 'error', message: event.message || describe(event.error) });
});

function describe(reason: unknown): string {
  return reason instanceof Error ? `${reason.name}: ${reason.message}` : String(reason);
}

report({ type: 'ready' });
