/** Builds what the browser tests serve: the test embedder and the demo corpus's index. */
import { prepareDemo } from '../../demo/scripts/prepare-demo.ts';

export default async function globalSetup(): Promise<void> {
  await prepareDemo({ quiet: true });
}
