import { defineConfig } from 'vitest/config';

// The tests are TypeScript sources: the contract tests generated from the spec's examples
// (src/generated/examples.test.ts) and yours in test/. Never their compiled copies in dist/.
// A project made beside an existing spec may have no test yet: that passes (tsc still checks every handler).
export default defineConfig({
  test: { include: ['src/**/*.test.ts', 'test/**/*.test.ts'], passWithNoTests: true },
});
