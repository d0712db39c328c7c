/**
 * The time limits of a PostgreSQL store's connections (HANDOFF_STORE_TIMEOUT_MS): set by each transaction itself,
 * never at connect; the server cancels a statement past the limit (STORE_UNREACHABLE), a lock wait ends earlier
 * (STORE_BUSY), the client stops waiting for any statement at the same limit (so none outlives it, a paused pooler's
 * included), and a malformed setting is USAGE.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { storeTimeoutMs } from '../../src/paths.js';
import { openStore } from '../../src/store/open-store.js';
import { createPool, timeLimits, type Run } from '../../src/store/pg-driver.js';
import { toPgStoreError } from '../../src/store/pg-errors.js';
import { dropDatabase, freshDatabase } from '../helpers/pg.js';
import { rejection } from '../helpers/store-backends.js';

let dbUrl: string;
beforeAll(async () => {
  dbUrl = await freshDatabase();
});
afterAll(async () => {
  await dropDatabase(dbUrl);
});

const failure = async (p: Promise<unknown>): Promise<unknown> =>
  p.then(
    () => undefined,
    (e: unknown) => toPgStoreError(e, 'the-store'),
  );

describe('HANDOFF_STORE_TIMEOUT_MS', () => {
  it('defaults to 10 s; a whole number of ms up to a day is taken; anything else is USAGE (exit 2)', () => {
    expect(storeTimeoutMs({})).toBe(10_000);
    expect(storeTimeoutMs({ HANDOFF_STORE_TIMEOUT_MS: '' })).toBe(10_000);
    expect(storeTimeoutMs({ HANDOFF_STORE_TIMEOUT_MS: '1500' })).toBe(1500);
    for (const bad of ['0', '-1', '1.5', '10s', 'abc', '086400001', '86400001']) {
      expect(() => storeTimeoutMs({ HANDOFF_STORE_TIMEOUT_MS: bad }), bad).toThrow(
        expect.objectContaining({ code: 'USAGE', exit: 2 }),
      );
    }
  });

  it('the client waits for an answer exactly the statement limit, never longer; lock waits end at half of it', () => {
    for (const ms of [400, 2000, 10_000, 86_400_000])
      expect(timeLimits(ms)).toMatchObject({ statementMs: ms, queryMs: ms, connectMs: ms, fullRetryMs: ms });
    expect(timeLimits(2000).lockMs).toBe(1000);
    expect(timeLimits(null)).toMatchObject({ statementMs: null, queryMs: null });
  });

  it('sets no session limit (a pooler refuses them); the client ends a statement past the limit: STORE_UNREACHABLE (exit 4)', async () => {
    const pool = createPool(dbUrl, timeLimits(400));
    try {
      expect((await pool.query('SHOW statement_timeout')).rows[0].statement_timeout).toBe('0');
      expect((await pool.query('SHOW lock_timeout')).rows[0].lock_timeout).toBe('0');
      const started = Date.now();
      expect(await failure(pool.query('SELECT pg_sleep(30)'))).toMatchObject({ code: 'STORE_UNREACHABLE', exit: 4 });
      expect(Date.now() - started).toBeLessThan(10_000); // the client's limit is 400 ms; this only catches a hang
    } finally {
      await pool.end();
    }
  });

  it('inside a store transaction the limits are set locally: a statement past them is STORE_UNREACHABLE, a lock wait STORE_BUSY (exit 4)', async () => {
    const store = await openStore({ HANDOFF_STORE_URL: dbUrl, HANDOFF_STORE_TIMEOUT_MS: '2000' }, undefined, 'writer', {
      create: true,
    });
    const holder = createPool(dbUrl, timeLimits(null));
    const client = await holder.connect();
    try {
      const limits = await store!.tx(async (t) => {
        const run = (t as unknown as { run: Run }).run;
        const show = async (name: string): Promise<unknown> => (await run(`SHOW ${name}`)).rows[0][name];
        return [
          await show('statement_timeout'),
          await show('lock_timeout'),
          await show('idle_in_transaction_session_timeout'),
        ];
      });
      expect(limits).toEqual(['2s', '1s', '1min']);
      expect(
        await rejection(store!.tx((t) => (t as unknown as { run: Run }).run('SELECT pg_sleep(30)'), { attempts: 1 })),
      ).toMatchObject({ code: 'STORE_UNREACHABLE', exit: 4 });
      await client.query('SELECT pg_advisory_lock(4242)');
      expect(
        await rejection(
          store!.tx((t) => (t as unknown as { run: Run }).run('SELECT pg_advisory_lock(4242)'), { attempts: 1 }),
        ),
      ).toMatchObject({ code: 'STORE_BUSY', exit: 4 });
    } finally {
      client.release(true);
      await holder.end();
      await store?.close();
    }
  });

  it('store copy has no statement limit', async () => {
    const pool = createPool(dbUrl, timeLimits(null));
    try {
      expect((await pool.query('SHOW statement_timeout')).rows[0].statement_timeout).toBe('0');
    } finally {
      await pool.end();
    }
  });
});
