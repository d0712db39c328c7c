/**
 * The PostgreSQL store keeps no session state, so it works behind a transaction pooler: no limit is sent at connect,
 * every lock is transaction-scoped with a key the client computes, the migration lock lives inside each migration's
 * transaction (and is not taken on a current schema), the transaction clock starts after its lock waits, and a
 * connection dropped mid-call is STORE_UNREACHABLE, never a crash. The same rules are run through a real PgBouncer
 * by the pooler suite (test/poolers/).
 */
import { createHash } from 'node:crypto';
import { copyFileSync, mkdtempSync } from 'node:fs';
import { join } from 'node:path';
import { tmpdir } from 'node:os';
import { createServer, type Socket } from 'node:net';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { listMigrations } from '../../src/store/migrate.js';
import { openStore } from '../../src/store/open-store.js';
import { PG_MIGRATIONS_DIR } from '../../src/store/pg-migrate.js';
import type { Run } from '../../src/store/pg-driver.js';
import { contractLockKey, LOCK_SPACE } from '../../src/store/pg-locks.js';
import type { Store } from '../../src/store/store.js';
import { dropDatabase, freshDatabase, freshSchema, sql } from '../helpers/pg.js';
import { rejection } from '../helpers/store-backends.js';

const AGENT = 'a0123456789abcdef';
const ID = `${AGENT}.0123456789ab`;
/** The migration runner's lock key (ASCII "handmigr"). */
const MIGRATION_LOCK = '7521414230296848242';

let dbUrl: string;
beforeAll(async () => {
  dbUrl = await freshDatabase();
});
afterAll(async () => {
  await dropDatabase(dbUrl);
});

const rawRun = (t: unknown): Run => (t as { run: Run }).run;

async function writer(url: string, timeoutMs = '4000'): Promise<Store> {
  const s = await openStore({ HANDOFF_STORE_URL: url, HANDOFF_STORE_TIMEOUT_MS: timeoutMs }, undefined, 'writer', {
    create: true,
  });
  if (s === null) throw new Error('no store');
  return s;
}

/** Polls `probe` until it is true; a hang ends the test by its own timeout. */
async function until(probe: () => Promise<boolean>): Promise<void> {
  while (!(await probe())) await new Promise((done) => setTimeout(done, 10));
}

/** Advisory locks on the server in the database of `url` (other test files run beside this one, in theirs). */
const advisoryLocks = async (url: string): Promise<number> =>
  Number(
    (
      await sql<{ n: number }>(
        url,
        "SELECT COUNT(*)::int AS n FROM pg_locks WHERE locktype = 'advisory' AND database = (SELECT oid FROM pg_database WHERE datname = current_database())",
      )
    )[0].n,
  );

describe('no session state', () => {
  it('the start-up message carries no setting a pooler refuses (no statement, lock or idle limit)', async () => {
    let startup: Buffer | undefined;
    const sockets: Socket[] = [];
    const server = createServer((socket) => {
      sockets.push(socket);
      socket.once('data', (chunk: Buffer) => {
        startup = chunk;
        socket.destroy();
      });
    });
    await new Promise<void>((done) => server.listen(0, '127.0.0.1', done));
    const { port } = server.address() as { port: number };
    try {
      const e = await rejection(writer(`postgres://u:p@127.0.0.1:${port}/db`, '2000'));
      expect(e).toMatchObject({ code: 'STORE_UNREACHABLE', exit: 4 });
      expect(startup).toBeDefined();
      // int32 length, int32 protocol, then NUL-terminated name/value pairs.
      const fields = startup!.subarray(8).toString('utf8').split('\0');
      const names = fields.filter((_, i) => i % 2 === 0 && fields[i] !== '');
      expect(names).toContain('user');
      expect(names).not.toContain('statement_timeout');
      expect(names).not.toContain('lock_timeout');
      expect(names).not.toContain('idle_in_transaction_session_timeout');
      expect(names).not.toContain('options');
    } finally {
      for (const s of sockets) s.destroy();
      server.close();
    }
  });

  it('a transaction sets its limits locally: after COMMIT the pooled connection has none', async () => {
    const s = await writer(await freshSchema(dbUrl));
    try {
      const q = 'SELECT pg_backend_pid() AS pid, current_setting($1) AS limit';
      const inside = await s.tx(async (t) => (await rawRun(t)(q, ['statement_timeout'])).rows[0]);
      expect(inside).toMatchObject({ limit: '4s' });
      // The pool kept that one connection: what the transaction set is gone with it.
      expect((await rawRun(s)(q, ['statement_timeout'])).rows[0]).toEqual({ ...inside, limit: '0' });
    } finally {
      await s.close();
    }
  });

  it('the contract lock is transaction-scoped, keyed by the documented client-side hash, and gone after COMMIT', async () => {
    const url = await freshSchema(dbUrl);
    const s = await writer(url);
    try {
      expect(contractLockKey(ID)).toBe(createHash('sha256').update(ID, 'utf8').digest().readInt32BE(0));
      expect(LOCK_SPACE).toBe(Buffer.from('hand').readInt32BE(0));
      const held = await s.tx(
        async () =>
          sql<{ classid: string; objid: string; objsubid: number }>(
            url,
            "SELECT classid::text, objid::text, objsubid FROM pg_locks WHERE locktype = 'advisory' AND database = (SELECT oid FROM pg_database WHERE datname = current_database()) AND granted",
          ),
        { lock: ID },
      );
      // Two int4 keys: classid holds the first, objid the second (as an oid), objsubid 2.
      expect(held).toEqual([{ classid: String(LOCK_SPACE), objid: String(contractLockKey(ID) >>> 0), objsubid: 2 }]);
      expect(await advisoryLocks(url)).toBe(0);
      // A failing transaction releases it too.
      await rejection(s.tx(() => Promise.reject(new Error('boom')), { lock: ID }));
      expect(await advisoryLocks(url)).toBe(0);
    } finally {
      await s.close();
    }
  });

  it('a transaction that waited for a lock is stamped after the wait (its clock starts once it holds the lock)', async () => {
    const url = await freshSchema(dbUrl);
    const a = await writer(url);
    const b = await writer(url);
    try {
      let release!: () => void;
      const gate = new Promise<void>((done) => (release = done));
      let holding!: () => void;
      const held = new Promise<void>((done) => (holding = done));
      const first = a.tx(
        async () => {
          holding();
          await gate;
        },
        { lock: ID },
      );
      await held;
      const second = b.tx((t) => t.now(), { lock: ID });
      await until(
        async () =>
          Number(
            (
              await sql<{ n: number }>(
                url,
                "SELECT COUNT(*)::int AS n FROM pg_locks WHERE locktype = 'advisory' AND database = (SELECT oid FROM pg_database WHERE datname = current_database()) AND NOT granted",
              )
            )[0].n,
          ) === 1,
      );
      const during = (await sql<{ now: string }>(url, 'SELECT handoff_now() AS now'))[0].now;
      release();
      await first;
      expect((await second) > during).toBe(true);
    } finally {
      await a.close();
      await b.close();
    }
  });
});

describe('the migration lock', () => {
  it('is not taken on a current schema: a writer opens while another session holds it', async () => {
    const url = await freshSchema(dbUrl);
    await (await writer(url)).close();
    const holder = new pg.Client({ connectionString: url });
    await holder.connect();
    try {
      await holder.query('SELECT pg_advisory_lock($1::bigint)', [MIGRATION_LOCK]);
      const s = await writer(url, '2000');
      await s.close();
    } finally {
      await holder.end();
    }
  });

  it('is taken inside each migration: an older schema waits for it (STORE_BUSY), applies nothing, and leaves no lock', async () => {
    const url = await freshSchema(dbUrl);
    // A store one migration behind: made with every migration but the last (which need not be re-appliable).
    const older = mkdtempSync(join(tmpdir(), 'handoff-older-migrations-'));
    const files = listMigrations(PG_MIGRATIONS_DIR);
    for (const m of files.slice(0, -1)) copyFileSync(m.path, join(older, m.name));
    const made = await openStore({ HANDOFF_STORE_URL: url }, undefined, 'writer', {
      create: true,
      migrationsDir: older,
    });
    await made?.close();
    const holder = new pg.Client({ connectionString: url });
    await holder.connect();
    try {
      await holder.query('SELECT pg_advisory_lock($1::bigint)', [MIGRATION_LOCK]);
      const before = await sql<{ v: number }>(url, 'SELECT MAX(version)::int AS v FROM schema_version');
      expect(await rejection(writer(url, '2000'))).toMatchObject({ code: 'STORE_BUSY', exit: 4 });
      expect(await sql(url, 'SELECT MAX(version)::int AS v FROM schema_version')).toEqual(before);
      await holder.query('SELECT pg_advisory_unlock($1::bigint)', [MIGRATION_LOCK]);
      const s = await writer(url, '2000');
      expect(s.version).toBe(before[0].v + 1);
      expect(await advisoryLocks(url)).toBe(0);
      await s.close();
    } finally {
      await holder.end();
    }
  });
  it('four writers creating one store at once: each migration applied once, none fails (a waiter sees what the holder committed)', async () => {
    // A migrator waits for the lock inside its transaction, after it looked for the schema: the holder's tables must
    // be seen from the catalog itself, not from a name cache filled before the wait (which applied 0001 twice).
    const failures: string[] = [];
    for (let round = 0; round < 12; round++) {
      const url = await freshSchema(dbUrl);
      const opened = await Promise.allSettled([1, 2, 3, 4].map(() => writer(url, '60000')));
      for (const o of opened) {
        if (o.status === 'rejected') failures.push((o.reason as Error).message);
        else await o.value.close();
      }
      expect(await sql(url, 'SELECT COUNT(*)::int AS n FROM schema_version')).toEqual([
        { n: listMigrations(PG_MIGRATIONS_DIR).length },
      ]);
    }
    expect(failures).toEqual([]);
  });
});

describe('a connection dropped mid-call', () => {
  it('is STORE_UNREACHABLE (exit 4), never a crash; nothing of the transaction is written', async () => {
    const url = await freshSchema(dbUrl);
    const s = await writer(url);
    try {
      const e = await rejection(
        s.tx(
          async (t) => {
            await t.upsertFinalRow({
              contract_id: ID,
              agent_id: AGENT,
              workspace: 'ws',
              agent_state: 'BLOCKED',
              json: '{}',
              plan_task_id: null,
            });
            const pid = (await rawRun(t)<{ pid: number }>('SELECT pg_backend_pid() AS pid')).rows[0].pid;
            // Ended while the call holds the connection between two statements (an idle transaction): the server's
            // notice and the socket's end reach the client with no statement running, as an 'error' event.
            await sql(url, 'SELECT pg_terminate_backend($1)', [pid]);
            await until(
              async () => (await sql(url, 'SELECT 1 FROM pg_stat_activity WHERE pid = $1', [pid])).length === 0,
            );
            await t.now();
          },
          { attempts: 1 },
        ),
      );
      expect(e).toMatchObject({ code: 'STORE_UNREACHABLE', exit: 4 });
      expect(await s.getHandoffByContractId(ID)).toBeUndefined();
      // The store still works: the pool drops the dead connection and opens another.
      expect(await s.tx((t) => t.now())).toMatch(/Z$/);
    } finally {
      await s.close();
    }
  });
});
