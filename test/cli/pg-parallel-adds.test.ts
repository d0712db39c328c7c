/**
 * 128 parallel `contract add` calls to one dispatched draft on PostgreSQL all land, as on SQLite: the draft lock is
 * held only for the short work under it (the store is connected before the lock is taken), while it still covers
 * reading, saving and mirroring, so every value is in the draft and the row mirrors the final draft.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { dropDatabase, freshDatabase, freshSchema } from '../helpers/pg.js';
import { ok, pgHost, pgRow } from '../helpers/pg-cli.js';

const N = 128;

let dbUrl: string;
beforeAll(async () => {
  dbUrl = await freshDatabase();
});
afterAll(async () => {
  await dropDatabase(dbUrl);
});

it(`${N} parallel adds to one draft all land; the row mirrors the final draft`, async () => {
  const h = pgHost(await freshSchema(dbUrl));
  const id = ok(h, ['contract', 'dispatch', '--workspace', 'ws', '--goal', 'g']).contract_id as string;
  const values = Array.from({ length: N }, (_, i) => `cmd-${i}`);
  const results = await Promise.all(values.map((v) => h.runAsync(['contract', 'add', 'evidence_report.commands_run', v, '--draft-id', id, '--json'])));
  const failed = results.filter((r) => r.code !== 0);
  const codes = failed.map((r) => String(r.json?.code ?? r.code));
  expect(codes, failed.slice(0, 3).map((r) => r.stdout + r.stderr).join('\n')).toEqual([]);
  expect(results.every((r) => r.json?.mirrored === true)).toBe(true);
  const draft = JSON.parse(readFileSync(join(h.home, 'drafts', `${id}.json`), 'utf8'));
  const stored: string[] = draft.evidence_report.commands_run;
  expect([...stored].sort()).toEqual([...values].sort());
  // No mirror landed out of order: the row holds exactly the final draft.
  const row = await pgRow(h.url, id);
  expect(JSON.parse(row.raw_handoff_json)).toEqual(draft);
});
