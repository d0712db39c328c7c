/**
 * The update_contracts evidence clause through the binary (`contract finalize`): the attack rows
 * that target update_contracts (5–12, 16–21). Each refusal: exit 1, status rejected, the named code at the entry's
 * path, nothing written (no handoff row, no evidence row, the home byte-identical).
 */
import { mkdirSync, mkdtempSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { run, snapshot, tempHome } from '../helpers/cli.js';
import { addBrief, counts } from '../helpers/evidence.js';
import { envelopeIn, mintDraft, prefix, writeDraft } from '../helpers/store-cli.js';

interface Setup {
  home: string;
  briefId: number;
  foreignBriefId: number;
  blob: string;
  id: string;
}

function setup(): Setup {
  const home = tempHome();
  const briefId = addBrief(home, 'pay', ['AC-1', 'AC-2']).brief.id as number;
  const foreignBriefId = addBrief(home, 'pay', ['AC-1'], 'other').brief.id as number;
  const r = run(home, [
    'evidence',
    'add',
    '--brief',
    'pay',
    '--ac',
    'AC-1',
    '--type',
    'text',
    '--text',
    'B'.repeat(5000),
    '--workspace',
    'ws',
    '--json',
  ]);
  expect(r.code, r.stderr).toBe(0);
  return { home, briefId, foreignBriefId, blob: r.json.evidence.artifact_path, id: mintDraft() };
}

const finalize = (s: Setup) => run(s.home, ['contract', 'finalize', '--draft-id', s.id, '--workspace', 'ws', '--json']);

/** Writes the draft with `uc`, finalizes, and checks a rejection with exactly `pairs`, writing nothing. */
function rejects(s: Setup, uc: unknown[], pairs: [string, string][]): any {
  writeDraft(s.home, s.id, envelopeIn(prefix(s.id), 'BLOCKED', { update_contracts: uc }));
  const before = { tree: snapshot(s.home), counts: counts(s.home) };
  const r = finalize(s);
  expect(r.code, r.stdout + r.stderr).toBe(1);
  expect(r.stderr).not.toMatch(/\n\s+at /);
  expect(r.json.status).toBe('rejected');
  expect(r.json.errors.map((e: any) => [e.code, e.path])).toEqual(pairs);
  expect({ tree: snapshot(s.home), counts: counts(s.home) }).toEqual(before);
  expect(before.counts.handoffs).toBe(0);
  return r.json;
}

const ev = (s: Setup, payload: Record<string, unknown>) => ({
  contract: 'evidence',
  payload: { brief_id: s.briefId, ac_id: 'AC-1', type: 'file', ...payload },
});
const PATH_ERR = (i = 0): [string, string] => [
  'EVIDENCE_ARTIFACT_PATH',
  `update_contracts[${i}].payload.artifact_path`,
];
const PAYLOAD_ERR = (field?: string, i = 0): [string, string] => [
  'EVIDENCE_PAYLOAD',
  `update_contracts[${i}].payload${field ? `.${field}` : ''}`,
];

describe('contract finalize: the update_contracts evidence clause', () => {
  it('accepts a deposited blob path and inline text; stores the resolved path, computed size and sha256', () => {
    const s = setup();
    const alias = join(s.home, 'evidence', 'ws', 'pay', 'AC-1', '..', 'AC-1', s.blob.split('/').pop() as string);
    const uc = [
      ev(s, { artifact_path: alias, size_bytes: 5000 }),
      { contract: 'evidence', payload: { brief_id: s.briefId, ac_id: 'AC-2', type: 'text', text: 'PASS' } },
    ];
    writeDraft(s.home, s.id, envelopeIn(prefix(s.id), 'BLOCKED', { update_contracts: uc }));
    const r = finalize(s);
    expect(r.json, r.stderr).toMatchObject({ status: 'ok', created: true, evidence_inserted: 2 });
    const list = run(s.home, ['evidence', 'list', '--brief', 'pay', '--workspace', 'ws', '--json']).json.evidence;
    const fromFinalize = list.filter((e: any) => e.handoff_id === r.json.handoff_id);
    expect(fromFinalize.map((e: any) => [e.ac_id, e.artifact_path, e.text, e.size_bytes, e.created_by_agent])).toEqual([
      ['AC-1', s.blob, null, 5000, prefix(s.id)],
      ['AC-2', null, 'PASS', 4, prefix(s.id)],
    ]);
    expect(fromFinalize[0].sha256).toBe(list.find((e: any) => e.handoff_id === null).sha256);
  });

  it('row 5: a symlink (or a path through one) resolving outside the root', () => {
    const s = setup();
    const outside = join(mkdtempSync(join(tmpdir(), 'handoff-out-')), 'secret.txt');
    writeFileSync(outside, 'secret');
    symlinkSync(outside, join(s.home, 'evidence', 'ws', 'pay', 'AC-1', 'evil.txt'));
    symlinkSync(join(outside, '..'), join(s.home, 'evidence', 'ws', 'up'));
    const j = rejects(
      s,
      [
        ev(s, { artifact_path: join(s.home, 'evidence', 'ws', 'pay', 'AC-1', 'evil.txt') }),
        ev(s, { artifact_path: join(s.home, 'evidence', 'ws', 'up', 'secret.txt') }),
      ],
      [PATH_ERR(0), PATH_ERR(1)],
    );
    expect(j.errors[0].detail).toContain('resolves outside the evidence root');
  });

  it('row 6: /etc/passwd, /tmp/x, the drafts folder, the DB file', () => {
    const s = setup();
    const tmp = join(mkdtempSync(join(tmpdir(), 'handoff-x-')), 'x');
    writeFileSync(tmp, 'x');
    const paths = ['/etc/passwd', tmp, join(s.home, 'drafts', `${s.id}.json`), join(s.home, 'handoff.db')];
    rejects(
      s,
      paths.map((p) => ev(s, { artifact_path: p })),
      paths.map((_, i) => PATH_ERR(i)),
    );
  });

  it('row 7: prefix look-alikes <root>/evidence-old/x and <root>/evidence2/x', () => {
    const s = setup();
    const paths = ['evidence-old', 'evidence2'].map((d) => {
      mkdirSync(join(s.home, d));
      writeFileSync(join(s.home, d, 'x'), 'x');
      return join(s.home, d, 'x');
    });
    rejects(
      s,
      paths.map((p) => ev(s, { artifact_path: p })),
      [PATH_ERR(0), PATH_ERR(1)],
    );
  });

  it('rows 8-10: the root itself, a directory below it, a missing file below it', () => {
    const s = setup();
    const root = join(s.home, 'evidence');
    const paths = [
      root,
      `${root}/`,
      `${root}/ws/..`,
      join(root, 'ws', 'pay'),
      join(root, 'ws', 'pay', 'AC-1', '00000000-0000-4000-8000-000000000000.txt'),
    ];
    const j = rejects(
      s,
      paths.map((p) => ev(s, { artifact_path: p })),
      paths.map((_, i) => PATH_ERR(i)),
    );
    expect(j.errors.map((e: any) => e.detail)).toEqual([
      expect.stringContaining('evidence root itself'),
      expect.stringContaining('evidence root itself'),
      expect.stringContaining('evidence root itself'),
      expect.stringContaining('not a regular file'),
      expect.stringContaining('does not exist'),
    ]);
  });

  it('rows 11-12: relative, ~/, file:// URL, a NUL byte, an overlong path, a non-string', () => {
    const s = setup();
    const paths: unknown[] = [
      'evidence/ws/pay/AC-1/x.txt',
      '~/x.txt',
      `file://${s.blob}`,
      `${s.blob}\u0000`,
      `/${'a/'.repeat(3000)}x`,
      42,
    ];
    rejects(
      s,
      paths.map((p) => ev(s, { artifact_path: p })),
      paths.map((_, i) => PATH_ERR(i)),
    );
  });

  it('row 16: brief_id true, "7", 7.5, 0, -3, 1e300, null, [7]', () => {
    const s = setup();
    const values = [true, '7', 7.5, 0, -3, 1e300, null, [7]];
    rejects(
      s,
      values.map((v) => ev(s, { brief_id: v, type: 'text', text: 'x' })),
      values.map((_, i) => PAYLOAD_ERR('brief_id', i)),
    );
  });

  it('row 17: type ["text"], {}, "TEXT", 5 (no crash)', () => {
    const s = setup();
    const values = [['text'], {}, 'TEXT', 5];
    rejects(
      s,
      values.map((v) => ev(s, { type: v, text: 'x' })),
      values.map((_, i) => PAYLOAD_ERR('type', i)),
    );
  });

  it('row 18: both text and artifact_path; neither; text ""; text over 4096 bytes', () => {
    const s = setup();
    rejects(
      s,
      [ev(s, { text: 'x', artifact_path: s.blob }), ev(s, {}), ev(s, { text: '' }), ev(s, { text: 'y'.repeat(4097) })],
      [PAYLOAD_ERR(undefined, 0), PAYLOAD_ERR(undefined, 1), PAYLOAD_ERR('text', 2), PAYLOAD_ERR('text', 3)],
    );
  });

  it('row 19: an undeclared ac_id, a brief of another workspace, no brief (step 10, inside the transaction)', () => {
    const s = setup();
    const j = rejects(
      s,
      [
        ev(s, { ac_id: 'ac-1', text: 'x', type: 'text' }),
        ev(s, { brief_id: s.foreignBriefId, text: 'x', type: 'text' }),
        ev(s, { brief_id: 999, text: 'x', type: 'text' }),
      ],
      [
        ['EVIDENCE_UNKNOWN_AC', 'update_contracts[0].payload.ac_id'],
        ['EVIDENCE_BRIEF_NOT_FOUND', 'update_contracts[1].payload.brief_id'],
        ['EVIDENCE_BRIEF_NOT_FOUND', 'update_contracts[2].payload.brief_id'],
      ],
    );
    expect(j.errors[0].detail).toContain('did you mean "AC-1"');
  });

  it('row 20: size_bytes that does not match, "812", -1, true', () => {
    const s = setup();
    const values = [3, '812', -1, true];
    rejects(
      s,
      [
        ...values.map((v) => ev(s, { type: 'text', text: 'x', size_bytes: v })),
        ev(s, { artifact_path: s.blob, size_bytes: 4999 }),
      ],
      [0, 1, 2, 3, 4].map((i) => PAYLOAD_ERR('size_bytes', i)),
    );
  });

  it('row 21: one bad entry among several good ones: the whole finalize is rejected, zero rows written', () => {
    const s = setup();
    const good = ev(s, { type: 'text', text: 'fine' });
    const j = rejects(
      s,
      [
        good,
        { contract: 'notes', payload: { any: 1 } },
        ev(s, { artifact_path: s.blob }),
        ev(s, { type: 'text', text: 'x', extra: true }),
        good,
      ],
      [PAYLOAD_ERR('extra', 3)],
    );
    expect(j.codes).toEqual(['EVIDENCE_PAYLOAD']);
  });
});
