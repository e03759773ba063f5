#!/usr/bin/env node
// The `occ` command. Sources are TypeScript, loaded through tsx so `npm ci` is the only setup.
import { register } from 'tsx/esm/api';

register();
const { main } = await import('../src/main.ts');
process.exitCode = await main(process.argv.slice(2));
