/** The router behind topic fit, for real: the demo index in-thread, and the worker client's round trip. */
import { readFileSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RouteResult } from '../../../widget/core/retrieval/route.ts';
import { analyzeQuestion } from '../../../widget/loop/analyze.ts';
import { routerTopicFit, TOPIC_FIT_MIN_CONFIDENCE } from '../../../widget/loop/topic-fit.ts';
import type { LocalSearchService } from '../../../widget/search/local-search-service.ts';
import { WorkerSearchService } from '../../../widget/search/worker-search-service.ts';
import type { SearchWorkerRequest, SearchWorkerResponse } from '../../../widget/workers/search-protocol.ts';
import { buildDemoIndex } from './helpers.ts';

let search: LocalSearchService;
let cleanup: () => Promise<void>;
beforeAll(async () => {
  ({ search, cleanup } = await buildDemoIndex());
});
afterAll(() => cleanup?.());

describe('topic fit on the demo index', () => {
  it('routes a bare phrase with the retriever’s router', async () => {
    const car = await search.route('רכב חלופי?');
    expect(car?.domain).toBe('car');
    expect(car!.confidence).toBeGreaterThan(TOPIC_FIT_MIN_CONFIDENCE);
    expect((await search.route('who won the game yesterday?'))?.confidence).toBe(0);
  });

  it('fits an ellipsis of the same domain, not one of another or of none', async () => {
    const fits = routerTopicFit((q) => search.route(q));
    expect(await fits('רכב חלופי?', 'מה ההשתתפות העצמית בביטוח רכב?')).toBe(true);
    expect(await fits('ביטול טיסה?', 'מה ההשתתפות העצמית בביטוח רכב?')).toBe(false);
    expect(await fits('bitcoin price', 'מה ההשתתפות העצמית בביטוח רכב?')).toBe(false);
  });

  it('takes none of the off-topic set as a follow-up of an insurance question', async () => {
    const read = (name: string): { question: string }[] => JSON.parse(readFileSync(new URL(`../../../builder/eval/sets/${name}`, import.meta.url), 'utf8'));
    const fitsPreviousTopic = routerTopicFit((q) => search.route(q));
    const followUps: string[] = [];
    for (const before of read('insurance-context.json')) {
      for (const { question } of read('off-topic.json')) {
        const a = await analyzeQuestion(question, [{ role: 'user', text: before.question, at: 0 }], { fitsPreviousTopic });
        if (a.followUp) followUps.push(`${question} (after ${before.question})`);
      }
    }
    expect(followUps).toEqual([]);
  });
});

describe('WorkerSearchService.route', () => {
  it('asks the worker by id and resolves with its routed answer', async () => {
    const sent: SearchWorkerRequest[] = [];
    const worker = { onmessage: null as ((e: MessageEvent<SearchWorkerResponse>) => void) | null, postMessage: (m: SearchWorkerRequest) => sent.push(m), terminate() {} };
    const service = new WorkerSearchService(() => worker as unknown as Worker);
    const routing = service.route('רכב?');
    expect(sent[0]).toMatchObject({ rpc: 'call', method: 'route', params: ['רכב?'] });
    const route: RouteResult = { domain: 'car', confidence: 0.5, scores: [{ domain: 'car', score: 0.5 }] };
    worker.onmessage?.({ data: { rpc: 'reply', id: sent[0].id, reply: route } satisfies SearchWorkerResponse } as MessageEvent<SearchWorkerResponse>);
    expect(await routing).toEqual(route);
  });
});
