/**
 * `npm run bench -- --device-document <pdf>`: a customer's own PDF added to the demo in Chromium
 * with the real E5 (issue 36). The measuring lives with the demo it runs
 * (demo/scripts/device-document-bench.ts, `npm run bench:device-document`), which builds and
 * serves the demo app; the builder never imports demo/, so it is run as its own process and its
 * JSON read back.
 */
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

export interface DeviceDocumentFigures {
  pdf: string;
  /** From `el.addDocument` to its resolving: parsed, chunked, stored, answering by BM25. */
  addedMs: number;
  /** From the same call to every chunk embedded (hybrid). */
  hybridMs: number;
  results: unknown[];
}

export function measureDeviceDocument(pdf: string, questions: readonly string[] = []): DeviceDocumentFigures {
  const dir = mkdtempSync(join(tmpdir(), 'harel-device-bench-'));
  try {
    const out = join(dir, 'figures.json');
    const args = ['--import', 'tsx', 'demo/scripts/device-document-bench.ts', '--pdf', pdf, '--json', out, ...questions.flatMap((q) => ['--question', q])];
    const run = spawnSync(process.execPath, args, { stdio: ['ignore', 'ignore', 'inherit'] });
    if (run.status !== 0) throw new Error(`demo/scripts/device-document-bench.ts exited with ${run.status ?? run.signal}`);
    return JSON.parse(readFileSync(out, 'utf8')) as DeviceDocumentFigures;
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}
