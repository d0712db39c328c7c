import { createHash } from 'node:crypto';
import { existsSync, readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { run, snapshot, tempHome } from '../helpers/cli.js';
import { COMPLETE_PATCH, dispatchJson, finalizeAs, gate, row, stopInput } from '../helpers/gate.js';
import { buildAt } from '../helpers/store.js';
import { dbFile, draftPath, envelopeIn, insertRow, mintDraft, prefix, writeDraft } from '../helpers/store-cli.js';

const sha256 = (text: string): string => createHash('sha256').update(text).digest('hex');

const claim = (home: string, args: string[], token?: string) =>
  run(home, ['contract', 'claim', ...args, '--json'], { env: { HANDOFF_CLAIM_TOKEN: token } });

describe('contract claim', () => {
  it('sets the harness id once; a repeat is a no-op; human output', () => {
    const home = tempHome();
    const d = dispatchJson(home, ['--goal', 'g']);
    const r = claim(home, ['--harness-id', 'agent-1', '--draft-id', d.contract_id, '--claim-token', d.claim_token]);
    expect(r.code, r.stderr).toBe(0);
    expect(r.json).toEqual({
      status: 'ok',
      contract_id: d.contract_id,
      handoff_id: d.handoff_id,
      harness_id: 'agent-1',
      changed: true,
    });
    expect(row(home, d.contract_id).harness_id).toBe('agent-1');
    const again = claim(home, ['--harness-id', 'agent-1', '--contract-id', d.contract_id], d.claim_token);
    expect(again.json.changed).toBe(false);
    const human = run(home, ['contract', 'claim', '--harness-id', 'agent-1', '--draft-id', d.contract_id], {
      env: { HANDOFF_CLAIM_TOKEN: d.claim_token },
    });
    expect(human.stdout).toMatch(/^OK: contract .* already carries harness id agent-1; no-op\.\n$/);
  });

  it('is allowed on a COMPLETE row and follows the chain to the live tip', () => {
    const home = tempHome();
    const d = dispatchJson(home, ['--goal', 'g']);
    finalizeAs(home, d.contract_id, 'COMPLETE', COMPLETE_PATCH);
    expect(claim(home, ['--harness-id', 'done-run', '--draft-id', d.contract_id], d.claim_token).json.changed).toBe(
      true,
    );

    const e = dispatchJson(home, ['--goal', 'h']);
    finalizeAs(home, e.contract_id, 'BLOCKED');
    const w = run(home, ['contract', 'set', 'work_phase', 'executing', '--draft-id', e.contract_id, '--json']);
    expect(w.code, w.stderr).toBe(0);
    const tip = w.json.draft_id as string;
    expect(tip).not.toBe(e.contract_id);
    const r = claim(home, ['--harness-id', 'later-run', '--draft-id', e.contract_id], e.claim_token);
    expect(r.json).toMatchObject({ contract_id: tip, changed: true });
    expect(row(home, tip).harness_id).toBe('later-run');
    expect(row(home, e.contract_id).harness_id).toBeNull();
  });

  it('refuses a different id (HARNESS_ID_CONFLICT) and an id another chain carries (HARNESS_ID_IN_USE), writing nothing', () => {
    const home = tempHome();
    const a = dispatchJson(home, ['--goal', 'a', '--harness-id', 'run-a']);
    const b = dispatchJson(home, ['--goal', 'b']);
    for (const [args, code] of [
      [['--harness-id', 'run-x', '--draft-id', a.contract_id], 'HARNESS_ID_CONFLICT'],
      [['--harness-id', 'run-a', '--draft-id', b.contract_id], 'HARNESS_ID_IN_USE'],
    ] as const) {
      const before = snapshot(home);
      const r = claim(home, [...args], args[3] === a.contract_id ? a.claim_token : b.claim_token);
      expect(r.code).toBe(1);
      expect(r.json).toMatchObject({ status: 'rejected', code });
      expect(snapshot(home)).toEqual(before);
    }
  });

  it('a dispatched contract needs its claim token: none is CLAIM_TOKEN_REQUIRED (2), a wrong one CLAIM_TOKEN_INVALID (1); nothing written', () => {
    const home = tempHome();
    const d = dispatchJson(home, ['--goal', 'g']);
    const other = dispatchJson(home, ['--goal', 'h']);
    expect(d.claim_token).toMatch(/^hct_[A-Za-z0-9_-]{43}$/);
    expect(d.contract_block).not.toContain(d.claim_token);
    expect(row(home, d.contract_id).claim_token_sha256).toBe(createHash('sha256').update(d.claim_token).digest('hex'));
    for (const [token, exit, code] of [
      [undefined, 2, 'CLAIM_TOKEN_REQUIRED'],
      ['', 2, 'CLAIM_TOKEN_REQUIRED'],
      [other.claim_token, 1, 'CLAIM_TOKEN_INVALID'],
      ['hct_guess', 1, 'CLAIM_TOKEN_INVALID'],
    ] as const) {
      const before = snapshot(home);
      const r = claim(home, ['--harness-id', 'thief', '--draft-id', d.contract_id], token);
      expect([r.code, r.json.code], r.stdout).toEqual([exit, code]);
      expect(JSON.stringify(r.json)).not.toContain(d.claim_token);
      expect(snapshot(home)).toEqual(before);
    }
    // The flag works as the variable does, and beats it.
    const ok = claim(home, ['--harness-id', 'run-1', '--draft-id', d.contract_id, '--claim-token', d.claim_token], 'x');
    expect(ok.json).toMatchObject({ status: 'ok', changed: true });
  });

  it('init prints a claim token (--json and stderr, never stdout text or the draft); the sidecar keeps only its sha256, 0600', () => {
    const home = tempHome();
    const j = run(home, ['contract', 'init', '--workspace', 'ws', '--json']);
    expect(j.code, j.stderr).toBe(0);
    const token = j.json.claim_token as string;
    expect(token).toMatch(/^hct_[A-Za-z0-9_-]{43}$/);
    expect(j.stderr).toBe(`claim_token=${token}\n`);
    const hash = sha256(token);
    const id = j.json.draft_id as string;
    expect(readFileSync(draftPath(home, id), 'utf8')).not.toContain(token);
    expect(readFileSync(draftPath(home, id), 'utf8')).not.toContain(hash);
    const side = join(home, 'drafts', `${id}.meta.json`);
    expect(JSON.parse(readFileSync(side, 'utf8'))).toMatchObject({ workspace: 'ws', claim_token_sha256: hash });
    expect(readFileSync(side, 'utf8')).not.toContain(token);
    expect(statSync(side).mode & 0o777).toBe(0o600);
    // Human mode: stdout keeps its lines, the token goes to stderr only; every init mints a new one.
    const h = run(home, ['contract', 'init', '--workspace', 'ws']);
    expect(h.code, h.stderr).toBe(0);
    expect(h.stdout).not.toContain('claim_token');
    const line = /^claim_token=(hct_[A-Za-z0-9_-]{43})$/m.exec(h.stderr);
    expect(line?.[1]).toBeDefined();
    expect(line?.[1]).not.toBe(token);
    // A sidecar whose hash is not one is refused as unreadable, never trusted.
    writeFileSync(side, JSON.stringify({ workspace: 'ws', claim_token_sha256: 'x' }));
    const f = run(home, ['contract', 'finalize', '--draft-id', id, '--json']);
    expect([f.code, f.json.code]).toEqual([3, 'DRAFT_UNREADABLE']);
    expect(existsSync(dbFile(home))).toBe(false);
  });

  it('an init contract, once finalized, is claimed only with the token init printed; nothing written otherwise', () => {
    const home = tempHome();
    const init = run(home, ['contract', 'init', '--workspace', 'ws', '--json']).json;
    const other = run(home, ['contract', 'init', '--workspace', 'ws', '--json']).json;
    const id = init.draft_id as string;
    finalizeAs(home, id, 'COMPLETE', COMPLETE_PATCH);
    expect(row(home, id).claim_token_sha256).toBe(sha256(init.claim_token));
    for (const [token, exit, code] of [
      [undefined, 2, 'CLAIM_TOKEN_REQUIRED'],
      [other.claim_token, 1, 'CLAIM_TOKEN_INVALID'],
    ] as const) {
      const before = snapshot(home);
      const r = claim(home, ['--harness-id', 'thief', '--draft-id', id], token);
      expect([r.code, r.json.code], r.stdout).toEqual([exit, code]);
      expect(snapshot(home)).toEqual(before);
    }
    expect(claim(home, ['--harness-id', 'run-1', '--draft-id', id], init.claim_token).json).toMatchObject({
      status: 'ok',
      changed: true,
    });
  });

  it("the gate's capture of an init draft gives the row the draft's hash, as finalize would", () => {
    const home = tempHome();
    dispatchJson(home, ['--goal', 'g']); // the store exists: the gate captures only into one
    const init = run(home, ['contract', 'init', '--workspace', 'ws', '--json']).json;
    const id = init.draft_id as string;
    expect(run(home, ['contract', 'set', 'work_phase', 'executing', '--draft-id', id]).code).toBe(0);
    const g = gate(home, ['--draft-id', id], stopInput({ session: 's-1' }));
    expect(g.code, g.stderr).toBe(2);
    expect(row(home, id)).toMatchObject({ agent_state: 'IN_PROGRESS', claim_token_sha256: sha256(init.claim_token) });
    expect(claim(home, ['--harness-id', 'thief', '--draft-id', id]).json.code).toBe('CLAIM_TOKEN_REQUIRED');
  });

  it('contracts created before the migration keep the old rule: claimed without a token', () => {
    const home = tempHome();
    // A store at the schema before claim tokens, holding a dispatched row and an init draft's finalized row.
    const v9 = buildAt(dbFile(home), 9);
    const dispatched = mintDraft();
    const initBorn = mintDraft();
    insertRow(v9, { contract_id: dispatched });
    insertRow(v9, { contract_id: initBorn, agent_state: 'COMPLETE', kind: null });
    v9.close();
    // A draft made by an init from before tokens: a sidecar without a hash.
    const old = mintDraft();
    writeDraft(home, old, envelopeIn(prefix(old), 'COMPLETE'));
    writeFileSync(join(home, 'drafts', `${old}.meta.json`), '{"workspace":"ws"}\n');
    expect(run(home, ['contract', 'finalize', '--draft-id', old, '--json']).code).toBe(0);
    for (const [id, hid] of [
      [dispatched, 'run-1'],
      [initBorn, 'run-2'],
      [old, 'run-3'],
    ]) {
      expect(row(home, id).claim_token_sha256).toBeNull();
      const r = claim(home, ['--harness-id', hid, '--draft-id', id]);
      expect(r.json, id).toMatchObject({ status: 'ok', changed: true });
    }
  });

  it('no list, view or chain output shows the token or its hash', () => {
    const home = tempHome();
    const d = dispatchJson(home, ['--goal', 'g']);
    const hash = row(home, d.contract_id).claim_token_sha256 as string;
    for (const args of [
      ['contract', 'list', '--json'],
      ['contract', 'view', '--draft-id', d.contract_id, '--json'],
      ['contract', 'chain', '--draft-id', d.contract_id, '--json'],
      ['contract', 'view', '--draft-id', d.contract_id],
    ]) {
      const r = run(home, args);
      expect(r.code, r.stderr).toBe(0);
      expect(r.stdout + r.stderr).not.toContain(hash);
      expect(r.stdout + r.stderr).not.toContain(d.claim_token);
      expect(r.stdout + r.stderr).not.toContain('claim_token');
    }
  });

  it('ROW_NOT_FOUND (exit 3) without a store (not created) or without a row', () => {
    const home = tempHome();
    const id = 'a0123456789abcdef.0123456789ab';
    const r = claim(home, ['--harness-id', 'x', '--draft-id', id]);
    expect(r.code).toBe(3);
    expect(r.json.code).toBe('ROW_NOT_FOUND');
    expect(readdirSync(home)).toEqual([]);
    dispatchJson(home, ['--goal', 'g']);
    expect(claim(home, ['--harness-id', 'x', '--draft-id', id]).json.code).toBe('ROW_NOT_FOUND');
  });

  it.each<[string[], string]>([
    [['--draft-id', 'a0123456789abcdef.0123456789ab'], 'USAGE'],
    [['--harness-id', 'x'], 'USAGE'],
    [
      [
        '--harness-id',
        'x',
        '--draft-id',
        'a0123456789abcdef.0123456789ab',
        '--contract-id',
        'a0123456789abcdef.0123456789ab',
      ],
      'USAGE',
    ],
    [['--harness-id', 'x y', '--draft-id', 'a0123456789abcdef.0123456789ab'], 'USAGE'],
    [['--harness-id', 'x', '--draft-id', 'nope'], 'INVALID_DRAFT_ID'],
  ])('usage errors exit 2 before any access: %j', (args, code) => {
    const home = tempHome();
    const r = claim(home, args);
    expect(r.code).toBe(2);
    expect(r.json.code).toBe(code);
    expect(existsSync(join(home, 'handoff.db'))).toBe(false);
  });
});
