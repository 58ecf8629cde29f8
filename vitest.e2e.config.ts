import { defineConfig } from 'vitest/config';

/**
 * The e2e tier (`npm run test:e2e`): generated servers with the SDK's real client over stdio and HTTP, npm installs
 * of init projects, the demo, contract tests run by vitest in scratch projects, import against live servers, watch;
 * and the fuzz tests (test/fuzz: `npm run fuzz` runs them longer).
 */
export default defineConfig({
  test: {
    // The fuzz tests too: random damage through the CLI, and random schemas whose projects the real compiler checks.
    include: ['test/e2e/**/*.test.ts', 'test/fuzz/**/*.test.ts'],
    exclude: ['test/fixtures/**', 'test/.tmp/**', '**/node_modules/**'],
    testTimeout: 60_000,
    hookTimeout: 120_000,
    update: 'none',
  },
});
