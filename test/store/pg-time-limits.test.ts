/**
 * The time limits of a PostgreSQL store's connections (HANDOFF_STORE_TIMEOUT_MS): the server cancels a statement
 * past the limit (STORE_UNREACHABLE), a lock wait ends earlier (STORE_BUSY), and a malformed setting is USAGE.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { storeTimeoutMs } from '../../src/paths.js';
import { createPool, timeLimits } from '../../src/store/pg-driver.js';
import { toPgStoreError } from '../../src/store/pg-errors.js';
import { dropDatabase, freshDatabase } from '../helpers/pg.js';

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

  it('sets the session statement_timeout; a statement past it is STORE_UNREACHABLE (exit 4)', async () => {
    const pool = createPool(dbUrl, timeLimits(400));
    try {
      expect((await pool.query('SHOW statement_timeout')).rows[0].statement_timeout).toBe('400ms');
      expect(await failure(pool.query('SELECT pg_sleep(30)'))).toMatchObject({ code: 'STORE_UNREACHABLE', exit: 4 });
    } finally {
      await pool.end();
    }
  });

  it('a lock wait ends before the statement limit, as STORE_BUSY (exit 4)', async () => {
    const holder = createPool(dbUrl, timeLimits(null));
    const waiter = createPool(dbUrl, timeLimits(2000));
    const client = await holder.connect();
    try {
      await client.query('SELECT pg_advisory_lock(4242)');
      expect((await waiter.query('SHOW lock_timeout')).rows[0].lock_timeout).toBe('1s');
      expect(await failure(waiter.query('SELECT pg_advisory_lock(4242)'))).toMatchObject({
        code: 'STORE_BUSY',
        exit: 4,
      });
    } finally {
      client.release(true);
      await holder.end();
      await waiter.end();
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
