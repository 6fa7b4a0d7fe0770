import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    // experiments/ keeps its own tests beside the scripts they cover (experiments/README.md).
    include: ['tests/unit/**/*.test.ts', 'experiments/**/*.test.ts'],
    globalSetup: ['tests/models/unit-setup.ts'],
    environment: 'node',
    // The real-corpus tests read PDFs and thousands of pages: give them room on a 2-core machine.
    testTimeout: 60_000,
    hookTimeout: 120_000,
    pool: 'forks',
    // Vitest runs one file at a time on 2 cores (its default is the cores less one); most of the
    // slow files wait on a child process or a browser, so two at once fit these 2 cores.
    maxWorkers: 2,
  },
});
