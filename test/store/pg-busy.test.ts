/**
 * A full PostgreSQL server is busy, not down: a connection refused with "too many clients" (53300; here a role's
 * connection limit, which the server refuses with the same code) is retried with backoff within the call's budget
 * (HANDOFF_STORE_TIMEOUT_MS), then STORE_BUSY (exit 4); a server with room again within it is simply used.
 */
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { GateStore } from '../../src/gate/gate-store.js';
import { openStore } from '../../src/store/open-store.js';
import { isTooManyClients, toPgStoreError } from '../../src/store/pg-errors.js';
import { dropDatabase, freshDatabase, serverUrl, sql } from '../helpers/pg.js';
import { rejection } from '../helpers/store-backends.js';

let dbUrl: string;
let roleUrl: string;
const role = `handoff_one_${process.pid}`;

beforeAll(async () => {
  dbUrl = await freshDatabase();
  await sql(dbUrl, `CREATE ROLE ${role} LOGIN PASSWORD 'one' CONNECTION LIMIT 1`);
  await sql(dbUrl, `GRANT ALL ON SCHEMA public TO ${role}`);
  const u = new URL(dbUrl);
  u.username = role;
  u.password = 'one';
  roleUrl = u.toString();
  // The store, created by its own role while nothing else holds the one connection.
  const s = await openStore({ HANDOFF_STORE_URL: roleUrl }, undefined, 'writer', { create: true });
  await s?.close();
});
afterAll(async () => {
  await dropDatabase(dbUrl);
  await sql(serverUrl(), `DROP ROLE IF EXISTS ${role}`);
});

/** Holds the role's one connection until `release`. */
async function holdTheSlot(): Promise<() => Promise<void>> {
  const c = new pg.Client({ connectionString: roleUrl });
  await c.connect();
  return () => c.end();
}

describe('too many clients', () => {
  it('is told apart from a server that is down: STORE_BUSY, not STORE_UNREACHABLE', async () => {
    const release = await holdTheSlot();
    try {
      const c = new pg.Client({ connectionString: roleUrl });
      const e = await c.connect().then(
        () => undefined,
        (failure: unknown) => failure,
      );
      await c.end().catch(() => undefined);
      expect(isTooManyClients(e)).toBe(true);
      expect(toPgStoreError(e, 'the-store')).toMatchObject({ code: 'STORE_BUSY', exit: 4 });
    } finally {
      await release();
    }
  });

  it('is retried within the budget, then STORE_BUSY (exit 4), with no write', async () => {
    const release = await holdTheSlot();
    try {
      const started = Date.now();
      const e = await rejection(
        openStore({ HANDOFF_STORE_URL: roleUrl, HANDOFF_STORE_TIMEOUT_MS: '1200' }, undefined, 'writer'),
      );
      const ms = Date.now() - started;
      expect(e).toMatchObject({ code: 'STORE_BUSY', exit: 4 });
      expect(e.message).toContain('HANDOFF_STORE_TIMEOUT_MS');
      // It tried for its budget (not once), and gave up by it (a hang is caught here, not a slow machine).
      expect(ms).toBeGreaterThanOrEqual(600);
      expect(ms).toBeLessThan(30_000);
    } finally {
      await release();
    }
  });

  it('a server with room again within the budget is used: the call succeeds', async () => {
    const release = await holdTheSlot();
    // The slot frees while the store is retrying (its budget is 20 s; the holder leaves after 300 ms).
    const freed = new Promise<void>((done) => setTimeout(() => void release().then(done), 300));
    const s = await openStore({ HANDOFF_STORE_URL: roleUrl, HANDOFF_STORE_TIMEOUT_MS: '20000' }, undefined, 'writer');
    try {
      expect(await s!.tx((t) => t.now())).toMatch(/Z$/);
    } finally {
      await s?.close();
      await freed;
    }
  });

  it('the stop gate makes one attempt: a full server is STORE_BUSY at once, where a verb would retry into the room', async () => {
    const env = { HANDOFF_STORE_URL: roleUrl, HANDOFF_STORE_TIMEOUT_MS: '20000' };
    // The slot frees 5 s in: a verb retrying within its 20 s budget gets in (the test above), the gate does not wait.
    const first = await holdTheSlot();
    const freed = new Promise<void>((done) => setTimeout(() => void first().then(done), 5000));
    const e = await rejection(GateStore.open(env, process.cwd()));
    expect(e).toMatchObject({ code: 'STORE_BUSY', exit: 4 });
    await freed;
    // The same open with retries (a verb's writer) and the slot held then freed 5 s in: it waits and succeeds.
    const second = await holdTheSlot();
    const freedAgain = new Promise<void>((done) => setTimeout(() => void second().then(done), 5000));
    const s = await openStore(env, undefined, 'writer', { migrate: false });
    try {
      expect(s).not.toBeNull();
    } finally {
      await s?.close();
      await freedAgain;
    }
  });
});
