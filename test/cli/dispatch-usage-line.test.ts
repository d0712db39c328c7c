/**
 * Usage errors of claim, evidence receipts and approval request: the framework appends the verb's usage line to every
 * USAGE error, on the same line; the verb's own message carries no second copy of it.
 */
import { describe, expect, it } from 'vitest';
import { run, tempHome } from '../helpers/cli.js';

const ID = 'a0123456789abcdef.0123456789ab';
const count = (text: string, part: string): number => text.split(part).length - 1;

describe('one usage line per USAGE error', () => {
  it.each([
    ['contract claim without --harness-id', ['contract', 'claim', '--draft-id', ID], '--harness-id is required'],
    [
      'contract claim without an id',
      ['contract', 'claim', '--harness-id', 'h1'],
      'pass exactly one of --draft-id and --contract-id',
    ],
    [
      'contract claim with both ids',
      ['contract', 'claim', '--harness-id', 'h1', '--draft-id', ID, '--contract-id', ID],
      '--contract-id and --draft-id cannot be given together',
    ],
    ['evidence receipts without an id', ['evidence', 'receipts'], 'pass exactly one of --draft-id and --contract-id'],
    ['approval request without content', ['approval', 'request'], 'pass exactly one of --content and --content-file'],
  ])('%s', (_name, args, message) => {
    const home = tempHome();
    const json = run(home, [...args, '--json']);
    expect(json.code).toBe(2);
    expect(json.json.code).toBe('USAGE');
    expect((json.json.error as string).startsWith(`${message}. Usage: handoff ${args[0]} ${args[1]} `)).toBe(true);
    expect(count(json.json.error as string, 'Usage:')).toBe(1);
    const human = run(home, args);
    expect(human.code).toBe(2);
    expect(human.stderr).toBe(`Error: ${json.json.error} [USAGE]\n`);
  });
});
