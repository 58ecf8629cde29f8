import { defineConfig } from 'vitest/config';

/**
 * The e2e tier (`npm run test:e2e`): generated servers with the SDK's real client over stdio and HTTP, npm installs
 * of init projects, the demo, contract tests run by vitest in scratch projects, import against live servers, watch.
 */
export default defineConfig({
  test: {
    include: ['test/e2e/**/*.test.ts'],
    exclude: ['test/fixtures/**', 'test/.tmp/**', '**/node_modules/**'],
    testTimeout: 60_000,
    hookTimeout: 120_000,
    update: 'none',
  },
});
