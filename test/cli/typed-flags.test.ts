/**
 * Flags are parsed by oclif into typed values: a value outside a flag's `options`, two flags that exclude each other,
 * a missing required flag or a value a flag's own parse refuses are all USAGE, exit 2, with one line naming what is
 * allowed and the verb's usage line (the gate, whose own failures fail open, exits 1).
 */
import { describe, expect, it } from 'vitest';
import { run, tempHome } from '../helpers/cli.js';

const ID = 'a0123456789abcdef.0123456789ab';

const usageError = (args: string[]) => {
  const r = run(tempHome(), [...args, '--json']);
  expect(r.code).toBe(2);
  const json = JSON.parse(r.stdout) as { status: string; code: string; error: string };
  expect(json).toMatchObject({ status: 'error', code: 'USAGE' });
  expect(r.stderr).toBe('');
  return json.error;
};

describe('typed flags', () => {
  it('a value outside the options is USAGE naming the allowed values, then the usage line', () => {
    const error = usageError(['approval', 'list', '--status', 'nope']);
    expect(error).toMatch(
      /^--status "nope" must be one of pending, approved, rejected, revoked, expired, used\. Usage: handoff approval list /,
    );
    expect(usageError(['key', 'generate', '--type', 'rsa'])).toMatch(/^--type "rsa" must be ecdsa-p256 or ed25519\. /);
    expect(usageError(['hooks', 'status', '--harness', 'vim'])).toMatch(
      /must be one of claude, codex, gemini, copilot, cursor, opencode, qwen\./,
    );
    expect(usageError(['approval', 'decide', `P-${'0'.repeat(32)}`, '--decision', 'used'])).toMatch(
      /^--decision "used" must be one of approved, rejected, revoked, expired\. /,
    );
  });

  it('two flags that exclude each other are USAGE naming both', () => {
    expect(usageError(['contract', 'validate', '--file', 'x.json', '--draft-id', ID])).toMatch(
      /^--file and --draft-id cannot be given together\. Usage: handoff contract validate /,
    );
    expect(usageError(['attest', 'export', '--contract-id', ID, '--chain', ID, '--out', 'x'])).toMatch(
      /^--chain and --contract-id cannot be given together\. /,
    );
    expect(
      usageError([
        'evidence',
        'add',
        '--brief',
        'b',
        '--ac',
        'a',
        '--type',
        'text',
        '--text',
        't',
        '--artifact-file',
        'f',
      ]),
    ).toMatch(/^--artifact-file and --text cannot be given together\. /);
  });

  it('a missing required flag is USAGE; with options it names them', () => {
    expect(usageError(['hooks', 'install'])).toMatch(
      /^--harness is required \(one of claude, codex, gemini, copilot, cursor, opencode, qwen\)\. Usage: handoff hooks install --harness /,
    );
    expect(usageError(['approval', 'decide', `P-${'0'.repeat(32)}`])).toMatch(
      /^--decision is required \(one of approved, rejected, revoked, expired\)\. /,
    );
  });

  it("a flag's own parse refuses a value with the tool's message (no oclif wrapping)", () => {
    expect(usageError(['contract', 'list', '--limit', '01'])).toMatch(
      /^--limit "01" must be an integer from 1 to 1000\. Usage: handoff contract list /,
    );
    expect(usageError(['contract', 'list', '--state', 'nope'])).toMatch(/^--state "nope" is not a row state \(one of /);
    expect(usageError(['contract', 'list', '--since', '2026-02-30'])).toMatch(
      /^--since "2026-02-30" is not a UTC time prefix/,
    );
    expect(usageError(['contract', 'gc', '--grace-hours', '-1'])).toMatch(
      /^--grace-hours "-1" must be an integer >= 0\. /,
    );
  });

  it('the gate fails open on a bad flag: exit 1, the allowed values named, stop not gated', () => {
    const r = run(tempHome(), ['contract', 'gate', '--on-missing', 'maybe']);
    expect(r.code).toBe(1);
    expect(r.stderr).toMatch(
      /^handoff contract gate: --on-missing "maybe" must be block or allow\. Usage: handoff contract gate .*\. Stop not gated\.\n$/,
    );
  });
});
