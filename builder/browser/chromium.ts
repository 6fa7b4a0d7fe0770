/**
 * Finds a Chromium to drive: an explicit path, then $CHROMIUM_PATH, then a browser installed by
 * `npx playwright install chromium`, then Debian's `chromium` on the PATH. The crawler renders
 * pages with it; the browser tests and evals run the widget in it.
 */
import { accessSync, constants } from 'node:fs';
import { delimiter, join } from 'node:path';

const NAMES = ['chromium', 'chromium-browser', 'google-chrome', 'google-chrome-stable'];

function isExecutable(path: string): boolean {
  try {
    accessSync(path, constants.X_OK);
    return true;
  } catch {
    return false;
  }
}

/** The executable path, or null when there is none anywhere. */
export function locateChromium(options: { explicit?: string; playwrightPath?: string } = {}): string | null {
  if (options.explicit) return options.explicit;
  const fromEnv = process.env.CHROMIUM_PATH;
  if (fromEnv) return fromEnv;
  if (options.playwrightPath && isExecutable(options.playwrightPath)) return options.playwrightPath;
  for (const dir of (process.env.PATH ?? '').split(delimiter)) {
    for (const name of NAMES) {
      const candidate = join(dir, name);
      if (isExecutable(candidate)) return candidate;
    }
  }
  return null;
}

export function findChromium(): string {
  const found = locateChromium();
  if (found) return found;
  throw new Error('No Chromium found. Install it (apt-get install -y chromium) or set CHROMIUM_PATH to its executable.');
}

/** Flags measured to work here (see the notes): WebGPU on a software adapter, no background traffic. */
export const CHROMIUM_ARGS = ['--no-sandbox', '--disable-background-networking', '--disable-component-update', '--disable-sync', '--no-first-run', '--enable-unsafe-webgpu'];
