import { defineConfig } from 'vitest/config';

/**
 * The fast tier (`npm test`): the generator, the checks and the CLI, in process where a process is not the point.
 * What needs npm installs, real servers or long waits is the e2e tier (vitest.e2e.config.ts, `npm run test:e2e`).
 */
export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    // Golden outputs hold generated examples.test.ts files: they are data here, run by test/e2e/examples.test.ts.
    exclude: ['test/e2e/**', 'test/fixtures/**', 'test/.tmp/**', '**/node_modules/**'],
    // vitest's default leaves one core idle: on a 2-core machine that is one worker for the whole suite.
    maxWorkers: '100%',
    testTimeout: 30_000,
    hookTimeout: 30_000,
    // A missing golden fails instead of being written: `npx vitest run -u` writes goldens, on purpose.
    update: 'none',
  },
});
