/** `contract gate --timeout`: a duration with its unit, 100ms to 600s, default 20 s; anything else is bad input. */
import { spawn } from 'node:child_process';
import { describe, expect, it } from 'vitest';
import { DEFAULT_GATE_TIMEOUT_MS, parseGateTimeout } from '../../src/gate/budget.js';
import { BIN, run, tempHome } from '../helpers/cli.js';

describe('--timeout', () => {
  it('takes 20s or 1500ms forms; the default is 20 s', () => {
    expect(parseGateTimeout(undefined)).toBe(DEFAULT_GATE_TIMEOUT_MS);
    expect(DEFAULT_GATE_TIMEOUT_MS).toBe(20_000);
    expect(parseGateTimeout('20s')).toBe(20_000);
    expect(parseGateTimeout('1500ms')).toBe(1500);
    expect(parseGateTimeout('600s')).toBe(600_000);
  });

  it('refuses a bare number, a fraction, another unit, and values outside 100ms..600s (USAGE)', () => {
    for (const bad of ['20', '1.5s', '2m', '99ms', '601s', '0s', '', ' 20s', '20S']) {
      expect(() => parseGateTimeout(bad), bad).toThrow(expect.objectContaining({ code: 'USAGE' }));
    }
  });

  it('a bad --timeout fails open: exit 1, stop not gated', () => {
    const r = run(tempHome(), ['contract', 'gate', '--draft-id', 'a0123456789abcdef.0123456789ab', '--timeout', '20']);
    expect(r.code).toBe(1);
    expect(r.stderr).toMatch(/--timeout "20" must be a duration.*Stop not gated\./);
  });

  it('a harness that never closes the hook input still gets the answer within the budget, and the gate ends', async () => {
    const home = tempHome();
    const gate = spawn(process.execPath, [BIN, 'contract', 'gate', '--timeout', '2s'], {
      env: { ...process.env, HANDOFF_HOME: home },
      stdio: ['pipe', 'pipe', 'pipe'],
    });
    // Half a hook input, and the writing end left open.
    gate.stdin.write('{"hook_event_name":"Stop","session_id":"s1"');
    let stdout = '';
    let stderr = '';
    gate.stdout.on('data', (c: Buffer) => (stdout += c.toString()));
    gate.stderr.on('data', (c: Buffer) => (stderr += c.toString()));
    // A gate that answered but could not end would be killed here (a budget for hangs, not a speed bar).
    const hang = setTimeout(() => gate.kill('SIGKILL'), 60_000);
    const [code, signal] = await new Promise<[number | null, NodeJS.Signals | null]>((done) =>
      gate.on('exit', (c, s) => done([c, s])),
    );
    clearTimeout(hang);
    gate.stdin.destroy();
    expect([code, signal, stdout]).toEqual([1, null, '']);
    // The input never ended: its own code, not the store's.
    expect(stderr).toMatch(
      /^handoff contract gate: the hook input did not end within the gate's budget of 2 s.*Stop not gated\.\n$/,
    );
    expect(stderr).not.toMatch(/STORE_UNREACHABLE|contract was found/);
  }, 90_000);

  it('under --on-store-error block, a hook input that never ends is blocked as HOOK_INPUT_TIMEOUT', async () => {
    const home = tempHome();
    const gate = spawn(process.execPath, [BIN, 'contract', 'gate', '--timeout', '2s', '--on-store-error', 'block'], {
      env: { ...process.env, HANDOFF_HOME: home },
      stdio: ['pipe', 'pipe', 'pipe'],
    });
    gate.stdin.write('{"hook_event_name":"Stop","session_id":"s1"');
    let stderr = '';
    gate.stderr.on('data', (c: Buffer) => (stderr += c.toString()));
    const hang = setTimeout(() => gate.kill('SIGKILL'), 60_000);
    const code = await new Promise<number | null>((done) => gate.on('exit', (c) => done(c)));
    clearTimeout(hang);
    gate.stdin.destroy();
    expect(code).toBe(2);
    expect(stderr).toMatch(
      /^\[CONTRACT REJECTED\] the stop cannot be judged: the hook input did not end .*\(HOOK_INPUT_TIMEOUT\)\n/,
    );
    expect(stderr).not.toMatch(/STORE_UNREACHABLE/);
  }, 90_000);
});
