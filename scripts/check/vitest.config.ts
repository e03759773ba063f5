import { defineConfig } from 'vitest/config';

// `npm run catalog:check` only (see the test file for why it is not part of `npm test`).
export default defineConfig({
  test: { root: new URL('../..', import.meta.url).pathname, include: ['scripts/check/**/*.test.ts'], testTimeout: 300_000 },
});
