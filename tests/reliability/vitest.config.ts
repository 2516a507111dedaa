import { defineConfig } from 'vitest/config';

// The reliability suite on its own: `npx vitest run --config tests/reliability/vitest.config.ts`, and
// `npm run soak` (scripts/soak.mjs) with DESKHAND_SOAK=1 for the long runs. `npm test` runs the same files
// through the root vitest.config.ts.
const soak = process.env.DESKHAND_SOAK === '1';

export default defineConfig({
  test: {
    root: new URL('../..', import.meta.url).pathname,
    include: ['tests/reliability/**/*.test.ts'],
    environment: 'node',
    testTimeout: soak ? 1_800_000 : 60_000,
    hookTimeout: 120_000,
    fileParallelism: false,
    pool: 'forks',
  },
});
