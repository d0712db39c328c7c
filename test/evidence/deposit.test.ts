import { existsSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { depositEvidence, type DepositInput } from '../../src/evidence/deposit.js';
import { appendAcs, insertBrief } from '../../src/store/sqlite-rows.js';
import { closeDb, openWriter, type Db } from '../../src/store/db.js';
import { snapshot } from '../helpers/cli.js';
import { failureAsync } from '../helpers/evidence.js';

let home: string;
let env: NodeJS.ProcessEnv;
let db: Db;

beforeEach(() => {
  home = mkdtempSync(join(tmpdir(), 'handoff-deposit-'));
  env = { HANDOFF_HOME: home };
  db = openWriter(env, home, { create: true }) as Db;
  const id = insertBrief(db, { workspace: 'ws', name: 'pay', title: null, objective: null }).id;
  appendAcs(db, id, [{ ac_id: 'AC-1', description: 'one' }]);
});

afterEach(() => closeDb(db));

const input = (over: Partial<DepositInput> = {}): DepositInput => ({
  workspace: 'ws',
  brief: 'pay',
  acId: 'AC-1',
  type: 'text',
  text: 'y'.repeat(5000),
  taskId: null,
  createdBy: null,
  ...over,
});

const forceInsertFailure = (): void => {
  db.exec(
    "CREATE TRIGGER evidence_forced_failure BEFORE INSERT ON evidence BEGIN SELECT RAISE(ABORT, 'forced failure'); END",
  );
};

describe('depositEvidence: a blob written, then the row insert failing', () => {
  it('leaves the evidence tree byte-identical when it was the first blob (root, workspace, brief and ac dirs removed)', async () => {
    forceInsertFailure();
    expect(existsSync(join(home, 'evidence'))).toBe(false);
    const err = await failureAsync(() => depositEvidence(env, home, input()));
    expect({ code: err?.code, exit: err?.exit }).toEqual({ code: 'STORE_UNREADABLE', exit: 4 });
    expect(err?.message).toContain('forced failure');
    expect(existsSync(join(home, 'evidence'))).toBe(false);
  });

  it('keeps earlier blobs and directories byte-identical (file source too)', async () => {
    await depositEvidence(env, home, input());
    const src = join(home, 'src.bin');
    writeFileSync(src, Buffer.alloc(9000, 1));
    const before = snapshot(join(home, 'evidence'));
    forceInsertFailure();
    expect(
      (
        await failureAsync(() =>
          depositEvidence(env, home, input({ type: 'file', text: undefined, artifactFile: src })),
        )
      )?.exit,
    ).toBe(4);
    expect((await failureAsync(() => depositEvidence(env, home, input())))?.exit).toBe(4);
    expect(snapshot(join(home, 'evidence'))).toEqual(before);
    expect((db.prepare('SELECT COUNT(*) AS n FROM evidence').get() as { n: number }).n).toBe(1);
  });

  it('an inline deposit that fails to insert writes nothing either', async () => {
    forceInsertFailure();
    expect((await failureAsync(() => depositEvidence(env, home, input({ text: 'short' }))))?.exit).toBe(4);
    expect(snapshot(join(home, 'evidence'))).toEqual({});
  });
});
