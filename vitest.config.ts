import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    // Golden outputs hold generated examples.test.ts files: they are data here, run by test/examples.test.ts.
    exclude: ['test/fixtures/**', 'test/.tmp/**', '**/node_modules/**'],
    testTimeout: 60_000,
    hookTimeout: 120_000,
  },
});
