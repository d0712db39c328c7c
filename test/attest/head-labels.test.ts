/**
 * Labels through the head: the signed head lists every line's payload digest with how it was
 * signed, `attest verify` reports a label only from that head, a `handoffSigned` mark changed beside a bundle is
 * rejected, and `--chain`/`--tip` refuse a file of another chain signed with the same key.
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { beforeAll, describe, expect, it } from 'vitest';
import { run } from '../helpers/cli.js';
import { runOk, signedChain, type SignedChain } from '../helpers/attest.js';

const statementOf = (line: string): { predicateType: string; predicate: any; subject: { name: string }[] } =>
  JSON.parse(Buffer.from(JSON.parse(line).dsseEnvelope.payload, 'base64').toString('utf8'));
const payloadOf = (line: string): string =>
  Buffer.from(JSON.parse(line).dsseEnvelope.payload, 'base64').toString('utf8');

describe('labels through the signed head, and the chain a file is of', () => {
  let c: SignedChain;
  let keys: string[];
  let file: string;
  let lines: string[];
  /** A second chain in the same store, finalized without a key (its handoff is signed by the export). */
  let other: string;
  let otherFile: string;
  let otherLines: string[];
  const verify = (f: string, extra: string[] = []) => run(c.home, ['attest', 'verify', f, ...keys, ...extra, '--json']);
  const write = (name: string, ls: string[]): string => {
    const f = join(c.home, name);
    writeFileSync(f, `${ls.join('\n')}\n`);
    return f;
  };

  beforeAll(() => {
    c = signedChain();
    keys = ['--key', c.storeKey.public_key, '--key', c.approverKey.public_key];
    file = join(c.home, 'chain.jsonl');
    runOk(c.home, ['attest', 'export', '--chain', c.links[1], '--out', file], c.env);
    lines = readFileSync(file, 'utf8').trimEnd().split('\n');
    other = (runOk(c.home, ['contract', 'init', '--json']).json as { draft_id: string }).draft_id;
    runOk(c.home, ['contract', 'set', 'agent_status.agent_state', 'BLOCKED', '--draft-id', other]);
    runOk(c.home, ['contract', 'finalize', '--draft-id', other]);
    otherFile = join(c.home, 'other.jsonl');
    runOk(c.home, ['attest', 'export', '--chain', other, '--out', otherFile], c.env);
    otherLines = readFileSync(otherFile, 'utf8').trimEnd().split('\n');
  });

  it('statement payloads are the stored ones; the head lists each line digest with how it was signed', () => {
    const db = new Database(join(c.home, 'handoff.db'), { readonly: true });
    const stored = new Set(
      (db.prepare('SELECT payload FROM attestations').all() as { payload: string }[]).map((r) => r.payload),
    );
    db.close();
    for (const l of lines.slice(0, -1)) expect(stored.has(payloadOf(l))).toBe(true);
    const head = statementOf(lines[lines.length - 1]);
    expect(head.predicateType).toBe('urn:handoff:predicate:head:v2');
    expect(head.subject[0].name).toBe(`chain:${c.first}`);
    expect(head.predicate.lines).toHaveLength(lines.length - 1);
    head.predicate.lines.forEach((l: { sha256: string; signed: string }, i: number) => {
      expect(Object.keys(l).sort()).toEqual(['sha256', 'signed']);
      expect(l.signed).toBe(JSON.parse(lines[i]).handoffSigned);
    });
    expect(statementOf(otherLines[otherLines.length - 1]).predicate.lines).toEqual([
      { sha256: expect.stringMatching(/^[0-9a-f]{64}$/), signed: 'at-export' },
    ]);
  });

  it('verify reports the chain, the tip and how each line was signed, from the head', () => {
    const r = verify(file, ['--chain', c.first]);
    expect(r.code, r.stdout + r.stderr).toBe(0);
    expect(r.json).toMatchObject({ chain: c.first, tip: statementOf(lines[lines.length - 1]).predicate.tip });
    expect(r.json.statements).toEqual([
      { line: 1, kind: 'handoff', signed: 'at-write' },
      { line: 2, kind: 'handoff', signed: 'at-write' },
      { line: 3, kind: 'handoff', signed: 'at-write' },
      { line: 4, kind: 'receipt', signed: 'at-write' },
      { line: 5, kind: 'approval', signed: 'at-write' },
      { line: 6, kind: 'head', signed: 'at-export' },
    ]);
    const text = run(c.home, ['attest', 'verify', otherFile, ...keys]);
    expect(text.code).toBe(0);
    expect(text.stdout).toContain(`OK: chain ${other}, tip `);
    expect(text.stdout).toContain('1 handoff(s) (0 signed at write, 1 at export)');
  });

  it('a handoffSigned mark flipped beside the bundle does not verify and is never printed', () => {
    const flip = (ls: string[], i: number): string[] => {
      const b = JSON.parse(ls[i]);
      b.handoffSigned = b.handoffSigned === 'at-write' ? 'at-export' : 'at-write';
      return ls.map((l, k) => (k === i ? JSON.stringify(b) : l));
    };
    for (const [ls, i] of [
      [lines, 0],
      [lines, 4],
      [otherLines, 0],
      [lines, lines.length - 1],
    ] as const) {
      const r = verify(write(`flip-${i}-${ls.length}.jsonl`, flip(ls, i)));
      expect(r.code).toBe(1);
      expect(r.json).toMatchObject({ status: 'rejected', code: 'ATTEST_CHAIN', line: i + 1 });
      expect(r.json.statements).toBeUndefined();
    }
  });

  it('--chain refuses a file of another chain signed with the same key; any contract of the chain is accepted', () => {
    const wrong = verify(otherFile, ['--chain', c.first]);
    expect([wrong.code, wrong.json.code, wrong.json.line]).toEqual([1, 'ATTEST_CHAIN', otherLines.length]);
    const back = verify(file, ['--chain', other]);
    expect([back.code, back.json.code]).toEqual([1, 'ATTEST_CHAIN']);
    for (const id of c.links) expect(verify(file, ['--chain', id]).code).toBe(0);
  });

  it('--tip refuses a file whose tip is another', () => {
    const tip = statementOf(lines[lines.length - 1]).predicate.tip as string;
    expect(verify(file, ['--tip', tip]).code).toBe(0);
    const otherTip = statementOf(otherLines[otherLines.length - 1]).predicate.tip as string;
    const r = verify(file, ['--tip', otherTip]);
    expect([r.code, r.json.code]).toEqual([1, 'ATTEST_CHAIN']);
  });

  it('a malformed --chain or --tip is refused before the file is read (exit 2)', () => {
    expect(verify(file, ['--chain', '../x']).json.code).toBe('INVALID_DRAFT_ID');
    const r = verify(file, ['--tip', 'ABC']);
    expect([r.code, r.json.code]).toEqual([2, 'USAGE']);
  });
});
