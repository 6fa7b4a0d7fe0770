/**
 * Ctrl-C for every long command: the first one aborts the work's signal so it can stop cleanly
 * (and says what happens meanwhile), a second one quits at once. Progress is closed either way.
 * The handler runs only when the work gives the event loop a turn: long synchronous loops must
 * pause (widget/core/steps.ts). Quitting at once runs the process's exit hooks, which delete a
 * build's temporary folder (builder/write/swap.ts).
 */
import type { ProgressReporter } from './progress.ts';

export async function runCancellable<T>(progress: ProgressReporter, stopping: string, work: (signal: AbortSignal) => Promise<T>): Promise<T> {
  const controller = new AbortController();
  const quit = (): never => process.exit(130);
  const onSigint = (): void => {
    progress.log(`${stopping} (Ctrl-C again to quit at once)`);
    controller.abort();
    process.once('SIGINT', quit);
  };
  process.once('SIGINT', onSigint);
  try {
    return await work(controller.signal);
  } finally {
    progress.finish();
    process.off('SIGINT', onSigint);
    process.off('SIGINT', quit);
  }
}
