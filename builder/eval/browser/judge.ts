/**
 * `--judge <cmd>`: an outside grader (a model, where one is available). The command gets
 * {question, answer, reference} as JSON on stdin and prints a score from 0 to 1.
 */
import { spawnSync } from 'node:child_process';

export function runJudge(command: string, input: { question: string; answer: string; reference: string | null }): number | null {
  const result = spawnSync(command, { shell: true, input: JSON.stringify(input), encoding: 'utf8', timeout: 120_000 });
  if (result.status !== 0) {
    process.stderr.write(`judge failed (${result.status ?? result.signal}): ${result.stderr.trim().slice(0, 200)}\n`);
    return null;
  }
  const score = Number.parseFloat(result.stdout.trim().split(/\s+/).pop() ?? '');
  return Number.isFinite(score) ? Math.min(1, Math.max(0, score)) : null;
}
