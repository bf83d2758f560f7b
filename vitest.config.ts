import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    // Tests crawl real servers on 127.0.0.1; on a busy 2-core machine a few seconds is not a hang.
    testTimeout: 30_000,
    hookTimeout: 60_000,
  },
});
