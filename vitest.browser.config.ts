import { defineConfig } from 'vitest/config';

// The page of `handoff ui` in a real headless Chromium (`npm run test:browser`, which builds first): Debian's
// `chromium` package driven by playwright-core. Its files end in .browser.ts so the main suite's test/**/*.test.ts
// never picks them up; where CI runs them is its own choice. Without the browser they fail, naming the package.
export default defineConfig({
  test: {
    include: ['test/ui/**/*.browser.ts'],
    // Every temp folder (data roots, the browser's profile) under one folder, removed afterwards.
    globalSetup: ['test/helpers/global-setup.ts'],
    // A budget for hangs only: a browser start on a busy 2-core machine takes seconds.
    testTimeout: 300_000,
    hookTimeout: 300_000,
    // One browser at a time.
    fileParallelism: false,
    maxWorkers: 1,
  },
});
