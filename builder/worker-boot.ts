/**
 * The first code of a builder worker thread. The builder runs from its TypeScript sources through
 * tsx, whose hooks a worker thread does not inherit from the thread that registered them
 * (builder/bin/harel-builder.mjs calls `register()`), so the thread loads its entry with tsx's own
 * `tsImport`, resolved from this module (not from the working directory). Start the thread with
 * `new Worker(workerBootCode(entry), { eval: true })`.
 */
export function workerBootCode(entry: URL): string {
  const tsx = JSON.stringify(import.meta.resolve('tsx/esm/api'));
  const url = JSON.stringify(entry.href);
  return `import(${tsx}).then(({ tsImport }) => tsImport(${url}, ${url}));`;
}
