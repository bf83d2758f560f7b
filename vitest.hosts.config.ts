import { defineConfig } from 'vitest/config';

/** `npm run check:hosts`: static hosts that need programs of their own (nginx, wrangler). */
export default defineConfig({
  test: {
    include: ['test/serve/external-hosts.check.ts'],
    testTimeout: 120_000,
    hookTimeout: 60_000,
  },
});
