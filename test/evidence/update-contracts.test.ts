import { mkdirSync, mkdtempSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createHash } from 'node:crypto';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import {
  applyEvidenceBatchIn,
  checkEvidenceBatch,
  type BatchError,
  type ResolvedEntry,
} from '../../src/evidence/update-contracts.js';
import { openStore } from '../../src/store/open-store.js';
import { depositEvidence } from '../../src/evidence/deposit.js';
import { appendAcs, insertBrief } from '../../src/store/sqlite-rows.js';
import { closeDb, openWriter, type Db } from '../../src/store/db.js';

let home: string;
let env: NodeJS.ProcessEnv;
let db: Db;
let briefId: number;
let openBriefId: number;
let foreignBriefId: number;
let blobPath: string;
const AGENT = 'a0123456789abcdef';
const envelope = { agent_status: { agent_id: AGENT, agent_state: 'COMPLETE' } };
const big = 'x'.repeat(5000);

beforeEach(async () => {
  home = mkdtempSync(join(tmpdir(), 'handoff-uc-'));
  env = { HANDOFF_HOME: home };
  db = openWriter(env, home, { create: true }) as Db;
  briefId = insertBrief(db, { workspace: 'ws', name: 'pay', title: null, objective: null }).id;
  appendAcs(db, briefId, [
    { ac_id: 'AC-1', description: 'one' },
    { ac_id: 'AC-2', description: 'two' },
  ]);
  openBriefId = insertBrief(db, { workspace: 'ws', name: 'open', title: null, objective: null }).id;
  foreignBriefId = insertBrief(db, { workspace: 'other', name: 'pay', title: null, objective: null }).id;
  blobPath = (
    await depositEvidence(env, home, {
      workspace: 'ws',
      brief: 'pay',
      acId: 'AC-1',
      type: 'text',
      text: big,
      taskId: null,
      createdBy: null,
    })
  ).evidence.artifact_path as string;
});

afterEach(() => closeDb(db));

const entry = (payload: Record<string, unknown>) => ({ contract: 'evidence', payload });
const good = (over: Record<string, unknown> = {}) =>
  entry({ brief_id: briefId, ac_id: 'AC-1', type: 'command_output', text: 'PASS 14 tests', ...over });
const check = (uc: unknown) => checkEvidenceBatch(uc, { envelope, env, cwd: home });
/** Step 10 as finalize runs it: on a transaction of the Store interface (SQLite here). */
async function applyEvidenceBatch(
  _db: Db,
  entries: ResolvedEntry[],
  opts: { handoffId: number; workspace: string; replace?: boolean },
) {
  const store = (await openStore(env, home, 'writer'))!;
  try {
    return await store.tx((t) => applyEvidenceBatchIn(t, entries, { ...opts, blobs: store.blobs }));
  } finally {
    await store.close();
  }
}
const pairs = (errors: BatchError[]) => errors.map((e) => [e.code, e.path]);
const evidenceCount = (): number => (db.prepare('SELECT COUNT(*) AS n FROM evidence').get() as { n: number }).n;

function handoffRow(contractId = `${AGENT}.000000000001`, workspace = 'ws'): number {
  return (
    db
      .prepare(
        "INSERT INTO handoffs (contract_id, agent_id, workspace, agent_state, raw_handoff_json) VALUES (?, ?, ?, 'NEEDS_VERIFICATION', '{}') RETURNING id",
      )
      .get(contractId, AGENT, workspace) as { id: number }
  ).id;
}

describe('checkEvidenceBatch: valid entries', () => {
  it('resolves text and artifact entries with computed size and sha256, default created_by_agent', () => {
    const r = check([
      good({ size_bytes: 13, task_id: 'T-42' }),
      { contract: 'notes', payload: {} },
      entry({ brief_id: briefId, ac_id: 'AC-2', type: 'file', artifact_path: blobPath }),
    ]);
    expect(r.errors).toEqual([]);
    expect(r.entries).toEqual([
      {
        index: 0,
        brief_id: briefId,
        ac_id: 'AC-1',
        type: 'command_output',
        text: 'PASS 14 tests',
        artifact_path: null,
        size_bytes: 13,
        sha256: createHash('sha256').update('PASS 14 tests').digest('hex'),
        task_id: 'T-42',
        created_by_agent: AGENT,
      },
      expect.objectContaining({
        index: 2,
        text: null,
        artifact_path: blobPath,
        size_bytes: 5000,
        created_by_agent: AGENT,
      }),
    ]);
  });

  it('stores the resolved path for a spelling with ".." or an inner symlink; 7.0 is the number 7', () => {
    const dir = join(home, 'evidence', 'ws', 'pay', 'AC-1');
    symlinkSync(blobPath, join(dir, 'alias'));
    const r = check([
      entry({
        brief_id: briefId,
        ac_id: 'AC-1',
        type: 'file',
        artifact_path: join(dir, '..', 'AC-1', blobPath.split('/').pop() as string),
      }),
      entry({ brief_id: briefId, ac_id: 'AC-1', type: 'file', artifact_path: join(dir, 'alias') }),
      JSON.parse(
        `{"contract":"evidence","payload":{"brief_id":${briefId}.0,"ac_id":"AC-1","type":"text","text":"x","created_by_agent":null}}`,
      ),
    ]);
    expect(r.errors).toEqual([]);
    expect(r.entries.map((e) => e.artifact_path)).toEqual([blobPath, blobPath, null]);
    expect(r.entries[2].created_by_agent).toBeNull();
  });

  it("ignores absent, null, [] and non-evidence or malformed entries (their shape is finalize's)", () => {
    for (const uc of [
      undefined,
      null,
      [],
      {},
      'x',
      [5, { contract: 'Evidence', payload: {} }, { contract: 'evidence', payload: [] }],
    ]) {
      expect(check(uc)).toEqual({ errors: [], entries: [] });
    }
  });
});

describe('checkEvidenceBatch: attack inputs', () => {
  const outside = (): string => {
    const p = join(home, 'outside.txt');
    writeFileSync(p, 'secret');
    return p;
  };
  const artifactCases: [string, () => unknown][] = [
    [
      '5: a symlink inside the root pointing outside',
      () => {
        const link = join(home, 'evidence', 'ws', 'pay', 'AC-1', 'evil.txt');
        symlinkSync(outside(), link);
        return link;
      },
    ],
    [
      '5: a path through a symlinked directory leading outside',
      () => {
        outside();
        symlinkSync(home, join(home, 'evidence', 'ws', 'up'));
        return join(home, 'evidence', 'ws', 'up', 'outside.txt');
      },
    ],
    ['6: /etc/passwd', () => '/etc/passwd'],
    ['6: a file in /tmp', () => outside()],
    [
      '6: the drafts folder',
      () => {
        mkdirSync(join(home, 'drafts'));
        writeFileSync(join(home, 'drafts', 'a.json'), '{}');
        return join(home, 'drafts', 'a.json');
      },
    ],
    ['6: the DB file', () => join(home, 'handoff.db')],
    [
      '7: <root>/evidence-old/x',
      () => {
        mkdirSync(join(home, 'evidence-old'));
        writeFileSync(join(home, 'evidence-old', 'x'), 'x');
        return join(home, 'evidence-old', 'x');
      },
    ],
    [
      '7: <root>/evidence2/x',
      () => {
        mkdirSync(join(home, 'evidence2'));
        writeFileSync(join(home, 'evidence2', 'x'), 'x');
        return join(home, 'evidence2', 'x');
      },
    ],
    ['8: the root', () => join(home, 'evidence')],
    ['8: the root with a slash', () => `${join(home, 'evidence')}/`],
    ['8: <root>/evidence/ws/..', () => `${join(home, 'evidence', 'ws')}/..`],
    ['9: a directory below the root', () => join(home, 'evidence', 'ws', 'pay')],
    [
      '10: a missing file below the root',
      () => join(home, 'evidence', 'ws', 'pay', 'AC-1', '00000000-0000-4000-8000-000000000000.txt'),
    ],
    ['11: a relative path', () => 'evidence/ws/pay/AC-1/x.txt'],
    ['11: ~/', () => '~/x.txt'],
    ['11: a file:// URL', () => `file://${blobPath}`],
    ['12: a NUL byte', () => `${blobPath}\0`],
    ['12: longer than the OS limit', () => `${join(home, 'evidence')}/${'a/'.repeat(3000)}x`],
    ['1: not a string', () => 42],
    ['1: empty', () => ''],
  ];
  it.each(artifactCases)('%s -> EVIDENCE_ARTIFACT_PATH', (_name, make) => {
    const r = check([good({ text: undefined, artifact_path: make() })]);
    expect(pairs(r.errors)).toEqual([['EVIDENCE_ARTIFACT_PATH', 'update_contracts[0].payload.artifact_path']]);
    expect(r.entries).toEqual([]);
  });

  it.each([true, '7', 7.5, 0, -3, 1e300, null, [7], 2 ** 53])('16: brief_id %j -> EVIDENCE_PAYLOAD', (v) => {
    expect(pairs(check([good({ brief_id: v })]).errors)).toEqual([
      ['EVIDENCE_PAYLOAD', 'update_contracts[0].payload.brief_id'],
    ]);
  });

  it.each([['text'], {}, 'TEXT', 5, null])('17: type %j -> EVIDENCE_PAYLOAD, no crash', (v) => {
    expect(pairs(check([good({ type: v })]).errors)).toEqual([
      ['EVIDENCE_PAYLOAD', 'update_contracts[0].payload.type'],
    ]);
  });

  it('18: both, neither, empty text, blank text, text over 4096 bytes', () => {
    expect(pairs(check([good({ artifact_path: blobPath })]).errors)).toEqual([
      ['EVIDENCE_PAYLOAD', 'update_contracts[0].payload'],
    ]);
    expect(pairs(check([good({ text: undefined })]).errors)).toEqual([
      ['EVIDENCE_PAYLOAD', 'update_contracts[0].payload'],
    ]);
    expect(pairs(check([good({ text: null, artifact_path: null })]).errors)).toEqual([
      ['EVIDENCE_PAYLOAD', 'update_contracts[0].payload'],
    ]);
    for (const t of ['', '   ', 'é'.repeat(2049), 7]) {
      expect(pairs(check([good({ text: t })]).errors)).toEqual([
        ['EVIDENCE_PAYLOAD', 'update_contracts[0].payload.text'],
      ]);
    }
    expect(check([good({ text: 'é'.repeat(2048) })]).errors).toEqual([]);
  });

  it.each([12, '812', -1, true, 1.5])('20: size_bytes %j -> EVIDENCE_PAYLOAD', (v) => {
    expect(pairs(check([good({ size_bytes: v })]).errors)).toEqual([
      ['EVIDENCE_PAYLOAD', 'update_contracts[0].payload.size_bytes'],
    ]);
  });

  it('20: size_bytes of an artifact must equal the file size', () => {
    const base = { text: undefined, artifact_path: blobPath };
    expect(check([good({ ...base, size_bytes: 5000 })]).errors).toEqual([]);
    expect(pairs(check([good({ ...base, size_bytes: 4999 })]).errors)).toEqual([
      ['EVIDENCE_PAYLOAD', 'update_contracts[0].payload.size_bytes'],
    ]);
  });

  it('unknown keys (one error each), ac_id, task_id and created_by_agent rules; every failure collected in field order', () => {
    const r = check([good({ extra: 1, other: 2, ac_id: '../x', task_id: ' ', created_by_agent: 5 })]);
    expect(pairs(r.errors)).toEqual([
      ['EVIDENCE_PAYLOAD', 'update_contracts[0].payload.extra'],
      ['EVIDENCE_PAYLOAD', 'update_contracts[0].payload.other'],
      ['EVIDENCE_PAYLOAD', 'update_contracts[0].payload.ac_id'],
      ['EVIDENCE_PAYLOAD', 'update_contracts[0].payload.task_id'],
      ['EVIDENCE_PAYLOAD', 'update_contracts[0].payload.created_by_agent'],
    ]);
    for (const ac of [5, '', '..', 'a/b'])
      expect(pairs(check([good({ ac_id: ac })]).errors)).toEqual([
        ['EVIDENCE_PAYLOAD', 'update_contracts[0].payload.ac_id'],
      ]);
    expect(pairs(check([entry({})]).errors)).toEqual([
      ['EVIDENCE_PAYLOAD', 'update_contracts[0].payload.brief_id'],
      ['EVIDENCE_PAYLOAD', 'update_contracts[0].payload.ac_id'],
      ['EVIDENCE_PAYLOAD', 'update_contracts[0].payload.type'],
      ['EVIDENCE_PAYLOAD', 'update_contracts[0].payload'],
    ]);
  });

  it('21: one bad entry among good ones: errors name only it (full-array index), no entry is returned', () => {
    const r = check([
      good(),
      { contract: 'notes', payload: { x: 1 } },
      good({ ac_id: 'AC-2' }),
      good({ brief_id: '7' }),
      good(),
    ]);
    expect(pairs(r.errors)).toEqual([['EVIDENCE_PAYLOAD', 'update_contracts[3].payload.brief_id']]);
    expect(r.entries).toEqual([]);
  });
});

describe('applyEvidenceBatchIn (inside the finalize transaction)', () => {
  it("inserts every entry in order with handoff_id; replace drops the row's earlier set", async () => {
    const hid = handoffRow();
    const { entries } = check([
      good(),
      entry({ brief_id: openBriefId, ac_id: 'anything', type: 'file', artifact_path: blobPath }),
    ]);
    expect(await applyEvidenceBatch(db, entries, { handoffId: hid, workspace: 'ws' })).toEqual({
      ok: true,
      inserted: 2,
    });
    const rows = db
      .prepare(
        'SELECT brief_id, ac_id, handoff_id, created_by_agent, artifact_path FROM evidence WHERE handoff_id = ? ORDER BY id',
      )
      .all(hid);
    expect(rows).toEqual([
      { brief_id: briefId, ac_id: 'AC-1', handoff_id: hid, created_by_agent: AGENT, artifact_path: null },
      { brief_id: openBriefId, ac_id: 'anything', handoff_id: hid, created_by_agent: AGENT, artifact_path: blobPath },
    ]);
    expect(
      await applyEvidenceBatch(db, check([good({ ac_id: 'AC-2' })]).entries, {
        handoffId: hid,
        workspace: 'ws',
        replace: true,
      }),
    ).toEqual({ ok: true, inserted: 1 });
    expect(db.prepare('SELECT ac_id FROM evidence WHERE handoff_id = ?').all(hid)).toEqual([{ ac_id: 'AC-2' }]);
    expect(await applyEvidenceBatch(db, [], { handoffId: hid, workspace: 'ws', replace: true })).toEqual({
      ok: true,
      inserted: 0,
    });
    expect(db.prepare('SELECT COUNT(*) AS n FROM evidence WHERE handoff_id = ?').get(hid)).toEqual({ n: 0 });
  });

  it('19: an undeclared ac (with a case hint), a brief of another workspace, no brief: all errors, zero rows', async () => {
    const hid = handoffRow();
    const before = evidenceCount();
    const { entries, errors } = check([
      good(),
      good({ ac_id: 'ac-1' }),
      good({ ac_id: 'AC-9' }),
      good({ brief_id: foreignBriefId }),
      good({ brief_id: 999 }),
    ]);
    expect(errors).toEqual([]);
    const r = await applyEvidenceBatch(db, entries, { handoffId: hid, workspace: 'ws', replace: true });
    expect(r.ok).toBe(false);
    const errs = r.ok ? [] : r.errors;
    expect(pairs(errs)).toEqual([
      ['EVIDENCE_UNKNOWN_AC', 'update_contracts[1].payload.ac_id'],
      ['EVIDENCE_UNKNOWN_AC', 'update_contracts[2].payload.ac_id'],
      ['EVIDENCE_BRIEF_NOT_FOUND', 'update_contracts[3].payload.brief_id'],
      ['EVIDENCE_BRIEF_NOT_FOUND', 'update_contracts[4].payload.brief_id'],
    ]);
    expect(errs[0].detail).toContain('did you mean "AC-1"');
    expect(evidenceCount()).toBe(before);
  });

  it("a brief is checked against the row's workspace: the foreign brief is fine for a row of its own workspace", async () => {
    const hid = handoffRow(`${AGENT}.000000000002`, 'other');
    expect(
      await applyEvidenceBatch(db, check([good({ brief_id: foreignBriefId })]).entries, {
        handoffId: hid,
        workspace: 'other',
      }),
    ).toEqual({
      ok: true,
      inserted: 1,
    });
  });
});
