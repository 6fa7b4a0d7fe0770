/** Builds what the browser tests serve: the test embedder and the demo corpus's index embedded with it. */
import { prepareTestIndex } from '../../demo/scripts/prepare-demo.ts';

export default async function globalSetup(): Promise<void> {
  await prepareTestIndex({ quiet: true });
}
