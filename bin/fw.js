#!/usr/bin/env node
// Runs the TypeScript CLI so `npx fw …` works without a build step. tsx is registered in this
// process instead of spawning the tsx CLI, which started two more node processes (its relay and
// the child) before the CLI ran a line.
import { register } from 'tsx/esm/api';

register();
await import('../src/cli.ts');
