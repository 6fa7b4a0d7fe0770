/** `harel-builder fixture-embedder --out <dir>`: writes the tiny TEST embedder (not E5) for offline tests and the demo. */
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { createError } from '../errors.ts';
import { writeTinyEmbedder } from '../../tests/fixtures/tiny-embedder/write-tiny-embedder.ts';
import { FIXTURE_EMBEDDER } from '../embed/defaults.ts';

export async function fixtureEmbedderCommand(argv: string[]): Promise<number> {
  const { values } = parseArgs({ args: argv, options: { out: { type: 'string' }, quiet: { type: 'boolean' } } });
  if (!values.out) throw createError('BAD_ARGUMENT', 'fixture-embedder needs --out <dir> (the model goes to <dir>/fixture/tiny-embedder).');
  const target = join(values.out, FIXTURE_EMBEDDER);
  await writeTinyEmbedder(target);
  if (!values.quiet) process.stdout.write(`wrote the test embedder ${FIXTURE_EMBEDDER} to ${target} (a fixture for offline tests, not E5)\n`);
  return 0;
}
