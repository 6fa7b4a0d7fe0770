/**
 * Finds the Chromium the browser tests drive: $CHROMIUM_PATH first, then Debian's `chromium` on
 * the PATH. Playwright's own browser download cannot work offline, so it is never used.
 */
import { accessSync, constants } from 'node:fs';
import { delimiter, join } from 'node:path';

const NAMES = ['chromium', 'chromium-browser', 'google-chrome'];

export function findChromium(): string {
  const fromEnv = process.env.CHROMIUM_PATH;
  if (fromEnv) return fromEnv;
  for (const dir of (process.env.PATH ?? '').split(delimiter)) {
    for (const name of NAMES) {
      const candidate = join(dir, name);
      try {
        accessSync(candidate, constants.X_OK);
        return candidate;
      } catch {
        // keep looking
      }
    }
  }
  throw new Error('No Chromium found. Install it (apt-get install -y chromium) or set CHROMIUM_PATH to its executable.');
}

/** Flags measured to work here (see the notes): WebGPU on a software adapter, no background traffic. */
export const CHROMIUM_ARGS = [
  '--no-sandbox',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
  '--no-first-run',
  '--enable-unsafe-webgpu',
];
