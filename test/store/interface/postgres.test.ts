/**
 * What only the PostgreSQL store has or does: blobs in the store, STORE_UNREACHABLE with
 * the password redacted, the server's clock, text the server cannot hold, and the schema's parity with SQLite's.
 */
import { createHook } from 'node:async_hooks';
import { createHash } from 'node:crypto';
import { createServer, type Server, type Socket } from 'node:net';
import { describe, expect, it, vi } from 'vitest';
import { openStore, storeKind } from '../../../src/store/open-store.js';
import { redactUrl } from '../../../src/store/pg-driver.js';
import { blobRef, blobRefSha, isConstraintViolation } from '../../../src/store/store.js';
import { serverUrl, withDatabase } from '../../helpers/pg.js';
import { BACKENDS, rejection } from '../../helpers/store-backends.js';

const [SQLITE, POSTGRES] = BACKENDS;
const AGENT = 'a0123456789abcdef';
const SECRET = 's3cret-Pa55word';

/** A loopback port nothing listens on (taken from the kernel, then released). */
function closedPort(): Promise<number> {
  return new Promise((done) => {
    const s = createServer();
    s.listen(0, '127.0.0.1', () => {
      const { port } = s.address() as { port: number };
      s.close(() => done(port));
    });
  });
}

describe('blobs (PostgreSQL keeps evidence and receipt output blobs in the store)', () => {
  it('are content-addressed and deduplicated; a reference names the sha256; what is stored never changes', async () => {
    const f = await POSTGRES.fresh();
    const s = await f.writer();
    const blobs = s.blobs!;
    expect(blobs).toBeDefined();
    const bytes = Buffer.from([0, 1, 2, 255, 0x0a, 0x00]);
    const first = await s.tx((t) => blobs.putBlob(t, bytes));
    const again = await s.tx((t) => blobs.putBlob(t, Buffer.from(bytes)));
    const sha256 = createHash('sha256').update(bytes).digest('hex');
    expect(first).toEqual({ sha256, size: 6, ref: `blob:sha256:${sha256}` });
    expect(blobRef(sha256)).toBe(first.ref);
    expect(again).toEqual(first);
    expect(blobRefSha(first.ref)).toBe(first.sha256);
    expect(blobRefSha('/a/file/path')).toBeUndefined();
    expect(await f.all('SELECT sha256, size::int AS size FROM blobs')).toEqual([{ sha256, size: 6 }]);
    expect((await blobs.getBlob(first.sha256))!.equals(bytes)).toBe(true);
    const other = await s.tx((t) => blobs.putBlob(t, Buffer.from('other')));
    expect(other.sha256).not.toBe(first.sha256);
    expect(await blobs.getBlob('0'.repeat(64))).toBeUndefined();
    // A transaction reads the blobs it can see through its own handle.
    expect(await s.tx(async (t) => [...(await t.blobs!.blobSizes([first.sha256, other.sha256])).values()])).toEqual([
      6, 5,
    ]);

    const refused = async (text: string): Promise<void> =>
      expect(isConstraintViolation(await rejection(f.exec(text)))).toBe(true);
    await refused(`INSERT INTO blobs (sha256, bytes, size) VALUES ('${'0'.repeat(64)}', '\\x00', 1)`);
    await refused(`INSERT INTO blobs (sha256, bytes, size) VALUES ('${first.sha256}', '\\x0001', 2)`);
    await refused(`UPDATE blobs SET bytes = '\\x00', size = 1`);
    expect(await f.all('SELECT COUNT(*)::int AS n FROM blobs')).toEqual([{ n: 2 }]);
    await s.close();
  });

  it('a SQLite store keeps blobs as files: neither the store nor its transactions offer the blob capability', async () => {
    const f = await SQLITE.fresh();
    const s = await f.writer();
    expect(s.blobs).toBeUndefined();
    expect(await s.tx((t) => Promise.resolve(t.blobs))).toBeUndefined();
    await s.close();
  });

  it('a blob put through a transaction of another store is refused (INTERNAL), nothing stored', async () => {
    const pg = await POSTGRES.fresh();
    const s = await pg.writer();
    const sqlite = await (await SQLITE.fresh()).writer();
    expect(await rejection(sqlite.tx((t) => s.blobs!.putBlob(t, Buffer.from('x'))))).toMatchObject({
      code: 'INTERNAL',
      exit: 70,
    });
    expect(await pg.all('SELECT COUNT(*)::int AS n FROM blobs')).toEqual([{ n: 0 }]);
    await sqlite.close();
    await s.close();
  });
});

describe('selection and reachability', () => {
  it('HANDOFF_STORE_URL selects the backend; unset or blank is SQLite; another scheme is refused (exit 4)', () => {
    expect(storeKind({})).toBe('sqlite');
    expect(storeKind({ HANDOFF_STORE_URL: '  ' })).toBe('sqlite');
    expect(storeKind({ HANDOFF_STORE_URL: 'postgres://h/db' })).toBe('postgres');
    expect(storeKind({ HANDOFF_STORE_URL: 'postgresql://h/db' })).toBe('postgres');
    let thrown: unknown;
    try {
      storeKind({ HANDOFF_STORE_URL: `mysql://u:${SECRET}@h/db` });
    } catch (e) {
      thrown = e;
    }
    expect(thrown).toMatchObject({ code: 'STORE_UNREADABLE', exit: 4 });
    expect((thrown as Error).message).not.toContain(SECRET);
  });

  it('redactUrl hides the password in the authority and in parameters, and keeps the rest', () => {
    expect(redactUrl(`postgres://alice:${SECRET}@db.example:5433/handoff?sslmode=require`)).toBe(
      'postgres://alice:***@db.example:5433/handoff?sslmode=require',
    );
    expect(redactUrl(`postgresql://db/handoff?user=a&password=${SECRET}`)).toBe(
      'postgresql://db/handoff?user=a&password=***',
    );
    expect(redactUrl('postgres://alice@db/handoff')).toBe('postgres://alice@db/handoff');
    expect(redactUrl(`postgres://alice:${SECRET}@[::1`)).not.toContain(SECRET);
  });

  it('a port that refuses is STORE_UNREACHABLE (exit 4) on every open mode, naming the URL without its password', async () => {
    const url = `postgres://handoff:${SECRET}@127.0.0.1:${await closedPort()}/handoff`;
    for (const mode of ['probe', 'reader', 'writer'] as const) {
      const e = await rejection(openStore({ HANDOFF_STORE_URL: url }, undefined, mode, { create: true }));
      expect(e, mode).toMatchObject({ code: 'STORE_UNREACHABLE', exit: 4 });
      expect(e.message).toContain('***@127.0.0.1');
      expect(e.message).not.toContain(SECRET);
      expect(e.message).not.toContain('\n');
    }
  });

  it("a server that accepts the connection and never answers is STORE_UNREACHABLE (a connect gets the store's time limit)", async () => {
    const sockets: Socket[] = [];
    const silent: Server = createServer((socket) => void sockets.push(socket));
    await new Promise<void>((done) => silent.listen(0, '127.0.0.1', done));
    const { port } = silent.address() as { port: number };
    try {
      const e = await rejection(
        // HANDOFF_STORE_TIMEOUT_MS at 1 s rather than its 10 s default, so the wait is short.
        openStore(
          { HANDOFF_STORE_URL: `postgres://handoff:${SECRET}@127.0.0.1:${port}/x`, HANDOFF_STORE_TIMEOUT_MS: '1000' },
          undefined,
          'probe',
        ),
      );
      expect(e).toMatchObject({ code: 'STORE_UNREACHABLE', exit: 4 });
      expect(e.message).not.toContain(SECRET);
      expect(sockets.length).toBeGreaterThan(0);
    } finally {
      for (const s of sockets) s.destroy();
      silent.close();
    }
  });

  it('a wrong password and a missing database are STORE_UNREADABLE (exit 4), never a crash, password redacted', async () => {
    const wrong = new URL(serverUrl());
    wrong.password = SECRET;
    const missing = withDatabase(serverUrl(), 'no_such_database');
    for (const url of [wrong.toString(), missing]) {
      const e = await rejection(openStore({ HANDOFF_STORE_URL: url }, undefined, 'probe'));
      expect(e, url).toMatchObject({ code: 'STORE_UNREADABLE', exit: 4 });
      expect(e.message).not.toContain(SECRET);
      expect(e.message).not.toContain(new URL(serverUrl()).password);
    }
  });
});

describe('closing', () => {
  it('leaves no timer behind: a closed store, and an open that found no store, let the process end at once', async () => {
    const f = await POSTGRES.fresh();
    // Every timer made from here on, until it fired or was cleared (async_hooks: init, destroy).
    const pending = new Set<number>();
    const hook = createHook({
      init: (id, type) => void (type === 'Timeout' && pending.add(id)),
      destroy: (id) => void pending.delete(id),
    }).enable();
    try {
      // No store yet: a probe finds an empty schema, answers null and ends its pool.
      expect(await f.open('probe')).toBeNull();
      const s = await f.writer();
      expect(await s.getHandoffByContractId('a1.b2')).toBeUndefined();
      await s.close();
      // Destroy hooks run after the current turn of the event loop.
      for (let i = 0; i < 3; i++) await new Promise((done) => setImmediate(done));
    } finally {
      hook.disable();
    }
    // The wait for the server's acknowledgement of the end stayed pending for half a second after each.
    expect(pending.size).toBe(0);
  });
});

describe('the store clock', () => {
  it('PostgreSQL stamps rows with the server clock, SQLite with the process clock (as it always did)', async () => {
    const backends = { sqlite: await SQLITE.fresh(), postgres: await POSTGRES.fresh() };
    const stores = { sqlite: await backends.sqlite.writer(), postgres: await backends.postgres.writer() };
    vi.useFakeTimers({ toFake: ['Date'], now: new Date('2001-02-03T04:05:06.007Z') });
    try {
      for (const [name, s] of Object.entries(stores)) {
        await s.tx((t) =>
          t.upsertFinalRow({
            contract_id: `${AGENT}.000000000001`,
            agent_id: AGENT,
            workspace: 'ws',
            agent_state: 'BLOCKED',
            json: '{}',
            plan_task_id: null,
          }),
        );
        const row = (await s.getHandoffByContractId(`${AGENT}.000000000001`))!;
        if (name === 'sqlite') expect(row.created_at).toBe('2001-02-03T04:05:06.007Z');
        else {
          expect(row.created_at.startsWith('2001')).toBe(false);
          expect(row.created_at <= (await s.now())).toBe(true);
        }
      }
    } finally {
      vi.useRealTimers();
      await stores.sqlite.close();
      await stores.postgres.close();
    }
  });
});

describe('schema parity and PostgreSQL text', () => {
  it('every SQLite table has its PostgreSQL twin with the same columns in the same order and nullability; blobs is extra', async () => {
    const lite = await SQLITE.fresh();
    const post = await POSTGRES.fresh();
    await (await lite.writer()).close();
    await (await post.writer()).close();
    const liteTables = (
      await lite.all("SELECT name FROM sqlite_schema WHERE type = 'table' AND name NOT LIKE 'sqlite_%' ORDER BY name")
    ).map((r) => String(r.name));
    const postTables = (
      await post.all(
        'SELECT table_name FROM information_schema.tables WHERE table_schema = current_schema() ORDER BY 1',
      )
    ).map((r) => String(r.table_name));
    expect(postTables).toEqual([...liteTables, 'blobs'].sort());
    for (const table of liteTables) {
      const liteCols = (
        await lite.all(`SELECT name, "notnull", pk FROM pragma_table_info('${table}') ORDER BY cid`)
      ).map((c) => [c.name, Number(c.notnull) === 1 || Number(c.pk) > 0]);
      const postCols = (
        await post.all(
          `SELECT column_name, is_nullable FROM information_schema.columns WHERE table_schema = current_schema() AND table_name = '${table}' ORDER BY ordinal_position`,
        )
      ).map((c) => [c.column_name, c.is_nullable === 'NO']);
      expect(postCols, table).toEqual(liteCols);
    }
  });

  it('text with a NUL character, which PostgreSQL cannot hold, is refused by the store and nothing is written', async () => {
    const f = await POSTGRES.fresh();
    const s = await f.writer();
    const e = await rejection(
      s.tx((t) => t.insertApproval({ workspace: 'ws', agent_id: null, contract_id: null, exact_content: 'a\u0000b' })),
    );
    expect(isConstraintViolation(e)).toBe(true);
    expect(await s.listApprovals({ limit: 5 })).toEqual([]);
    // Inside JSON the character is an escape, so envelopes holding it are stored byte for byte.
    const json = JSON.stringify({ note: 'a\u0000b' });
    await s.tx((t) =>
      t.upsertFinalRow({
        contract_id: `${AGENT}.000000000001`,
        agent_id: AGENT,
        workspace: 'ws',
        agent_state: 'BLOCKED',
        json,
        plan_task_id: null,
      }),
    );
    expect((await s.getHandoffByContractId(`${AGENT}.000000000001`))!.raw_handoff_json).toBe(json);
    await s.close();
  });

  it('a schema_version table of another shape is STORE_FOREIGN_DB and is left alone', async () => {
    const f = await POSTGRES.fresh();
    await f.exec('CREATE TABLE schema_version (version integer)');
    expect(await rejection(f.open('writer', { create: true }))).toMatchObject({ code: 'STORE_FOREIGN_DB', exit: 4 });
    expect(
      await f.all('SELECT table_name FROM information_schema.tables WHERE table_schema = current_schema()'),
    ).toEqual([{ table_name: 'schema_version' }]);
  });
});
