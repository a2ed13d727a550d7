import path from 'node:path';
import { defineConfig } from 'vitest/config';
import { findWebEntries, writeWebExtensions } from './src/kernel/generate/web-extensions.ts';

// the client modules unit tests import reach the apps' web code through the generated list, as in the build
const extensions = path.resolve('generated/web-extensions.ts');
writeWebExtensions(extensions, findWebEntries(path.resolve('src/apps')));

export default defineConfig({
  resolve: {
    // graphql 16 ships CJS (`main`) and ESM (`module`) builds and no `exports` map. Node, and so
    // yoga and Pothos, load the CJS one; Vite would hand our sources the ESM one — a second
    // graphql instance whose classes fail instanceof/realm checks. One instance for everyone:
    alias: [
      { find: /^graphql$/, replacement: 'graphql/index.js' },
      { find: '@fw/extensions', replacement: extensions },
      { find: '@fw/web', replacement: path.resolve('web/src/extend.ts') },
      { find: '@fw/gql', replacement: path.resolve('web/src/gql/index.ts') },
    ],
  },
  test: {
    include: ['tests/**/*.test.ts'],
    // builds web/dist when it is missing (the browser tests of tests/web/ serve it)
    globalSetup: ['tests/web/global-setup.ts'],
    testTimeout: 30_000,
    // a poll waits for something a person would see (a live update, a refetch): on a loaded CI
    // box that can take longer than the 1 s default
    expect: { poll: { timeout: 10_000 } },
    hookTimeout: 60_000,
    pool: 'forks',
    // two test files at a time, whatever the core count: vitest's default (cores − 1) runs one at
    // a time on the 2-core CI machines, though most files wait on servers, browsers and child
    // processes; two ran the whole suite green in 2,004 s under a load average of 12 (1,769 s
    // for one file at a time on a quiet machine). Every file has its own ports, temp folders,
    // PostgreSQL prefixes and tenants, so files do not share state
    maxWorkers: 2,
  },
});
