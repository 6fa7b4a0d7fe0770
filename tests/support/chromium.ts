/** The tests drive the same Chromium the builder finds (builder/browser/chromium.ts). */
export { CHROMIUM_ARGS, findChromium, locateChromium } from '../../builder/browser/chromium.ts';
