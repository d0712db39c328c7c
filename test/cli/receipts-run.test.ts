import { describe, expect, it } from 'vitest';
import { createHash } from 'node:crypto';
import { existsSync, mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { waitGone } from '../helpers/process.js';
import { freshHome, hf, hfRaw, newDraft, nodeCmd, receipt, snapshot, WS } from '../helpers/receipts-cli.js';

const sha = (b: Buffer | string): string => createHash('sha256').update(b).digest('hex');

describe('evidence run: outcome classes and exit status', () => {
  it.each([
    [0, 'pass', 0],
    [1, 'fail', 1],
    [3, 'unproven', 3],
  ])('exit %i → outcome %s, evidence run exits %i', (code, outcome, exit) => {
    const home = freshHome();
    const d = newDraft(home);
    const { r, receipt: rc } = receipt(home, d, nodeCmd(`process.exitCode = ${code}`));
    expect(r.code).toBe(exit);
    expect(r.json.status).toBe('ok');
    expect(rc).toMatchObject({
      exit_code: code,
      outcome,
      signal: null,
      timed_out: false,
      contract_id: d,
      workspace: WS,
      shell: false,
    });
    expect(rc.receipt_id).toMatch(/^R-[0-9a-f]{16}$/);
  });

  it('a signal: exit_code null, signal named, outcome unproven, exit 128+n', () => {
    const home = freshHome();
    const { r, receipt: rc } = receipt(home, newDraft(home), nodeCmd('process.kill(process.pid, "SIGKILL")'));
    expect(r.code).toBe(137);
    expect(rc).toMatchObject({ exit_code: null, signal: 'SIGKILL', timed_out: false, outcome: 'unproven' });
  });

  it('a command that does not exist: recorded as unproven, exit 127', () => {
    const home = freshHome();
    const { r, receipt: rc } = receipt(home, newDraft(home), ['no-such-command-for-handoff-tests']);
    expect(r.code).toBe(127);
    expect(rc).toMatchObject({
      exit_code: null,
      signal: null,
      timed_out: false,
      outcome: 'unproven',
      command: 'no-such-command-for-handoff-tests',
    });
    expect(r.stderr).toContain('[NOT STARTED]');
  });

  it('--shell: one string run with /bin/sh -c, argv has one element; unknown command is sh exit 127', () => {
    const home = freshHome();
    const d = newDraft(home);
    const { r, receipt: rc } = receipt(home, d, ['echo "a b" && exit 0'], { flags: ['--shell'] });
    expect(r.code).toBe(0);
    expect(rc).toMatchObject({
      shell: true,
      argv: ['echo "a b" && exit 0'],
      command: 'echo "a b" && exit 0',
      stdout_text: 'a b\n',
    });
    const { r: r2, receipt: rc2 } = receipt(home, d, ['no-such-command-for-handoff-tests'], { flags: ['--shell'] });
    expect(r2.code).toBe(127);
    expect(rc2).toMatchObject({ exit_code: 127, outcome: 'unproven' });
  });

  it('a timeout kills the whole process group: exit 124, and the grandchild that ignores TERM is gone', async () => {
    const home = freshHome();
    const dir = mkdtempSync(join(tmpdir(), 'handoff-grandchild-'));
    const pidFile = join(dir, 'pid');
    // Shells, not node: they start in milliseconds, so the grandchild has written its pid long before the KILL (at
    // --timeout + 5 s) whatever the machine's load. Both ignore TERM (the ignore is inherited by their sleeps).
    const grandchild = `trap '' TERM; echo $$ > ${pidFile}; while :; do sleep 1; done`;
    const parent = `trap '' TERM; sh -c "${grandchild}" & while :; do sleep 1; done`;
    const t0 = Date.now();
    const { r, receipt: rc } = receipt(home, newDraft(home), ['sh', '-c', parent], { flags: ['--timeout', '3'] });
    expect(r.code).toBe(124);
    // TERM at 3 s is ignored, so only the KILL 5 s later ends the group: never earlier.
    expect(Date.now() - t0).toBeGreaterThanOrEqual(7500);
    expect(rc).toMatchObject({ exit_code: null, timed_out: true, outcome: 'unproven', signal: 'SIGKILL' });
    // The grandchild is gone (a kill lands asynchronously: wait for it; one that survived would time the test out).
    await waitGone(Number(readFileSync(pidFile, 'utf8')));
  });
});

describe('evidence run: output passed through unchanged and captured', () => {
  const script = 'process.stdout.write("out\\u00e9\\n"); process.stderr.write("err-line\\n")';

  it('human mode: child stdout to stdout, child stderr then the receipt line to stderr; hashes match', () => {
    const home = freshHome();
    const d = newDraft(home);
    const r = hfRaw(home, ['evidence', 'run', '--draft-id', d, '--', ...nodeCmd(script)]);
    expect(r.code).toBe(0);
    expect(r.stdout.toString()).toBe('outé\n');
    const err = r.stderr.toString();
    expect(err.startsWith('err-line\n')).toBe(true);
    expect(err).toMatch(/\nReceipt R-[0-9a-f]{16} recorded: exit=0 outcome=pass \d+m?s\n$/);
    const id = /Receipt (R-[0-9a-f]{16})/.exec(err)?.[1] as string;
    const shown = hf(home, ['evidence', 'show', id, '--json']).json.receipt;
    expect(shown.stdout_sha256).toBe(sha(Buffer.from('outé\n')));
    expect(shown.stdout_bytes).toBe(Buffer.byteLength('outé\n'));
    expect(shown.stderr_text).toBe('err-line\n');
    expect(shown.stderr_sha256).toBe(sha('err-line\n'));
  });

  it('--json: stdout is exactly one object; the child stdout and stderr go to stderr', () => {
    const home = freshHome();
    const r = hfRaw(home, ['evidence', 'run', '--json', '--draft-id', newDraft(home), '--', ...nodeCmd(script)]);
    const lines = r.stdout.toString().split('\n');
    expect(lines.length).toBe(2);
    expect(JSON.parse(lines[0]).status).toBe('ok');
    expect(r.stderr.toString()).toContain('outé\n');
    expect(r.stderr.toString()).toContain('err-line\n');
  });

  it('binary output passes through byte for byte and is stored as a blob', () => {
    const home = freshHome();
    const bytes = Buffer.from([0x00, 0xff, 0xfe, 0x80, 0x41]);
    const r = hfRaw(home, [
      'evidence',
      'run',
      '--draft-id',
      newDraft(home),
      '--',
      ...nodeCmd(`process.stdout.write(Buffer.from([0,255,254,128,65]))`),
    ]);
    expect(r.stdout.equals(bytes)).toBe(true);
    const id = /Receipt (R-[0-9a-f]{16})/.exec(r.stderr.toString())?.[1] as string;
    const shown = hf(home, ['evidence', 'show', id, '--json']).json.receipt;
    expect(shown.stdout_text).toBeNull();
    expect(shown.stdout_path).toBe(join(home, 'evidence', WS, '_receipts', id, 'stdout'));
    expect(readFileSync(shown.stdout_path).equals(bytes)).toBe(true);
    expect(shown.stdout_sha256).toBe(sha(bytes));
  });

  it('inline up to 4096 bytes, a blob beyond; the blob holds exactly the captured bytes', () => {
    const home = freshHome();
    const d = newDraft(home);
    const { receipt: small } = receipt(home, d, nodeCmd('process.stdout.write("x".repeat(4096))'));
    expect(small.stdout_text).toBe('x'.repeat(4096));
    expect(small.stdout_path).toBeNull();
    const { receipt: big } = receipt(
      home,
      d,
      nodeCmd('process.stdout.write("y".repeat(200000)); process.stderr.write("z".repeat(4097))'),
    );
    expect(big.stdout_text).toBeNull();
    expect(big.stdout_bytes).toBe(200_000);
    expect(readFileSync(big.stdout_path, 'utf8')).toBe('y'.repeat(200_000));
    expect(sha(readFileSync(big.stdout_path))).toBe(big.stdout_sha256);
    expect(big.stderr_path).toBe(join(home, 'evidence', WS, '_receipts', big.receipt_id, 'stderr'));
    expect(hf(home, ['evidence', 'show', big.receipt_id, '--verify', '--json']).json.verified).toBe(true);
  });
});

describe('evidence run in a shell pipeline whose reader goes away', () => {
  it('the command gets SIGPIPE as in a shell (exit 141, unproven); a command that ignores it is recorded in full', async () => {
    const home = freshHome();
    const d = newDraft(home);
    const { execFileSync } = await import('node:child_process');
    const { BIN } = await import('../helpers/cli.js');
    const env = { ...process.env, HANDOFF_HOME: home, HANDOFF_WORKSPACE: WS };
    const pipeline = (cmd: string): string =>
      execFileSync(
        'bash',
        [
          '-c',
          `"${process.execPath}" "${BIN}" evidence run --draft-id ${d} -- ${cmd} | head -1 >/dev/null; echo \${PIPESTATUS[0]}`,
        ],
        {
          env,
          encoding: 'utf8',
          timeout: 120_000,
          stdio: ['ignore', 'pipe', 'ignore'],
        },
      ).trim();
    expect(pipeline('yes')).toBe('141');
    const script = 'let i = 0; const w = () => { if (i++ < 20000) process.stdout.write(`line ${i}\\n`, w) }; w()';
    expect(pipeline(`"${process.execPath}" -e '${script}'`)).toBe('0');
    const listed = hf(home, ['evidence', 'receipts', '--draft-id', d, '--json']).json.receipts as any[];
    const [full, yes] = listed;
    expect(yes).toMatchObject({ command: 'yes', exit_code: null, signal: 'SIGPIPE', outcome: 'unproven' });
    expect(full).toMatchObject({ exit_code: 0, outcome: 'pass' });
    expect(full.stdout_bytes).toBe(Array.from({ length: 20000 }, (_, i) => `line ${i + 1}\n`).join('').length);
  });
});

describe('evidence run: refusals before anything runs write nothing and spawn nothing', () => {
  const marker = (): string => join(mkdtempSync(join(tmpdir(), 'handoff-marker-')), 'ran');
  const touch = (path: string): string[] => ['sh', '-c', `touch ${path}`];

  it.each([
    ['no command', ['evidence', 'run', '--'], 'USAGE'],
    ['--shell with two arguments', ['evidence', 'run', '--shell', '--', 'echo', 'x'], 'USAGE'],
    ['--brief without --ac', ['evidence', 'run', '--brief', 'b', '--', 'true'], 'USAGE'],
    ['--timeout 0', ['evidence', 'run', '--timeout', '0', '--', 'true'], 'USAGE'],
    ['--timeout 86401', ['evidence', 'run', '--timeout', '86401', '--', 'true'], 'USAGE'],
    ['--timeout 1.5', ['evidence', 'run', '--timeout', '1.5', '--', 'true'], 'USAGE'],
    ['--cwd missing', ['evidence', 'run', '--cwd', '/nonexistent/dir', '--', 'true'], 'CWD_NOT_FOUND'],
    ['bad --draft-id', ['evidence', 'run', '--draft-id', 'x', '--', 'true'], 'INVALID_DRAFT_ID'],
    ['unsafe --ac', ['evidence', 'run', '--brief', 'b', '--ac', '../x', '--', 'true'], 'UNSAFE_SLUG'],
  ])('%s → exit 2 %s', (_name, args, code) => {
    const home = freshHome();
    newDraft(home);
    const before = snapshot(home);
    const r = hf(home, [args[0], args[1], '--json', ...args.slice(2)]);
    expect(r.code).toBe(2);
    expect(r.json.code).toBe(code);
    expect(snapshot(home)).toEqual(before);
  });

  it('no draft → DRAFT_NOT_FOUND exit 3; unsafe workspace → UNSAFE_SLUG exit 2; nothing spawned or written', () => {
    const home = freshHome();
    const m = marker();
    const r = hf(home, [
      'evidence',
      'run',
      '--json',
      '--draft-id',
      'a0123456789abcdef.0123456789ab',
      '--',
      ...touch(m),
    ]);
    expect([r.code, r.json.code]).toEqual([3, 'DRAFT_NOT_FOUND']);
    const d = newDraft(home);
    const before = snapshot(home);
    const r2 = hf(home, ['evidence', 'run', '--json', '--draft-id', d, '--workspace', 'my space', '--', ...touch(m)]);
    expect([r2.code, r2.json.code]).toEqual([2, 'UNSAFE_SLUG']);
    expect(existsSync(m)).toBe(false);
    expect(snapshot(home)).toEqual(before);
  });

  it('--brief of no brief → BRIEF_NOT_FOUND exit 3 without creating the DB; unknown AC → UNKNOWN_AC exit 1', () => {
    const home = freshHome();
    const d = newDraft(home);
    const m = marker();
    const before = snapshot(home);
    const r = hf(home, [
      'evidence',
      'run',
      '--json',
      '--draft-id',
      d,
      '--brief',
      'b1',
      '--ac',
      'AC-1',
      '--',
      ...touch(m),
    ]);
    expect([r.code, r.json.code]).toEqual([3, 'BRIEF_NOT_FOUND']);
    expect(snapshot(home)).toEqual(before);
    expect(hf(home, ['brief', 'add', 'b1', '--ac', 'AC-1=works', '--json']).code).toBe(0);
    const mid = snapshot(home);
    const r2 = hf(home, [
      'evidence',
      'run',
      '--json',
      '--draft-id',
      d,
      '--brief',
      'b1',
      '--ac',
      'AC-2',
      '--',
      ...touch(m),
    ]);
    expect([r2.code, r2.json.status, r2.json.code]).toEqual([1, 'rejected', 'UNKNOWN_AC']);
    expect(existsSync(m)).toBe(false);
    expect(Object.keys(snapshot(home))).toEqual(Object.keys(mid));
  });
});
