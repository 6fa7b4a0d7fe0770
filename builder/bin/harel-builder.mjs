#!/usr/bin/env node
// The builder is written in TypeScript and run from source through tsx's loader, so a clean
// clone works after `npm ci` with no compile step.
import { register } from 'tsx/esm/api';

register();
const { main } = await import('../cli.ts');
process.exitCode = await main(process.argv.slice(2));
