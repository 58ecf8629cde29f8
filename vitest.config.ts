import { defineConfig } from 'vitest/config';

/**
 * The fast tier (`npm test`): the generator, the checks and the CLI, in process where a process is not the point.
 * What needs npm installs, real servers, long waits or the fuzzers is the e2e tier (vitest.e2e.config.ts,
 * `npm run test:e2e`).
 */
export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    // Golden outputs hold generated examples.test.ts files: they are data here, run by test/e2e/examples.test.ts.
    // The fuzz tests (random damage, random schemas compiled by the real compiler) run in the e2e tier.
    exclude: ['test/e2e/**', 'test/fuzz/**', 'test/fixtures/**', 'test/.tmp/**', '**/node_modules/**'],
    // vitest's default leaves one core idle: on a 2-core machine that is one worker for the whole suite.
    maxWorkers: '100%',
    // One module graph per worker, shared by its test files: importing the compiler, prettier and ajv once per
    // worker, not once per file, is a third of the tier's time. Tests keep no state in modules between files.
    isolate: false,
    pool: 'threads',
    testTimeout: 30_000,
    hookTimeout: 30_000,
    // A missing golden fails instead of being written: `npx vitest run -u` writes goldens, on purpose.
    update: 'none',
  },
});
