import { defineConfig } from '@playwright/test';
import { CHROMIUM_ARGS, findChromium } from './tests/support/chromium.ts';

const PORT = Number(process.env.E2E_PORT ?? 4178);

/**
 * The specs that run Gemma 3 270M in Chromium (the GGUF answer engine, the reader), each minutes of
 * WebAssembly on 2 cores: the `models` project, `npm run test:models`, which fetches the model the
 * first time. `npm test` runs the `browser` project, every other spec. A spec named on the command
 * line (`npx playwright test tests/e2e/gguf.spec.ts`) runs in whichever project holds it.
 */
const MODEL_SPECS = ['gguf.spec.ts', 'gguf-reader.spec.ts', 'reader.spec.ts'];

export default defineConfig({
  testDir: 'tests/e2e',
  timeout: 60_000,
  // Two: most specs wait on a page more than they compute, and the GGUF spec's generation overlaps
  // the rest (measured on 2 cores: see docs/development.md). E2E_WORKERS=1 runs them one by one.
  workers: Number(process.env.E2E_WORKERS ?? 2),
  reporter: process.env.CI ? 'list' : 'line',
  globalSetup: './tests/e2e/global-setup.ts',
  projects: [
    { name: 'browser', testIgnore: MODEL_SPECS },
    { name: 'models', testMatch: MODEL_SPECS },
  ],
  use: {
    baseURL: `http://localhost:${PORT}`,
    browserName: 'chromium',
    launchOptions: { executablePath: findChromium(), args: CHROMIUM_ARGS },
  },
  webServer: {
    command: `npx vite --config vite.config.ts --port ${PORT} --strictPort`,
    url: `http://localhost:${PORT}/`,
    reuseExistingServer: !process.env.CI,
    timeout: 60_000,
    env: { HAREL_INDEX_DIR: 'demo/.generated/index', HAREL_NO_HMR: '1' },
  },
});
