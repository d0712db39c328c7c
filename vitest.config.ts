import { defineConfig } from 'vitest/config';
import { spreadWaits } from './test/helpers/sequencer.js';

/**
 * The test files that start processes: the real binary where only a process shows the behaviour (start-up and module
 * loading, signals, kill -9 and time limits, locks across processes, the stop gate as a hook, the MCP server, two
 * hosts on one store, the README and the demo) or other programs (git, shells, a PostgreSQL proxy). Every other file
 * runs the shipped bundle in-process (test/helpers/cli.ts `run`); there a helper that would start the binary throws,
 * naming this list.
 */
export const PROCESS = [
  'test/cli/gate-bundle.test.ts',
  'test/cli/gate-failopen.test.ts',
  'test/cli/gate-hooks-config.test.ts',
  'test/cli/gate-l2.test.ts',
  'test/cli/gate-watchdog.test.ts',
  'test/cli/pg-*.test.ts',
  'test/cli/mcp*.test.ts',
  'test/cli/node-range.test.ts',
  'test/cli/code-cache-key.test.ts',
  'test/cli/watchdog-answer.test.ts',
  'test/mcp/*.test.ts',
  'test/cli/autocomplete.test.ts',
  'test/cli/approval-binding.test.ts',
  'test/cli/approval-lifecycle.test.ts',
  'test/cli/demo-pg.test.ts',
  'test/cli/dispatched-mirror.test.ts',
  'test/cli/drafts-concurrency.test.ts',
  'test/cli/drafts-store.test.ts',
  'test/cli/evidence-add.test.ts',
  'test/cli/evidence-run-capture.test.ts',
  'test/cli/finalize.test.ts',
  'test/cli/framework-audit.test.ts',
  'test/cli/framework.test.ts',
  'test/cli/full-disk.test.ts',
  'test/cli/gc-debris.test.ts',
  'test/cli/gc.test.ts',
  'test/cli/help-docs.test.ts',
  'test/cli/help-text.test.ts',
  'test/cli/hooks-docs.test.ts',
  'test/cli/hooks-install.test.ts',
  'test/cli/hooks-test.test.ts',
  'test/cli/hooks-restore.test.ts',
  'test/cli/oclif.test.ts',
  'test/cli/package-install.test.ts',
  'test/cli/read-only-root.test.ts',
  'test/cli/readme-quickstart.test.ts',
  'test/cli/receipts-append-skip.test.ts',
  'test/cli/receipts-store.test.ts',
  'test/cli/receipts-verify.test.ts',
  'test/cli/receipts-watchdog.test.ts',
  'test/cli/startup.test.ts',
  'test/cli/ui.test.ts',
  'test/cli/stdin-read.test.ts',
  'test/cli/store-errors.test.ts',
  'test/drafts/files-lock.test.ts',
  'test/gate/budget.test.ts',
  'test/gate/hook-input-limit.test.ts',
  'test/harnesses/install.test.ts',
  'test/meta/typecheck-lint.test.ts',
  'test/store/interface/tooling.test.ts',
  'test/store/multi-host.test.ts',
  'test/store/repositories.test.ts',
];

/**
 * The files that replace modules (`vi.mock`) or their exports (`vi.spyOn`): they run isolated, each in a fresh
 * process, so a replaced module never reaches another file (test/meta/vitest-projects.test.ts keeps this list true).
 * The other files are not isolated: a worker runs file after file with its modules kept, the loaded bundle and its
 * worker thread among them, so they load once per worker, not once per file. Isolated, the in-process files alone took
 * 120 CPU-s, against 72; in alternating runs of the whole suite, every file isolated on three workers took 214 and
 * 207 s (355 and 334 CPU-s), this set-up 158 and 151 s (276 and 267 CPU-s).
 */
export const MOCKING = [
  'test/drafts/lock-wait.test.ts',
  'test/drafts/write-closed-tip.test.ts',
  'test/drafts/write-lock-hold.test.ts',
  'test/drafts/write-pipeline.test.ts',
  'test/ids.test.ts',
  'test/store/finalize-write.test.ts',
];

/**
 * The files that spend most of their time waiting out a time limit (a lock held for its full wait, a busy timeout, a
 * server that stops answering, a command's timeout), with about how many seconds each waits in all. The pool starts
 * them spread out, at most two at a time (test/helpers/sequencer.ts), so that the other workers keep both cores busy.
 */
export const WAITING: Readonly<Record<string, number>> = {
  'test/cli/pg-timeouts.test.ts': 50,
  'test/cli/gate-failopen.test.ts': 20,
  'test/cli/drafts-concurrency.test.ts': 15,
  'test/cli/store-errors.test.ts': 15,
  'test/cli/lock-forms.test.ts': 15,
  'test/store/interface/concurrency.test.ts': 10,
  'test/drafts/lock-wait.test.ts': 9,
  'test/cli/receipts-run.test.ts': 8,
  'test/cli/gate-watchdog.test.ts': 5,
  'test/cli/receipts-watchdog.test.ts': 5,
  'test/receipts/spawn.test.ts': 5,
  'test/gate/store-repos.test.ts': 5,
};

/** The files that run longest without mostly waiting, with about how many seconds each takes: started first. */
export const LONG: Readonly<Record<string, number>> = {
  'test/cli/pg-parallel-adds.test.ts': 60,
  'test/cli/demo-pg.test.ts': 25,
  'test/cli/mcp.test.ts': 20,
  'test/cli/finalize.test.ts': 11,
  'test/cli/pg-verbs.test.ts': 10,
  'test/meta/typecheck-lint.test.ts': 10,
  'test/mcp/output-schema.test.ts': 6,
  'test/cli/startup.test.ts': 6,
  'test/cli/read-only-root.test.ts': 6,
};

/** The pool's size (maxWorkers below), which the sequencer's simulation also needs. */
const WORKERS = 4;

const shared = {
  // A budget for hangs, never a speed bar: under three copies of the suite on 2 cores a test that spawns a few dozen
  // CLI processes against a real server took 60 s (pg-verbs, finalize racing decide).
  testTimeout: 300_000,
  hookTimeout: 300_000,
};

export default defineConfig({
  test: {
    // pg-global-setup first: its server's temp folder goes beside the suite's private one (test/helpers/temp-base.ts),
    // not in it. Run once, for the root project; the projects below do not extend this config, since a project that
    // did would run them again (with three projects, four PostgreSQL servers and a private temp folder nested four
    // deep). What the setups provide reaches every project through the root's.
    globalSetup: ['test/helpers/pg-global-setup.ts', 'test/helpers/global-setup.ts'],
    // Four workers on 2 cores, all projects' files in one pool, one project's after another's (a worker keeps its
    // loaded modules only from one file to the next of the same project). Many files wait part of the time (on locks,
    // time limits, servers and the processes they start), and the other workers use the CPU they leave; the files that
    // mostly wait are spread out (WAITING). On an idle machine the suite took 154 s on three workers, 136 s on four
    // and 142 s on five.
    maxWorkers: WORKERS,
    // At most two waiting files at a time; a file vitest has no record of, and not listed, is guessed at its project's
    // usual length.
    sequence: {
      sequencer: spreadWaits({
        waiting: WAITING,
        long: LONG,
        guess: { 'in-process': 1, mocking: 2, process: 5 },
        slots: WORKERS,
        cap: 2,
      }),
    },
    projects: [
      {
        test: {
          ...shared,
          name: 'in-process',
          include: ['test/**/*.test.ts'],
          exclude: [...PROCESS, ...MOCKING],
          isolate: false,
          env: { HANDOFF_TEST_PROJECT: 'in-process' },
        },
      },
      {
        test: { ...shared, name: 'mocking', include: MOCKING, env: { HANDOFF_TEST_PROJECT: 'in-process' } },
      },
      {
        test: {
          ...shared,
          name: 'process',
          include: PROCESS,
          isolate: false,
          env: { HANDOFF_TEST_PROJECT: 'process' },
        },
      },
    ],
  },
});
