import { describe, expect, it } from 'vitest';
import { mkdtempSync, readdirSync, readFileSync, existsSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { SpillArea } from '../../src/receipts/capture.js';
import { runChild, signalExit, type ChildRun } from '../../src/receipts/spawn.js';
import { sha256Hex } from '../../src/receipts/jcs.js';
import { waitGone } from '../helpers/process.js';

const NODE = process.execPath;

async function run(
  argv: string[],
  opts: { shell?: boolean; timeoutMs?: number; killGraceMs?: number; spillParent?: string } = {},
) {
  const out: Buffer[] = [];
  const err: Buffer[] = [];
  const r: ChildRun = await runChild({
    argv,
    shell: opts.shell ?? false,
    cwd: tmpdir(),
    timeoutMs: opts.timeoutMs ?? 30_000,
    killGraceMs: opts.killGraceMs,
    env: process.env,
    spill: new SpillArea(() => opts.spillParent ?? mkdtempSync(join(tmpdir(), 'spill-parent-'))),
    onStdout: (b) => {
      out.push(b);
    },
    onStderr: (b) => {
      err.push(b);
    },
  });
  r.discard();
  return { r, out: Buffer.concat(out), err: Buffer.concat(err) };
}

describe('runChild', () => {
  it('exit 0, 1, 3: the status is recorded and both streams are passed through and captured', async () => {
    for (const code of [0, 1, 3]) {
      const { r, out, err } = await run([
        NODE,
        '-e',
        `process.stdout.write("out${code}"); process.stderr.write("err"); process.exitCode = ${code}`,
      ]);
      expect(r.exitCode).toBe(code);
      expect(r.signal).toBeNull();
      expect(r.timedOut).toBe(false);
      expect(out.toString()).toBe(`out${code}`);
      expect(err.toString()).toBe('err');
      expect(r.stdout.sha256).toBe(sha256Hex(`out${code}`));
      expect(r.stdout.text).toBe(`out${code}`);
      expect(r.stderr.bytes).toBe(3);
    }
  });

  it('a signal leaves exit_code null and names the signal', async () => {
    const { r } = await run([NODE, '-e', 'process.kill(process.pid, "SIGKILL")']);
    expect(r.exitCode).toBeNull();
    expect(r.signal).toBe('SIGKILL');
    expect(signalExit('SIGKILL')).toBe(137);
    expect(signalExit('SIGTERM')).toBe(143);
  });

  it('a command that does not exist is a failure to start', async () => {
    const { r } = await run(['definitely-not-a-command-xyz']);
    expect(r.spawnError).toBe('ENOENT');
    expect(r.exitCode).toBeNull();
    expect(r.signal).toBeNull();
  });

  it('arguments the OS cannot take (a NUL byte) are a failure to start, not a crash', async () => {
    const { r } = await run(['echo', 'a\0b']);
    expect(r.spawnError).toBe('ERR_INVALID_ARG_VALUE');
    expect(r.timedOut).toBe(false);
    expect(r.exitCode).toBeNull();
  });

  it('--shell runs the string with /bin/sh -c; an unknown command there is sh exit 127', async () => {
    const { r, out } = await run(['echo "a  b" | tr a x'], { shell: true });
    expect(out.toString()).toBe('x  b\n');
    expect(r.exitCode).toBe(0);
    const { r: r2 } = await run(['definitely-not-a-command-xyz'], { shell: true });
    expect(r2.exitCode).toBe(127);
  });

  it('stdin is /dev/null', async () => {
    const { out } = await run([
      NODE,
      '-e',
      'let n=0; process.stdin.on("data", d => n += d.length).on("end", () => console.log("read", n))',
    ]);
    expect(out.toString()).toBe('read 0\n');
  });

  it('passes binary and large output through byte for byte and captures the same bytes', async () => {
    const { r, out } = await run([
      NODE,
      '-e',
      'const b = Buffer.alloc(300000); for (let i = 0; i < b.length; i++) b[i] = (i * 7) & 255; process.stdout.write(b)',
    ]);
    expect(out.length).toBe(300_000);
    expect(r.stdout.bytes).toBe(300_000);
    expect(r.stdout.sha256).toBe(sha256Hex(out));
    expect(r.stdout.utf8).toBe(false);
  });

  it('a timeout kills the whole process group: TERM, then KILL for a grandchild that ignores TERM', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'handoff-spawn-'));
    const pidFile = join(dir, 'grandchild.pid');
    // Shells, not node: they start in milliseconds, so the grandchild has written its pid before the KILL whatever
    // the machine's load. The grandchild ignores TERM (inherited by its sleeps); the parent does not.
    const grandchild = `trap '' TERM; echo $$ > ${pidFile}; while :; do sleep 1; done`;
    const parent = `sh -c "${grandchild}" > /dev/null 2>&1 & while :; do sleep 1; done`;
    const t0 = Date.now();
    const { r } = await run([parent], { shell: true, timeoutMs: 1000, killGraceMs: 1000 });
    const elapsed = Date.now() - t0;
    expect(r.timedOut).toBe(true);
    expect(r.exitCode).toBeNull();
    // TERM at 1 s, KILL 1 s later: never earlier (an upper bound would depend on the machine's load).
    expect(elapsed).toBeGreaterThanOrEqual(1900);
    expect(existsSync(pidFile)).toBe(true);
    await waitGone(Number(readFileSync(pidFile, 'utf8')));
  });

  it('a child that exits but leaves a process holding its pipes does not hang the run', async () => {
    // The leftover holds the pipes for 600 s: the run settling at all (within the test's timeout) is the proof.
    const { r } = await run(['sleep 600 & echo $! >&2; echo started'], { shell: true });
    expect(r.exitCode).toBe(0);
    expect(r.stdout.text).toBe('started\n');
    const leftover = Number(r.stderr.text?.trim());
    process.kill(leftover, 'SIGKILL');
    await waitGone(leftover);
  });
});

describe('runChild: a capture that fails', () => {
  it('stops and reaps the whole group at once and reports captureError; the spill never touches $TMPDIR', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'handoff-spawn-'));
    const pidFile = join(dir, 'pids');
    // The shell prints past the inline threshold, then records its own pid and a grandchild's, then waits.
    const script = `head -c 10000 /dev/zero; sleep 60 & echo "$$ $!" > ${pidFile}; wait`;
    const { r } = await run([script], { shell: true, timeoutMs: 600_000, spillParent: join(dir, 'missing', 'tmp') });
    expect(r.captureError).toMatch(/cannot spill the captured stdout to the data root/);
    expect(r.timedOut).toBe(false);
    expect(r.exitCode).toBeNull();
    expect(readdirSync(dir)).toEqual(existsSync(pidFile) ? ['pids'] : []);
    if (existsSync(pidFile)) {
      for (const pid of readFileSync(pidFile, 'utf8').trim().split(' ').map(Number)) await waitGone(pid);
    }
  });
});

describe('runChild: a timeout is never a proven exit status (mutation audit)', () => {
  it('a child that exits 0 on SIGTERM after its timeout is recorded with exit_code null, timed_out true', async () => {
    // A shell sets its trap in milliseconds (a node child might still be starting when TERM comes, on a loaded
    // machine, and die by the signal instead); the trap runs once the current 1 s sleep ends, well inside the grace.
    const { r } = await run(["trap 'exit 0' TERM; while :; do sleep 1; done"], {
      shell: true,
      timeoutMs: 1500,
      killGraceMs: 30_000,
    });
    // The child chose its own status (it was not killed by the signal): only the timeout makes it unproven.
    expect(r.timedOut).toBe(true);
    expect(r.exitCode).toBeNull();
    expect(r.signal).toBeNull();
    expect(r.spawnError).toBeUndefined();
  });
});
