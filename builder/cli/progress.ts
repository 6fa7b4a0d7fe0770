/**
 * One progress display for every long step: a bar with counts, rate and ETA on a terminal, a
 * line every few seconds when stderr is not a TTY (CI logs), nothing with --quiet.
 */
import type { Progress, ProgressCallback } from '../../widget/core/schema.ts';

export interface ProgressReporter {
  onProgress: ProgressCallback;
  /** Ends the current bar (prints its last state on its own line). */
  finish(): void;
  /** Prints a message line without tearing the bar. */
  log(message: string): void;
}

function formatDuration(seconds: number): string {
  if (!Number.isFinite(seconds)) return '?';
  if (seconds < 60) return `${Math.round(seconds)}s`;
  const m = Math.floor(seconds / 60);
  return `${m}m${String(Math.round(seconds % 60)).padStart(2, '0')}s`;
}

export function createProgressReporter(options: { quiet: boolean; stream?: NodeJS.WriteStream }): ProgressReporter {
  const stream = options.stream ?? process.stderr;
  const tty = Boolean(stream.isTTY);
  let current: { step: string; start: number; lastPrint: number; last: Progress } | null = null;

  const render = (p: Progress, final = false): string => {
    const elapsed = (Date.now() - current!.start) / 1000;
    if (p.total === null || p.total === 0) return `${p.step}: ${p.done}${p.detail ? ` ${p.detail}` : ''}`;
    const ratio = Math.min(1, p.done / p.total);
    const width = 24;
    const filled = Math.round(ratio * width);
    const bar = '█'.repeat(filled) + '░'.repeat(width - filled);
    const rate = elapsed > 0 ? p.done / elapsed : 0;
    const eta = rate > 0 ? (p.total - p.done) / rate : Infinity;
    const timing = final ? `in ${formatDuration(elapsed)}` : `ETA ${formatDuration(eta)}`;
    const detail = p.detail && !final ? ` ${p.detail.slice(-40)}` : '';
    return `${p.step.padEnd(6)} ${bar} ${p.done}/${p.total} ${(ratio * 100).toFixed(0)}% ${timing}${detail}`;
  };

  const finish = (): void => {
    if (!current || options.quiet) {
      current = null;
      return;
    }
    const line = render(current.last, true);
    stream.write(tty ? `\r\x1b[2K${line}\n` : `${line}\n`);
    current = null;
  };

  return {
    onProgress(p) {
      if (options.quiet) return;
      if (current && current.step !== p.step) finish();
      const now = Date.now();
      if (!current) current = { step: p.step, start: now, lastPrint: 0, last: p };
      current.last = p;
      const interval = tty ? 100 : 5000;
      if (now - current.lastPrint < interval) return;
      current.lastPrint = now;
      const line = render(p);
      stream.write(tty ? `\r\x1b[2K${line}` : `${line}\n`);
    },
    finish,
    log(message) {
      if (options.quiet) return;
      if (current && tty) stream.write('\r\x1b[2K');
      stream.write(`${message}\n`);
    },
  };
}
