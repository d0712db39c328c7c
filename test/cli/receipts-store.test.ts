import Database from 'better-sqlite3';
import { describe, expect, it } from 'vitest';
import { existsSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { closeWith, freshHome, hf, newDraft, nodeCmd, receipt, WS } from '../helpers/receipts-cli.js';

const draftOf = (home: string, id: string): any => JSON.parse(readFileSync(join(home, 'drafts', `${id}.json`), 'utf8'));

describe('receipt rows are immutable', () => {
  it('UPDATE and DELETE on receipts are refused by the store itself', () => {
    const home = freshHome();
    const { receipt: rc } = receipt(home, newDraft(home), nodeCmd('console.log(1)'));
    const db = new Database(join(home, 'handoff.db'));
    try {
      expect(() =>
        db.prepare("UPDATE receipts SET outcome = 'pass', exit_code = 0 WHERE receipt_id = ?").run(rc.receipt_id),
      ).toThrow(/immutable/);
      expect(() => db.prepare('DELETE FROM receipts WHERE receipt_id = ?').run(rc.receipt_id)).toThrow(/immutable/);
      const row = db.prepare('SELECT outcome, row_sha256 FROM receipts WHERE receipt_id = ?').get(rc.receipt_id) as any;
      expect(row).toEqual({ outcome: 'pass', row_sha256: rc.row_sha256 });
    } finally {
      db.close();
    }
  });
});

describe('the draft append', () => {
  it('appends the command to commands_run and the summary to key_outputs in one write', () => {
    const home = freshHome();
    const d = newDraft(home);
    const { receipt: rc } = receipt(home, d, ['sh', '-c', 'exit 1']);
    const report = draftOf(home, d).evidence_report;
    expect(report.commands_run).toEqual(["sh -c 'exit 1'"]);
    expect(report.key_outputs).toHaveLength(1);
    expect(report.key_outputs[0]).toMatch(new RegExp(`^${rc.receipt_id} exit=1 outcome=fail \\d+ms$`));
  });

  it('adopts a dispatched row whose draft file is missing, and mirrors the append onto the row', () => {
    const home = freshHome();
    const disp = hf(home, ['contract', 'dispatch', '--goal', 'g', '--json']);
    const d = disp.json.contract_id as string;
    rmSync(join(home, 'drafts', `${d}.json`), { force: true });
    const { r, receipt: rc } = receipt(home, d, nodeCmd('0'));
    expect(r.code).toBe(0);
    expect(r.stderr).toContain('[ADOPTED]');
    expect(draftOf(home, d).evidence_report.commands_run).toEqual([rc.command]);
    const listed = hf(home, ['contract', 'list', '--contract-id', d, '--with-envelope', '--json']).json.handoffs[0];
    expect(listed.envelope.evidence_report.commands_run).toEqual([rc.command]);
  });

  it('a closed tip: the receipt is recorded against it, the append is skipped, the exit stays the child status', () => {
    const home = freshHome();
    const d = newDraft(home);
    const fin = closeWith(home, d, { type: 'self_review', reviewed: 'read the diff', result: 'pass' });
    expect(fin.code).toBe(0);
    const before = readFileSync(join(home, 'drafts', `${d}.json`), 'utf8');
    const { r, receipt: rc } = receipt(home, d, nodeCmd('process.exitCode = 1'));
    expect(r.code).toBe(1);
    expect(r.json.status).toBe('ok');
    expect(rc.contract_id).toBe(d);
    expect(r.stderr).toContain(`[RECEIPT NOT APPENDED: contract closed] ${rc.receipt_id} ${d}`);
    expect(readFileSync(join(home, 'drafts', `${d}.json`), 'utf8')).toBe(before);
    expect(hf(home, ['contract', 'chain', '--contract-id', d, '--json']).json.links).toBe(1);
  });

  it('an unreadable draft: DRAFT_APPEND_FAILED exit 4, the receipt stays recorded', () => {
    const home = freshHome();
    const d = newDraft(home);
    const file = join(home, 'drafts', `${d}.json`);
    const { r } = receipt(home, d, ['sh', '-c', `printf 'not json' > '${file}'`]);
    expect(r.code).toBe(4);
    expect(r.json).toMatchObject({
      status: 'error',
      code: 'DRAFT_APPEND_FAILED',
      receipt_recorded: true,
      appended: false,
      cause: 'DRAFT_UNREADABLE',
    });
    const id = r.json.receipt.receipt_id as string;
    expect(hf(home, ['evidence', 'show', id, '--json']).json.receipt.outcome).toBe('pass');
  });

  it('a write the full verdict refuses: DRAFT_APPEND_FAILED with cause "rejected" and the validator codes', () => {
    const home = freshHome();
    const d = newDraft(home);
    const file = join(home, 'drafts', `${d}.json`);
    const env = JSON.parse(readFileSync(file, 'utf8'));
    env.agent_status.agent_id = 'not-an-agent-id';
    writeFileSync(file, JSON.stringify(env, null, 2));
    const { r } = receipt(home, d, nodeCmd('0'));
    expect(r.code).toBe(4);
    expect(r.json).toMatchObject({
      code: 'DRAFT_APPEND_FAILED',
      cause: 'rejected',
      receipt_recorded: true,
      appended: false,
    });
    expect(r.json.codes).toContain('AGENT_ID_FORMAT');
    expect(r.json.errors[0]).toHaveProperty('path');
    expect(readFileSync(file, 'utf8')).toBe(JSON.stringify(env, null, 2));
  });
});

describe('--brief/--ac evidence rows', () => {
  it('one command_output row per non-empty stream, tied to the receipt; blobs by the usual threshold', () => {
    const home = freshHome();
    const d = newDraft(home);
    expect(hf(home, ['brief', 'add', 'b1', '--ac', 'AC-1=works', '--json']).code).toBe(0);
    const { receipt: rc } = receipt(
      home,
      d,
      nodeCmd('process.stdout.write("y".repeat(5000)); process.stderr.write(Buffer.from([0xff]))'),
      {
        flags: ['--brief', 'b1', '--ac', 'AC-1'],
      },
    );
    const { receipt: quiet } = receipt(home, d, nodeCmd('console.log("small")'), {
      flags: ['--brief', 'b1', '--ac', 'AC-1'],
    });
    const ev = hf(home, ['evidence', 'list', '--brief', 'b1', '--json']).json.evidence as any[];
    expect(ev).toHaveLength(3);
    for (const e of ev) {
      expect(e).toMatchObject({
        type: 'command_output',
        ac_id: 'AC-1',
        handoff_id: null,
        created_by_agent: d.split('.')[0],
      });
    }
    const mine = ev.filter((e) => e.receipt_id === rc.receipt_id);
    expect(mine.map((e) => e.sha256).sort()).toEqual([rc.stdout_sha256, rc.stderr_sha256].sort());
    const out = mine.find((e) => e.sha256 === rc.stdout_sha256);
    expect(out.artifact_path).toMatch(new RegExp(`/evidence/${WS}/b1/AC-1/[0-9a-f-]{36}\\.txt$`));
    expect(readFileSync(out.artifact_path, 'utf8')).toBe('y'.repeat(5000));
    const errRow = mine.find((e) => e.sha256 === rc.stderr_sha256);
    expect(errRow.artifact_path).toMatch(/\.bin$/);
    const small = ev.filter((e) => e.receipt_id === quiet.receipt_id);
    expect(small).toHaveLength(1);
    expect(small[0]).toMatchObject({ text: 'small\n', artifact_path: null, size_bytes: 6 });
  });
});

describe('reading receipts', () => {
  it('evidence receipts lists the whole chain newest first; no store → empty; exactly one id flag', () => {
    const home = freshHome();
    const d = newDraft(home);
    expect(hf(home, ['evidence', 'receipts', '--draft-id', d, '--json']).json).toEqual({
      status: 'ok',
      count: 0,
      contract_id: d,
      receipts: [],
    });
    expect(existsSync(join(home, 'handoff.db'))).toBe(false);
    const first = receipt(home, d, nodeCmd('0')).receipt;
    expect(
      closeWith(home, d, { type: 'command', command: first.command, result: 'pass', receipt: first.receipt_id }).code,
    ).toBe(0);
    // A write to the closed contract opens a continuation link; a receipt there belongs to the same chain.
    const link = hf(home, ['contract', 'add', 'evidence_report.open_gaps', 'more', '--draft-id', d, '--json']).json
      .draft_id as string;
    expect(link).not.toBe(d);
    const second = receipt(home, d, nodeCmd('0')).receipt;
    expect(second.contract_id).toBe(link);
    const listed = hf(home, ['evidence', 'receipts', '--contract-id', d, '--json']).json;
    expect(listed.count).toBe(2);
    expect(listed.receipts.map((x: any) => x.receipt_id)).toEqual([second.receipt_id, first.receipt_id]);
    expect(hf(home, ['evidence', 'receipts', '--draft-id', link, '--json']).json.count).toBe(2);
    const human = hf(home, ['evidence', 'receipts', '--draft-id', d]);
    expect(human.stdout).toMatch(/^receipt_id\s+started_at\s+outcome\s+exit_code\s+duration_ms\s+command\n/);
    expect(human.stdout.trimEnd().endsWith('2 receipt(s).')).toBe(true);
    expect(hf(home, ['evidence', 'receipts', '--json']).code).toBe(2);
    expect(hf(home, ['evidence', 'receipts', '--draft-id', d, '--contract-id', d, '--json']).code).toBe(2);
  });

  it('evidence show R-… prints the row; --verify adds verified; a changed blob is RECEIPT_TAMPERED exit 1', () => {
    const home = freshHome();
    const d = newDraft(home);
    expect(hf(home, ['evidence', 'show', 'R-0123456789abcdef', '--json']).json.code).toBe('RECEIPT_NOT_FOUND');
    const { receipt: rc } = receipt(home, d, nodeCmd('process.stdout.write("z".repeat(5000))'));
    const shown = hf(home, ['evidence', 'show', rc.receipt_id, '--json']);
    expect(shown.code).toBe(0);
    // Recorded outside git (the temp home): no fingerprint, so its freshness is unknown.
    expect(shown.json).toEqual({ status: 'ok', receipt: rc, freshness: 'unknown' });
    expect(hf(home, ['evidence', 'show', rc.receipt_id, '--verify', '--json']).json).toEqual({
      status: 'ok',
      receipt: rc,
      freshness: 'unknown',
      verified: true,
    });
    writeFileSync(rc.stdout_path, 'z'.repeat(4999));
    const bad = hf(home, ['evidence', 'show', rc.receipt_id, '--verify', '--json']);
    expect(bad.code).toBe(1);
    expect(bad.json).toMatchObject({ status: 'rejected', code: 'RECEIPT_TAMPERED', verified: false, receipt: rc });
    rmSync(rc.stdout_path);
    expect(hf(home, ['evidence', 'show', rc.receipt_id, '--verify']).code).toBe(1);
    expect(hf(home, ['evidence', 'show', 'R-0123456789abcdef']).code).toBe(3);
    expect(hf(home, ['evidence', 'show', 'R-0123456789ABCDEF']).code).toBe(2);
  });
});

describe('recording failures and interruptions', () => {
  it('a receipt that cannot be recorded: the blobs this call wrote are removed, store error exit 4', () => {
    const home = freshHome();
    const d = newDraft(home);
    receipt(home, d, nodeCmd('0'));
    const db = new Database(join(home, 'handoff.db'));
    db.exec("CREATE TRIGGER sabotage BEFORE INSERT ON receipts BEGIN SELECT RAISE(ABORT, 'sabotaged'); END");
    db.close();
    const before = readFileSync(join(home, 'drafts', `${d}.json`), 'utf8');
    const { r } = receipt(
      home,
      d,
      nodeCmd('process.stdout.write("o".repeat(9000)); process.stderr.write("e".repeat(9000))'),
    );
    expect(r.code).toBe(4);
    expect(r.json).toMatchObject({ status: 'error', code: 'STORE_UNREADABLE' });
    expect(r.json.error).toContain('sabotaged');
    expect(existsSync(join(home, 'evidence', WS, '_receipts'))).toBe(false);
    expect(readFileSync(join(home, 'drafts', `${d}.json`), 'utf8')).toBe(before);
  });

  it('Ctrl-C reaches the detached child: it ends by SIGINT, the receipt is recorded, exit 130', async () => {
    const home = freshHome();
    const d = newDraft(home);
    const { spawn } = await import('node:child_process');
    const { BIN } = await import('../helpers/cli.js');
    const env = { ...process.env, HANDOFF_HOME: home, HANDOFF_WORKSPACE: WS };
    const child = spawn(
      process.execPath,
      [BIN, 'evidence', 'run', '--json', '--draft-id', d, '--', 'sh', '-c', 'echo started >&2; sleep 30'],
      { env, cwd: home },
    );
    let stdout = '';
    child.stdout.on('data', (b: Buffer) => (stdout += b.toString()));
    await new Promise<void>((res) => child.stderr.on('data', (b: Buffer) => b.toString().includes('started') && res()));
    child.kill('SIGINT');
    const code = await new Promise<number | null>((res) => child.on('close', (c) => res(c)));
    expect(code).toBe(130);
    const out = JSON.parse(stdout);
    expect(out.receipt).toMatchObject({ exit_code: null, signal: 'SIGINT', outcome: 'unproven', timed_out: false });
  });
});
