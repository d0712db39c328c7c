/** Cases of `key generate`, `attest export` and `attest verify`: a signed BLOCKED turn exported and verified. */
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { expect } from 'vitest';
import type { ResultCase } from '../case.js';
import { hf, ok } from './setup.js';

/** A key pair in `home`/keys, and one finalized BLOCKED contract signed with it; returns the ids and paths. */
function signedTurn(home: string): { id: string; key: { private_key: string; public_key: string }; env: Record<string, string> } {
  const key = ok(home, ['key', 'generate', '--out', join(home, 'keys'), '--json']);
  const env = { HANDOFF_SIGNING_KEY: key.private_key as string };
  const id = ok(home, ['contract', 'init', '--json'], { env }).draft_id as string;
  ok(home, ['contract', 'set', 'agent_status.agent_state', 'BLOCKED', '--draft-id', id, '--json'], { env });
  ok(home, ['contract', 'finalize', '--draft-id', id, '--json'], { env });
  return { id, key, env };
}

export const ATTEST_CASES: ResultCase[] = [
  {
    verb: 'key generate',
    schema: 'key-generate',
    name: 'an Ed25519 pair written into a folder',
    exit: 0,
    produce: (home) => hf(home, ['key', 'generate', '--type', 'ed25519', '--out', join(home, 'keys'), '--json']),
    expect: (j) => expect([j.type, j.private_key.startsWith(j.public_key.slice(0, -4))]).toEqual(['ed25519', true]),
    wrong: { 'an RSA key': (j) => ({ ...j, type: 'rsa' }) },
  },
  {
    verb: 'key generate',
    schema: 'error',
    name: 'an unknown --type: USAGE',
    exit: 2,
    produce: (home) => hf(home, ['key', 'generate', '--type', 'rsa', '--json']),
    expect: (j) => expect(j.code).toBe('USAGE'),
  },
  {
    verb: 'attest export',
    schema: 'attest-export',
    name: 'a one-contract chain, its statement signed at finalize',
    exit: 0,
    produce: (home) => {
      const t = signedTurn(home);
      return hf(home, ['attest', 'export', '--chain', t.id, '--out', join(home, 'x.jsonl'), '--json'], { env: t.env });
    },
    expect: (j) => expect([j.lines, j.counts, j.signed_now]).toEqual([2, { handoff: 1, receipt: 0, approval: 0 }, 1]),
    wrong: { 'nothing signed now (the head always is)': (j) => ({ ...j, signed_now: 0 }) },
  },
  {
    verb: 'attest export',
    schema: 'attest-export-a2a',
    name: '--format a2a: the chain as A2A v1 Tasks, no key needed',
    exit: 0,
    produce: (home) => {
      const t = signedTurn(home);
      return hf(home, ['attest', 'export', '--format', 'a2a', '--chain', t.id, '--out', join(home, 'x.jsonl'), '--json']);
    },
    expect: (j) => expect([j.tasks, j.states]).toEqual([1, { TASK_STATE_FAILED: 1 }]),
    wrong: {
      'a v0.3 state spelling': (j) => ({ ...j, states: { failed: 1 } }),
      'no task': (j) => ({ ...j, tasks: 0, states: {} }),
    },
  },
  {
    verb: 'attest export',
    schema: 'error',
    name: 'no signing key: KEY_REQUIRED',
    exit: 2,
    produce: (home) => {
      const t = signedTurn(home);
      return hf(home, ['attest', 'export', '--chain', t.id, '--out', join(home, 'x.jsonl'), '--json']);
    },
    expect: (j) => expect(j.code).toBe('KEY_REQUIRED'),
  },
  {
    verb: 'attest verify',
    schema: 'attest-verify',
    name: 'the export verifies with the public key',
    exit: 0,
    produce: (home) => {
      const t = signedTurn(home);
      ok(home, ['attest', 'export', '--chain', t.id, '--out', join(home, 'x.jsonl'), '--json'], { env: t.env });
      return hf(home, ['attest', 'verify', join(home, 'x.jsonl'), '--key', t.key.public_key, '--json']);
    },
    expect: (j) => expect([j.verified, j.lines, j.counts.handoff]).toEqual([true, 2, 1]),
    wrong: { 'not verified': (j) => ({ ...j, verified: false }) },
  },
  {
    verb: 'attest verify',
    schema: 'error',
    name: 'a file that is not an export: ATTEST_CHAIN at line 1 (empty)',
    exit: 1,
    produce: (home) => {
      const key = ok(home, ['key', 'generate', '--out', join(home, 'keys'), '--json']);
      writeFileSync(join(home, 'empty.jsonl'), '');
      return hf(home, ['attest', 'verify', join(home, 'empty.jsonl'), '--key', key.public_key, '--json']);
    },
    expect: (j) => expect([j.status, j.code, j.line]).toEqual(['rejected', 'ATTEST_CHAIN', 1]),
  },
];
