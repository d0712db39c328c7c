import { defineConfig } from 'vitest/config';

// The PostgreSQL store behind a stock PgBouncer (`npm run test:poolers`, which builds first; CI runs it once, on Node
// 24): test/poolers/*.pooler.ts, which the main suite's test/**/*.test.ts never picks up. The suite's PostgreSQL
// server as `npm test` starts it; PgBouncer is Debian's package, fetched into a cache outside the repository
// (test/poolers/pgbouncer.ts). Without it the suite fails, naming the package.
export default defineConfig({
  test: {
    include: ['test/poolers/**/*.pooler.ts'],
    globalSetup: ['test/helpers/pg-global-setup.ts', 'test/helpers/global-setup.ts'],
    // The verbs run as processes (hosts, racing finalizes) or through the bundle in a worker thread.
    env: { HANDOFF_TEST_PROJECT: 'process' },
    // A budget for hangs only: the runs start hundreds of verbs on a busy 2-core machine.
    testTimeout: 300_000,
    hookTimeout: 300_000,
    fileParallelism: false,
    maxWorkers: 1,
  },
});
