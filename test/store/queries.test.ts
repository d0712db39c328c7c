/**
 * The shared statements' dialects (src/store/queries/op.ts, sqlite-dialect.ts, pg-dialect.ts): `$n` placeholders
 * bound by number on SQLite, texts built once per dialect, and SQLite's `handoff_now()`: the process clock, one time
 * per operation. Both backends' runs of the operations themselves are the store suite's (test/store/interface/).
 */
import { describe, expect, it } from 'vitest';
import { onPg } from '../../src/store/pg-dialect.js';
import type { Run } from '../../src/store/pg-driver.js';
import { q, schemaAtLeast, type Dialect, type Op } from '../../src/store/queries/op.js';
import { loadSqlite } from '../../src/store/sqlite.js';
import { onSqlite } from '../../src/store/sqlite-dialect.js';

const memory = () => new (loadSqlite())(':memory:');

/** Busy-waits until the clock has moved on by `ms` (so a second reading of it differs). */
function spin(ms: number): void {
  const until = Date.now() + ms;
  while (Date.now() < until);
}

describe('the SQLite dialect', () => {
  it('binds $n by number: reused and out of order, arrays as JSON', () => {
    const db = memory();
    const { rows } = onSqlite(
      db,
      q('SELECT $2 AS b, $1 AS a, $2 AS b2, json_array_length($3) AS n', ['A', 'B', [1, 2]]),
    );
    expect(rows).toEqual([{ b: 'B', a: 'A', b2: 'B', n: 2 }]);
    // A write counts the rows it changed; one with RETURNING gives them back.
    onSqlite(db, q('CREATE TABLE t (x)'));
    expect(onSqlite(db, q('INSERT INTO t VALUES ($1), ($1)', [7])).rowCount).toBe(2);
    expect(onSqlite(db, q('UPDATE t SET x = $1 RETURNING x', [8]))).toEqual({
      rows: [{ x: 8 }, { x: 8 }],
      rowCount: 2,
    });
    db.close();
  });

  it('builds a dialect-dependent text once, whatever the number of runs', () => {
    const db = memory();
    let built = 0;
    const text = (d: Dialect): string => {
      built++;
      return `SELECT value AS v FROM (SELECT 'a' AS value UNION ALL SELECT 'c') WHERE value ${d.inTexts('$1')}`;
    };
    for (let i = 0; i < 3; i++) expect(onSqlite(db, q(text, [['a', 'b']])).rows).toEqual([{ v: 'a' }]);
    expect(built).toBe(1);
    db.close();
  });

  it('handoff_now() is the process clock, one time for every statement of an operation', () => {
    const db = memory();
    function* twice(): Op<[string, string]> {
      const a = (yield* q<{ t: string }>('SELECT handoff_now() AS t')).rows[0].t;
      spin(3);
      const b = (yield* q<{ t: string }>('SELECT handoff_now() AS t, handoff_now() AS u')).rows[0].t;
      return [a, b];
    }
    const before = new Date().toISOString();
    const [a, b] = onSqlite(db, twice());
    spin(3);
    const [c] = onSqlite(db, twice());
    expect(a).toBe(b);
    expect(a >= before && a < c).toBe(true);
    expect(a).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/);
    // A caller's own time (the synchronous repositories' `now`) is the time of the operation.
    expect(onSqlite(db, twice(), '2026-01-01T00:00:00.000Z')).toEqual([
      '2026-01-01T00:00:00.000Z',
      '2026-01-01T00:00:00.000Z',
    ]);
    db.close();
  });
});

describe('the PostgreSQL dialect', () => {
  it('sends the text as written ($n, handoff_now()) and an array as a text array, each text built once', async () => {
    const sent: [string, readonly unknown[] | undefined][] = [];
    const run = ((text: string, values?: readonly unknown[]) => {
      sent.push([text, values]);
      return Promise.resolve({ rows: [{ n: sent.length }], rowCount: 1 });
    }) as Run;
    let built = 0;
    const text = (d: Dialect): string => {
      built++;
      return `SELECT 1 WHERE x ${d.inTexts('$1')}`;
    };
    function* op(): Op<number> {
      yield* q('UPDATE t SET at = handoff_now() WHERE id = $1', [5]);
      return (yield* q<{ n: number }>(text, [['a']])).rows[0].n;
    }
    expect(await onPg(run, op())).toBe(2);
    expect(await onPg(run, op())).toBe(4);
    expect(sent.slice(0, 2)).toEqual([
      ['UPDATE t SET at = handoff_now() WHERE id = $1', [5]],
      ['SELECT 1 WHERE x = ANY($1::text[])', [['a']]],
    ]);
    expect(built).toBe(1);
  });
});

describe('a store read as it is at an older schema', () => {
  it('a statement on a newer table finds no rows without being sent; schemaAtLeast is answered without a round trip', async () => {
    const sent: string[] = [];
    const run = ((text: string) => {
      sent.push(text);
      return Promise.resolve({ rows: [{ n: 1 }], rowCount: 1 });
    }) as Run;
    function* op(): Op<[boolean, number, number]> {
      const current = yield* schemaAtLeast(4);
      const newer = (yield* q('SELECT n FROM newer', [], 5)).rows.length;
      const older = (yield* q('SELECT n FROM older', [], 2)).rows.length;
      return [current, newer, older];
    }
    expect(await onPg(run, op(), 4)).toEqual([true, 0, 1]);
    expect(sent).toEqual(['SELECT n FROM older']);
    expect(await onPg(run, op(), 3)).toEqual([false, 0, 1]);
    // Without a version (a store at the build's: a writer's transaction), every statement runs.
    expect(await onPg(run, op())).toEqual([true, 1, 1]);
    const db = memory();
    onSqlite(db, q('CREATE TABLE older (n)'));
    expect(onSqlite(db, op(), undefined, 3)).toEqual([false, 0, 0]);
    db.close();
  });
});
