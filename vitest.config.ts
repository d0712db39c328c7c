import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    // pg-global-setup first: its server's temp folder goes in the machine's temp folder, not the suite's private one.
    globalSetup: ['test/helpers/pg-global-setup.ts', 'test/helpers/global-setup.ts'],
    // A budget for hangs, never a speed bar (amendments-2.md §H14): under three copies of the suite on 2 cores a
    // test that spawns a few dozen CLI processes against a real server took 60 s (pg-verbs, finalize racing decide).
    testTimeout: 300_000,
    hookTimeout: 300_000,
    // CLI tests spawn many processes; the machine has 2 cores.
    maxWorkers: 2,
  },
});
