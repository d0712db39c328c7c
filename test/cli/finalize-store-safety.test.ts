/**
 * Finalize never crashes on a write SQLite refuses and never leaves a store file behind when it refuses
 * ("A rejected finalize writes nothing"; only a writer that writes creates the DB).
 */
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { beforeAll, describe, expect, it } from 'vitest';
import { run, snapshot, tempHome } from '../helpers/cli.js';
import {
  countRows,
  dbFile,
  envelopeIn,
  expectCleanFailure,
  mintDraft,
  prefix,
  runJson,
  withStore,
  writeDraft,
} from '../helpers/store-cli.js';

const finalize = (home: string, ...args: string[]) => runJson(home, ['contract', 'finalize', ...args]);

/** A draft whose key_outputs holds `[[[…]]]` nested `depth` levels, written as text (JSON.stringify would overflow). */
function deepDraft(home: string, id: string, depth: number): void {
  const path = writeDraft(home, id, envelopeIn(prefix(id), 'BLOCKED'));
  const text = readFileSync(path, 'utf8').replace(
    '"key_outputs": []',
    `"key_outputs": [${'['.repeat(depth)}${']'.repeat(depth)}]`,
  );
  expect(text).toContain('[[[[');
  writeFileSync(path, text);
}

beforeAll(() => {
  expect(existsSync(new URL('../../dist/cli/main.js', import.meta.url)), 'run npm run build first').toBe(true);
});

describe('finalize refuses without crashing and without creating the store', () => {
  it.each([1500, 5000])('a draft nested %i levels deep is DRAFT_UNREADABLE (exit 3, one line); no DB file', (depth) => {
    const home = tempHome();
    const id = mintDraft();
    deepDraft(home, id, depth);
    const before = snapshot(home);
    const r = finalize(home, '--draft-id', id);
    expectCleanFailure(r, 3, 'DRAFT_UNREADABLE');
    expect(r.stderr).toBe('');
    const human = run(home, ['contract', 'finalize', '--draft-id', id]);
    expect(human.code).toBe(3);
    expect(human.stdout).toBe('');
    expect(human.stderr.trimEnd().split('\n')).toHaveLength(1);
    expect(existsSync(dbFile(home))).toBe(false);
    expect(snapshot(home)).toEqual(before);
  });

  it('no store: an evidence entry naming a brief is EVIDENCE_BRIEF_NOT_FOUND (exit 1) and no DB file is created', () => {
    const home = tempHome();
    const id = mintDraft();
    const uc = [
      { contract: 'evidence', payload: { brief_id: 1, ac_id: 'AC-1', type: 'text', text: 'x' } },
      { contract: 'notes', payload: {} },
      { contract: 'evidence', payload: { brief_id: 2, ac_id: 'AC-2', type: 'text', text: 'y' } },
    ];
    writeDraft(home, id, envelopeIn(prefix(id), 'BLOCKED', { update_contracts: uc }));
    const before = snapshot(home);
    const r = finalize(home, '--draft-id', id);
    expect(r.code, r.stdout + r.stderr).toBe(1);
    expect(r.json).toMatchObject({ status: 'rejected', draft_id: id, codes: ['EVIDENCE_BRIEF_NOT_FOUND'] });
    expect(r.json.errors.map((e: any) => [e.code, e.path, e.detail])).toEqual([
      ['EVIDENCE_BRIEF_NOT_FOUND', 'update_contracts[0].payload.brief_id', 'no brief has id 1'],
      ['EVIDENCE_BRIEF_NOT_FOUND', 'update_contracts[2].payload.brief_id', 'no brief has id 2'],
    ]);
    expect(existsSync(dbFile(home))).toBe(false);
    expect(snapshot(home)).toEqual(before);
  });

  it('no store and no evidence entry: the finalize still creates the store and writes the row', () => {
    const home = tempHome();
    const id = mintDraft();
    writeDraft(home, id, envelopeIn(prefix(id), 'BLOCKED', { update_contracts: [{ contract: 'notes', payload: {} }] }));
    expect(finalize(home, '--draft-id', id).json).toMatchObject({ status: 'ok', created: true });
    expect(countRows(home)).toBe(1);
  });

  it('a write SQLite refuses (a trigger added by hand) is STORE_WRITE_REFUSED, exit 4, one line; nothing written', () => {
    const home = tempHome();
    withStore(home, (db) =>
      db.exec(
        "CREATE TRIGGER test_refuse BEFORE INSERT ON handoffs BEGIN SELECT RAISE(ABORT, 'refused by the test'); END",
      ),
    );
    const id = mintDraft();
    writeDraft(home, id, envelopeIn(prefix(id), 'BLOCKED'));
    const before = snapshot(home);
    const r = finalize(home, '--draft-id', id);
    expectCleanFailure(r, 4, 'STORE_WRITE_REFUSED');
    expect(r.json.status).toBe('error');
    expect(r.json.error).toContain(dbFile(home));
    expect(r.json.error).toContain('refused by the test');
    const human = run(home, ['contract', 'finalize', '--draft-id', id]);
    expect(human.code).toBe(4);
    expect(human.stdout).toBe('');
    expect(human.stderr).toMatch(/^Error: /);
    expect(human.stderr.trimEnd().split('\n')).toHaveLength(1);
    expect(snapshot(home)).toEqual(before);
    expect(countRows(home)).toBe(0);
  });
});
