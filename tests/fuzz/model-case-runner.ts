/**
 * The model-file fuzzer's child process (tests/fuzz/model-files.ts starts it): loads the targets'
 * files once, then runs each case it is sent by seed and answers with its outcome. Runs apart so a
 * case that hangs inside WebAssembly or kills the process is one failure, not the end of the run.
 */
import { caseMutation, loadModelSets, runModelCase, TARGETS, type RunnerMessage } from './model-files.ts';

const send = (m: RunnerMessage) => process.send?.(m);
process.on('unhandledRejection', (reason) => send({ type: 'unhandled', problem: `unhandled rejection: ${reason instanceof Error ? `${reason.name}: ${reason.message}` : String(reason)}` }));
process.on('uncaughtException', (error) => send({ type: 'unhandled', problem: `uncaught exception: ${error.name}: ${error.message}` }));
// No network here: a file the case does not hand in must not be looked for.
globalThis.fetch = async (input) => {
  throw new TypeError(`fetch ${String(input)}: no network in the model fuzzer`);
};

const sets = await loadModelSets();
// Warm: onnxruntime's wasm compiled and each model loaded once, so a case's time is its own.
for (const target of ['fixture-q8', 'fixture-q4f32', 'e5-q4f32'] as const) {
  const file = sets.sets[target]?.files.keys().next().value;
  if (file) await runModelCase(sets, { kind: 'truncate', target, file, at: 1 });
}
process.on('message', async ({ seed }: { seed: number }) => {
  const mutation = caseMutation(seed);
  if (!sets.sets[mutation.target]) return send({ type: 'case', seed, mutation, outcome: { result: 'skipped' } });
  const outcome = await runModelCase(sets, mutation).catch((error: unknown) => ({
    result: 'failed' as const,
    ms: 0,
    problem: `the case itself threw: ${error instanceof Error ? error.stack : String(error)}`,
  }));
  send({ type: 'case', seed, mutation, outcome });
});
send({ type: 'ready', available: TARGETS.filter((t) => sets.sets[t]), missing: Object.values(sets.missing) });
