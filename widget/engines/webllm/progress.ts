/**
 * web-llm reports loading as `{progress, text}` with the phase only in the text; the widget's
 * progress bar wants a step and counts. The patterns are web-llm 0.2.86's own strings.
 */
import type { InitProgressReport } from '@mlc-ai/web-llm';
import type { Progress } from '../../core/schema.ts';

export interface LlmLoadProgress extends Progress {
  /** download: files coming over the network (or checked in the cache); compile: weights onto the GPU and shaders compiled. */
  step: 'download' | 'compile';
}

const COUNTED = /^(Fetching param cache|Loading model from cache|Loading GPU shader modules)\[(\d+)\/(\d+)\]/;

/**
 * @param totalBytes the weights' size from tensor-cache.json when known: the download is then
 *   reported in bytes rather than in shards.
 */
export function mapInitProgress(report: InitProgressReport, totalBytes: number | null = null): LlmLoadProgress {
  const text = report.text;
  const fraction = Number.isFinite(report.progress) ? Math.min(1, Math.max(0, report.progress)) : 0;
  const counted = COUNTED.exec(text);
  if (counted) {
    const [, phase, done, total] = counted;
    const step = phase === 'Fetching param cache' ? 'download' : 'compile';
    const detail = phase === 'Fetching param cache' ? 'model weights' : phase === 'Loading model from cache' ? 'weights onto the GPU' : 'GPU shaders';
    if (step === 'download' && totalBytes) return { step, done: Math.round(fraction * totalBytes), total: totalBytes, detail };
    return { step, done: Number(done), total: Number(total), detail };
  }
  if (text.startsWith('Start to fetch params')) {
    return { step: 'download', done: 0, total: totalBytes ?? null, detail: 'model weights' };
  }
  if (text.startsWith('Finish loading')) {
    return { step: 'compile', done: 1, total: 1, detail: text.replace(/^Finish loading on /, 'ready on ') };
  }
  return { step: fraction < 1 ? 'download' : 'compile', done: Math.round(fraction * 100), total: 100, detail: text };
}
