import { chmodSync, mkdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { initialEnvelope } from '../../src/envelope/vocabulary.js';
import { run, tempHome } from '../helpers/cli.js';
import { draftPathOf, hasDb, initDraft, readDraftJson, runUnchanged } from '../helpers/drafts.js';

const DRAFT_RE = /^a[0-9a-f]{16}\.[0-9a-f]{12}$/;

describe('contract init', () => {
  it('acceptance 1: --json prints a well-formed draft id whose prefix is the agent id; no store is created', () => {
    const home = tempHome();
    const r = run(home, ['contract', 'init', '--json']);
    expect(r.code).toBe(0);
    // stderr holds only the claim token line (for whoever claims the contract later).
    expect(r.stderr).toBe(`claim_token=${r.json.claim_token}\n`);
    expect(Object.keys(r.json)).toEqual([
      'status',
      'draft_id',
      'agent_id',
      'agent_id_minted',
      'workspace',
      'claim_token',
    ]);
    expect(r.json.status).toBe('ok');
    expect(r.json.draft_id).toMatch(DRAFT_RE);
    expect(r.json.draft_id.split('.')[0]).toBe(r.json.agent_id);
    expect(r.json.agent_id_minted).toBe(true);
    expect(hasDb(home)).toBe(false);
  });

  it('writes the initial envelope in its key order, 2-space JSON, 0600 in a 0700 folder', () => {
    const home = tempHome();
    const id = initDraft(home);
    const agent = id.split('.')[0];
    const text = readFileSync(draftPathOf(home, id), 'utf8');
    // initialEnvelope's exact keys and order are pinned in test/validator/vocabulary.test.ts.
    expect(text).toBe(`${JSON.stringify(initialEnvelope(agent), null, 2)}\n`);
    expect(statSync(draftPathOf(home, id)).mode & 0o777).toBe(0o600);
    expect(statSync(join(home, 'drafts')).mode & 0o777).toBe(0o700);
  });

  it('human mode prints the four lines', () => {
    const home = tempHome();
    const r = run(home, ['contract', 'init']);
    expect(r.code).toBe(0);
    const lines = r.stdout.trimEnd().split('\n');
    expect(lines).toHaveLength(4);
    const id = lines[0].match(/^OK: draft (\S+) created\.$/)?.[1] ?? '';
    expect(id).toMatch(DRAFT_RE);
    expect(lines[1]).toBe(`agent_id: ${id.split('.')[0]}`);
    expect(lines[2]).toBe(`draft_id: ${id}`);
    expect(lines[3]).toContain(`--draft-id ${id}`);
    expect(lines[3]).toContain('agent_status.agent_id');
  });

  it('--agent-id keeps the agent; --draft-id is used as given', () => {
    const home = tempHome();
    const agent = 'a0123456789abcdef0';
    const a = run(home, ['contract', 'init', '--agent-id', agent, '--json']).json;
    expect([a.agent_id, a.agent_id_minted, a.draft_id.startsWith(`${agent}.`)]).toEqual([agent, false, true]);
    const d = run(home, ['contract', 'init', '--draft-id', `${agent}.abcdef`, '--json']).json;
    expect(d).toEqual({
      status: 'ok',
      draft_id: `${agent}.abcdef`,
      agent_id: agent,
      agent_id_minted: false,
      workspace: expect.any(String),
      claim_token: expect.stringMatching(/^hct_/),
    });
    expect(readDraftJson(home, `${agent}.abcdef`).agent_status.agent_id).toBe(agent);
    const both = run(home, ['contract', 'init', '--draft-id', `${agent}.abcdee`, '--agent-id', agent, '--json']);
    expect(both.code).toBe(0);
  });

  it('acceptance 2: init --draft-id <existing> → exit 1 DRAFT_EXISTS, file unchanged (bytes and mtime)', () => {
    const home = tempHome();
    const id = initDraft(home);
    const r = runUnchanged(home, ['contract', 'init', '--draft-id', id, '--json']);
    expect(r.code).toBe(1);
    expect(r.json).toMatchObject({ status: 'rejected', code: 'DRAFT_EXISTS', draft_id: id });
    expect(r.json.error).toContain('--draft-id');
    const human = runUnchanged(home, ['contract', 'init', '--draft-id', id]);
    expect(human.code).toBe(1);
    expect(human.stdout).toBe('');
    expect(human.stderr).toMatch(/^Rejected: .*already exists/);
  });

  it('an unreadable file under the id is an existing draft too', () => {
    const home = tempHome();
    const id = 'a0123456789abcdef.0123456789ab';
    mkdirSync(join(home, 'drafts'), { recursive: true });
    writeFileSync(draftPathOf(home, id), 'garbage');
    expect(runUnchanged(home, ['contract', 'init', '--draft-id', id, '--json']).json.code).toBe('DRAFT_EXISTS');
  });

  it('never opens or creates the store, even an unreadable one', () => {
    const home = tempHome();
    writeFileSync(join(home, 'handoff.db'), 'not a database');
    chmodSync(join(home, 'handoff.db'), 0o600);
    const r = run(home, ['contract', 'init', '--json']);
    expect(r.code).toBe(0);
    expect(readFileSync(join(home, 'handoff.db'), 'utf8')).toBe('not a database');
  });
});
