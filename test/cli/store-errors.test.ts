import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { run, runAsync, tempHome, type RunResult } from '../helpers/cli.js';
import { loadSqlite } from '../../src/store/sqlite.js';
import { closeDb, openWriter } from '../../src/store/db.js';
import { latestVersion } from '../../src/store/migrate.js';
import { dbFile, envelopeIn, mintDraft, prefix, storeOf, writeDraft } from '../helpers/store-cli.js';

/** Verbs that open the store on every path: writers, read verbs and probes. */
function verbs(draftId: string): string[][] {
  return [
    ['contract', 'finalize', '--draft-id', draftId],
    ['contract', 'list'],
    ['contract', 'chain', '--contract-id', draftId],
    ['approval', 'request', '--content', 'x'],
    ['approval', 'decide', `P-${'0'.repeat(32)}`, '--decision', 'approved'],
    ['approval', 'list'],
    ['contract', 'gc'],
  ];
}

function expectStoreError(r: RunResult, code: string, file: string, what: string): void {
  expect({ exit: r.code, stdout: r.stdout }, what).toEqual({ exit: 4, stdout: '' });
  const lines = r.stderr.trimEnd().split('\n');
  expect(lines, what).toHaveLength(1);
  expect(lines[0]).toMatch(/^Error: /);
  expect(lines[0]).toContain(file);
  expect(r.stderr).not.toMatch(/\bat .*\.js:\d+/);
}

function broken(kind: 'corrupt' | 'foreign' | 'too-new' | 'truncated'): { home: string; file: string; id: string } {
  const home = tempHome();
  const file = dbFile(home);
  const id = mintDraft();
  writeDraft(home, id, envelopeIn(prefix(id), 'BLOCKED'));
  if (kind === 'corrupt') writeFileSync(file, Buffer.alloc(8192, 0x5a));
  if (kind === 'foreign') {
    const db = new (loadSqlite())(file);
    db.pragma('application_id = 1234');
    db.exec('CREATE TABLE photos (id INTEGER PRIMARY KEY, path TEXT)');
    db.close();
  }
  if (kind === 'too-new') {
    const db = storeOf(home);
    db.prepare("INSERT INTO schema_version VALUES (?, '9999_future.sql', ?, '2030-01-01T00:00:00.000Z')").run(
      latestVersion() + 1,
      'e'.repeat(64),
    );
    closeDb(db);
  }
  if (kind === 'truncated') {
    const db = storeOf(home);
    db.exec(`CREATE TABLE filler (x TEXT);
      WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < 200) INSERT INTO filler SELECT hex(randomblob(500)) FROM n`);
    closeDb(db);
    const bytes = readFileSync(file);
    // Keep the header and the first pages, scribble over the schema and data pages.
    writeFileSync(file, Buffer.concat([bytes.subarray(0, 100), Buffer.alloc(bytes.length - 100, 0xff)]));
  }
  return { home, file, id };
}

describe('broken stores: one named code, exit 4, one stderr line, no stack, nothing changed', () => {
  for (const [kind, code] of [
    ['corrupt', 'STORE_UNREADABLE'],
    ['truncated', 'STORE_UNREADABLE'],
    ['foreign', 'STORE_FOREIGN_DB'],
    ['too-new', 'STORE_SCHEMA_TOO_NEW'],
  ] as const) {
    it(`${kind} → ${code}`, () => {
      const { home, file, id } = broken(kind);
      const bytes = readFileSync(file);
      for (const args of verbs(id)) {
        const human = run(home, args);
        expectStoreError(human, code, file, `${kind}: ${args.join(' ')}`);
        const json = run(home, [...args, '--json']);
        expect({ exit: json.code, status: json.json?.status, code: json.json?.code }, args.join(' ')).toEqual({
          exit: 4,
          status: 'error',
          code,
        });
      }
      // A probe (the cross-check of validate) reports the same code instead of a verdict.
      const agent = prefix(id);
      const validate = run(home, ['contract', 'validate', '--file', '-', '--json'], {
        input: JSON.stringify(
          envelopeIn(agent, 'APPROVAL_REQUEST', { approval_request: { exact_content: 'x', approval_id: 'P-1' } }),
        ),
      });
      expect({ exit: validate.code, code: validate.json?.code }).toEqual({ exit: 4, code });
      expect(readFileSync(file).equals(bytes)).toBe(true);
    });
  }

  it('$HANDOFF_DB names the file; the message names that path', () => {
    const home = tempHome();
    const file = join(home, 'elsewhere.db');
    writeFileSync(file, 'plain text, not SQLite. '.repeat(40));
    const r = run(home, ['contract', 'list'], { env: { HANDOFF_DB: file } });
    expectStoreError(r, 'STORE_UNREADABLE', file, 'HANDOFF_DB');
  });

  it('a write lock held past the busy timeout and 3 attempts is STORE_BUSY; reads still work meanwhile', async () => {
    const home = tempHome();
    const id = mintDraft();
    writeDraft(home, id, envelopeIn(prefix(id), 'BLOCKED'));
    closeDb(openWriter({ HANDOFF_HOME: home }, home, { create: true }));
    const holder = new (loadSqlite())(dbFile(home));
    holder.exec('BEGIN IMMEDIATE');
    const started = Date.now();
    try {
      const [finalize, request, list] = await Promise.all([
        runAsync(home, ['contract', 'finalize', '--draft-id', id, '--json']),
        runAsync(home, ['approval', 'request', '--content', 'x']),
        runAsync(home, ['contract', 'list', '--json']),
      ]);
      expect(list.json).toMatchObject({ status: 'ok', count: 0 });
      expect({ exit: finalize.code, code: finalize.json?.code }).toEqual({ exit: 4, code: 'STORE_BUSY' });
      expectStoreError(request, 'STORE_BUSY', dbFile(home), 'approval request');
      expect(Date.now() - started).toBeGreaterThan(14_000);
    } finally {
      holder.exec('ROLLBACK');
      holder.close();
    }
    // Nothing was written, and the store works again.
    const after = run(home, ['contract', 'finalize', '--draft-id', id, '--json']);
    expect(after.json).toMatchObject({ status: 'ok', created: true, handoff_id: 1 });
  });
});
