/**
 * Signed export end to end: statements stored as they happen, `attest export` of a chain, `attest verify`, and an
 * independent check of every line with @sigstore/verify's Verifier configured offline from the public key.
 */
import { createPublicKey } from 'node:crypto';
import { chmodSync, existsSync, readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { beforeAll, describe, expect, it } from 'vitest';
import { run, snapshot, tempHome } from '../helpers/cli.js';
import { canonicalJson } from '../../src/receipts/jcs.js';
import { generate, runOk, signedChain, type SignedChain } from '../helpers/attest.js';

const require = createRequire(import.meta.url);
const { bundleFromJSON } = require('@sigstore/bundle') as typeof import('@sigstore/bundle');
const { Verifier, toSignedEntity, toTrustMaterial } = require('@sigstore/verify') as typeof import('@sigstore/verify');

const rowsOf = (home: string, sql: string): Record<string, unknown>[] => {
  const db = new Database(join(home, 'handoff.db'), { readonly: true });
  try {
    return db.prepare(sql).all() as Record<string, unknown>[];
  } finally {
    db.close();
  }
};

const decode = (line: string): { bundle: any; statement: any } => {
  const bundle = JSON.parse(line);
  return { bundle, statement: JSON.parse(Buffer.from(bundle.dsseEnvelope.payload, 'base64').toString('utf8')) };
};

describe('a signed chain exports and verifies', () => {
  let c: SignedChain;
  let file: string;
  let lines: string[];
  beforeAll(() => {
    c = signedChain();
    file = join(c.home, 'chain.jsonl');
    const r = runOk(c.home, ['attest', 'export', '--chain', c.links[1], '--out', file, '--json'], c.env);
    expect(r.json).toMatchObject({
      status: 'ok',
      lines: 6,
      counts: { handoff: 3, receipt: 1, approval: 1 },
      signed_now: 1,
    });
    lines = readFileSync(file, 'utf8').trimEnd().split('\n');
  });

  it('stores every statement at write time, signed by the key that was configured', () => {
    const rows = rowsOf(
      c.home,
      'SELECT kind, subject_id, signer, key_id, signature, payload, payload_sha256 FROM attestations ORDER BY id',
    );
    expect(rows.map((r) => [r.kind, r.signer, r.key_id])).toEqual([
      ['handoff', 'store', c.storeKey.key_id],
      ['approval', 'approver', c.approverKey.key_id],
      ['receipt', 'store', c.storeKey.key_id],
      ['handoff', 'store', c.storeKey.key_id],
      ['handoff', 'store', c.storeKey.key_id],
    ]);
    for (const r of rows) {
      const statement = JSON.parse(r.payload as string);
      expect(canonicalJson(statement)).toBe(r.payload);
      expect(JSON.stringify(statement)).not.toMatch(/updated_at|harness_id|gate_seen_at|key_id|signature/);
    }
  });

  it('writes one v0.3 DSSE bundle per line: handoffs linked from genesis, receipt, approval, head last', () => {
    const st = lines.map((l) => decode(l));
    expect(st.map((s) => s.statement.predicateType)).toEqual([
      'urn:handoff:predicate:handoff:v1',
      'urn:handoff:predicate:handoff:v1',
      'urn:handoff:predicate:handoff:v1',
      'https://in-toto.io/attestation/test-result/v0.1',
      'urn:handoff:predicate:approval:v1',
      'urn:handoff:predicate:head:v2',
    ]);
    for (const s of st) {
      expect(s.bundle.mediaType).toBe('application/vnd.dev.sigstore.bundle.v0.3+json');
      expect(s.bundle.dsseEnvelope.payloadType).toBe('application/vnd.in-toto+json');
      expect(s.statement._type).toBe('https://in-toto.io/Statement/v1');
    }
    expect(st.map((s) => s.bundle.handoffSigned)).toEqual([
      'at-write',
      'at-write',
      'at-write',
      'at-write',
      'at-write',
      'at-export',
    ]);
    expect(st[0].statement.predicate.previous).toBe('genesis');
    expect(st[0].statement.subject[0].name).toBe(`handoff:${c.links[0]}`);
    expect(st[4].bundle.verificationMaterial.publicKey.hint).toBe(c.approverKey.key_id);
    expect(st[3].statement.predicate.result).toBe('PASSED');
    expect(st[5].statement.predicate.counts).toEqual({ handoff: 3, receipt: 1, approval: 1 });
  });

  it('attest verify accepts it (store key and approver key given), and names the lines', () => {
    const r = run(c.home, [
      'attest',
      'verify',
      file,
      '--key',
      c.storeKey.public_key,
      '--key',
      c.approverKey.public_key,
      '--json',
    ]);
    expect(r.code, r.stdout + r.stderr).toBe(0);
    expect(r.json).toMatchObject({
      status: 'ok',
      verified: true,
      lines: 6,
      counts: { handoff: 3, receipt: 1, approval: 1 },
    });
  });

  it('without the approver key the approval line is ATTEST_SIGNATURE at line 5', () => {
    const r = run(c.home, ['attest', 'verify', file, '--key', c.storeKey.public_key, '--json']);
    expect(r.code).toBe(1);
    expect(r.json).toMatchObject({ code: 'ATTEST_SIGNATURE', line: 5 });
  });

  it("@sigstore/verify's Verifier, offline from the public keys (thresholds 0), accepts every line", () => {
    const keys = new Map([
      [c.storeKey.key_id, createPublicKey(readFileSync(c.storeKey.public_key))],
      [c.approverKey.key_id, createPublicKey(readFileSync(c.approverKey.public_key))],
    ]);
    const trust = toTrustMaterial(
      { mediaType: '', certificateAuthorities: [], tlogs: [], ctlogs: [], timestampAuthorities: [] },
      (hint: string) => {
        const publicKey = keys.get(hint);
        if (publicKey === undefined) throw new Error(`unknown key ${hint}`);
        return { publicKey, validFor: () => true };
      },
    );
    const verifier = new Verifier(trust, { tlogThreshold: 0, ctlogThreshold: 0, tsaThreshold: 0 });
    for (const line of lines)
      expect(() => verifier.verify(toSignedEntity(bundleFromJSON(JSON.parse(line))))).not.toThrow();
    const bad = JSON.parse(lines[0]);
    bad.dsseEnvelope.payload = Buffer.from('{"_type":"forged"}').toString('base64');
    expect(() => verifier.verify(toSignedEntity(bundleFromJSON(bad)))).toThrow();
  });

  it('--contract-id exports the chain up to that contract', () => {
    const part = join(c.home, 'part.jsonl');
    const r = runOk(c.home, ['attest', 'export', '--contract-id', c.links[0], '--out', part, '--json'], c.env);
    expect(r.json).toMatchObject({ counts: { handoff: 1, receipt: 0, approval: 1 } });
    expect(
      run(c.home, ['attest', 'verify', part, '--key', c.storeKey.public_key, '--key', c.approverKey.public_key]).code,
    ).toBe(0);
  });
});

describe('keys', () => {
  it('key generate writes a 0600 private key and its public key; ed25519 too; never overwrites', () => {
    const home = tempHome();
    const k = generate(home, 'k');
    expect(readFileSync(k.private_key, 'utf8')).toContain('BEGIN PRIVATE KEY');
    expect(readFileSync(k.public_key, 'utf8')).toContain('BEGIN PUBLIC KEY');
    expect(require('node:fs').statSync(k.private_key).mode & 0o777).toBe(0o600);
    expect(generate(home, 'k', 'ed25519').key_id).toMatch(/^[0-9a-f]{64}$/);
    const bad = run(home, ['key', 'generate', '--type', 'rsa', '--json']);
    expect(bad.code).toBe(2);
    expect(bad.json.code).toBe('USAGE');
  });

  it('defaults to $XDG_CONFIG_HOME/handoff/keys, outside the data root', () => {
    const home = tempHome();
    const xdg = tempHome('handoff-xdg-');
    const r = run(home, ['key', 'generate', '--json'], { env: { XDG_CONFIG_HOME: xdg } });
    expect(r.code, r.stderr).toBe(0);
    expect(r.json.private_key.startsWith(join(xdg, 'handoff', 'keys'))).toBe(true);
    expect(Object.keys(snapshot(home))).toEqual([]);
  });

  it('a private key readable by others is KEY_UNSAFE (exit 2) and finalize writes nothing', () => {
    const home = tempHome();
    const k = generate(home, 'k');
    chmodSync(k.private_key, 0o644);
    const id = (runOk(home, ['contract', 'init', '--json']).json as { draft_id: string }).draft_id;
    runOk(home, ['contract', 'set', 'agent_status.agent_state', 'BLOCKED', '--draft-id', id]);
    const before = snapshot(home);
    const r = run(home, ['contract', 'finalize', '--draft-id', id, '--json'], {
      env: { HANDOFF_SIGNING_KEY: k.private_key },
    });
    expect(r.code).toBe(2);
    expect(r.json.code).toBe('KEY_UNSAFE');
    expect(snapshot(home)).toEqual(before);
    expect(existsSync(join(home, 'handoff.db'))).toBe(false);
  });

  it('contract verify signs its receipt like evidence run (a FAILED result for a failing command)', () => {
    const home = tempHome();
    const k = generate(home, 'k');
    const id = (runOk(home, ['contract', 'init', '--json']).json as { draft_id: string }).draft_id;
    runOk(home, [
      'contract',
      'fill',
      '--draft-id',
      id,
      '--json',
      JSON.stringify({ evidence_report: { verification: { type: 'command', command: 'exit 1' } } }),
    ]);
    const r = run(home, ['contract', 'verify', '--draft-id', id, '--json'], {
      env: { HANDOFF_SIGNING_KEY: k.private_key },
    });
    expect(r.code, r.stdout + r.stderr).toBe(1);
    const rows = rowsOf(home, 'SELECT kind, signer, key_id, payload FROM attestations');
    expect(rows.map((x) => [x.kind, x.signer, x.key_id])).toEqual([['receipt', 'store', k.key_id]]);
    expect(JSON.parse(rows[0].payload as string).predicate).toMatchObject({
      result: 'FAILED',
      receipt: { exit_code: 1, argv: ['exit 1'] },
    });
  });

  it('evidence run with an unsafe key is KEY_UNSAFE before the command starts', () => {
    const home = tempHome();
    const k = generate(home, 'k');
    chmodSync(k.private_key, 0o640);
    const id = (runOk(home, ['contract', 'init', '--json']).json as { draft_id: string }).draft_id;
    const marker = join(home, 'ran');
    const r = run(
      home,
      [
        'evidence',
        'run',
        '--draft-id',
        id,
        '--json',
        '--',
        process.execPath,
        '-e',
        `require('fs').writeFileSync(${JSON.stringify(marker)}, '')`,
      ],
      {
        env: { HANDOFF_SIGNING_KEY: k.private_key },
      },
    );
    expect([r.code, r.json?.code]).toEqual([2, 'KEY_UNSAFE']);
    expect(existsSync(marker)).toBe(false);
  });

  it('without a key finalize still stores its statement payload, unsigned; export is KEY_REQUIRED', () => {
    const home = tempHome();
    const id = (runOk(home, ['contract', 'init', '--json']).json as { draft_id: string }).draft_id;
    runOk(home, ['contract', 'set', 'agent_status.agent_state', 'BLOCKED', '--draft-id', id]);
    runOk(home, ['contract', 'finalize', '--draft-id', id]);
    const rows = rowsOf(home, 'SELECT kind, subject_id, signer, key_id, signature FROM attestations');
    expect(rows).toEqual([{ kind: 'handoff', subject_id: id, signer: null, key_id: null, signature: null }]);
    const r = run(home, ['attest', 'export', '--chain', id, '--out', join(home, 'x.jsonl'), '--json']);
    expect(r.code).toBe(2);
    expect(r.json.code).toBe('KEY_REQUIRED');
    expect(existsSync(join(home, 'x.jsonl'))).toBe(false);
    expect(rowsOf(home, 'SELECT COUNT(*) AS n FROM attestations')).toEqual([{ n: 1 }]);
    // Signed now, and the line says so outside the payload.
    const k = generate(home, 'k');
    runOk(home, ['attest', 'export', '--chain', id, '--out', join(home, 'x.jsonl')], {
      HANDOFF_SIGNING_KEY: k.private_key,
    });
    const first = JSON.parse(readFileSync(join(home, 'x.jsonl'), 'utf8').split('\n')[0]);
    expect(first.handoffSigned).toBe('at-export');
    expect(run(home, ['attest', 'verify', join(home, 'x.jsonl'), '--key', k.public_key]).code).toBe(0);
  });

  it('an unreadable file is UNREADABLE_INPUT (exit 2)', () => {
    const home = tempHome();
    const k = generate(home, 'k');
    const r = run(home, ['attest', 'verify', join(home, 'missing.jsonl'), '--key', k.public_key, '--json']);
    expect(r.code).toBe(2);
    expect(r.json.code).toBe('UNREADABLE_INPUT');
  });
});
