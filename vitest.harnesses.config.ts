import { defineConfig } from 'vitest/config';

// The real-harness suite (`npm run test:harnesses`, through scripts/harnesses/run.mjs, which installs the harnesses
// first). Its files end in .harness.ts so the main suite's test/**/*.test.ts never picks them up.
export default defineConfig({
  test: {
    include: ['test/harnesses/**/*.harness.ts'],
    // Every temp folder (data roots, each run's HOME and project) under one folder, removed afterwards.
    globalSetup: ['test/helpers/global-setup.ts'],
    // A budget for hangs only: each harness run has its own timeout (test/harnesses/drive.ts).
    testTimeout: 600_000,
    hookTimeout: 60_000,
    // One harness at a time: each starts a Node or native process tree of its own and the machine has 2 cores.
    fileParallelism: false,
    maxWorkers: 1,
  },
});
