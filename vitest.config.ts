import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    // pg-global-setup first: its server's temp folder goes in the machine's temp folder, not the suite's private one.
    globalSetup: ['test/helpers/pg-global-setup.ts', 'test/helpers/global-setup.ts'],
    testTimeout: 60_000,
    hookTimeout: 60_000,
    // CLI tests spawn many processes; the machine has 2 cores.
    maxWorkers: 2,
  },
});
