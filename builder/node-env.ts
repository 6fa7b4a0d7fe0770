/**
 * Runs Vite work with NODE_ENV set for it alone. Vite reads process.env.NODE_ENV (a build sets it
 * to 'production' when unset and compiles `import.meta.env.DEV` from it), and the variable is
 * process-wide: in one Playwright worker, a build left 'production' behind for a dev server
 * started later (the widget then looked for onnxruntime in the wrong place), and a dev server's
 * 'development' leaked into a later production build. Each caller states its mode; the variable is
 * put back as it was.
 */
export async function withNodeEnv<T>(value: 'production' | 'development', work: () => Promise<T>): Promise<T> {
  const previous = process.env.NODE_ENV;
  process.env.NODE_ENV = value;
  try {
    return await work();
  } finally {
    if (previous === undefined) delete process.env.NODE_ENV;
    else process.env.NODE_ENV = previous;
  }
}
