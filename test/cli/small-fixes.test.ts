/**
 * Smaller things users hit: AMBIGUOUS_DRAFT's first line ends in its code; INVALID_JSON on shell-mangled text hints
 * at quoting; FIELD_TYPE for a number where a string is due shows the quoted form; a receipt's command is compared
 * as an argv; control characters in the dispatch block and in human output are shown escaped.
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { run, snapshot, tempHome } from '../helpers/cli.js';

const init = (home: string): string => run(home, ['contract', 'init', '--json']).json.draft_id as string;
const ESC = '\u001b';

describe('error lines', () => {
  it('AMBIGUOUS_DRAFT ends its first line with its code, then lists the candidates', () => {
    const home = tempHome();
    init(home);
    init(home);
    const r = run(home, ['contract', 'view']);
    expect(r.code).toBe(2);
    const [first, ...rest] = r.stderr.trimEnd().split('\n');
    expect(first).toMatch(/^Error: .* \[AMBIGUOUS_DRAFT\]$/);
    expect(rest.filter((l) => l.startsWith('  --draft-id '))).toHaveLength(2);
  });

  it('INVALID_JSON on text a shell has mangled hints at single quotes and --json-file -; other bad JSON does not', () => {
    const home = tempHome();
    const id = init(home);
    const before = snapshot(home);
    for (const mangled of ['{work_phase:executing}', '{"work_phase":executing}', 'work_phase:executing']) {
      const r = run(home, ['contract', 'fill', '--draft-id', id, '--json', mangled]);
      expect([r.code, r.json.code], mangled).toEqual([2, 'INVALID_JSON']);
      expect(r.json.error, mangled).toMatch(/single quotes.*--json-file -/);
    }
    const truncated = run(home, ['contract', 'fill', '--draft-id', id, '--json', '{"work_phase":']);
    expect(truncated.json.code).toBe('INVALID_JSON');
    expect(truncated.json.error).not.toMatch(/single quotes/);
    expect(snapshot(home)).toEqual(before);
  });

  it('FIELD_TYPE for a number where a string is due shows the quoted form', () => {
    const home = tempHome();
    const id = init(home);
    const r = run(home, ['contract', 'set', 'agent_status.next_action', '42', '--draft-id', id, '--json']);
    expect(r.code).toBe(1);
    const e = r.json.errors.find((x: { code: string }) => x.code === 'FIELD_TYPE');
    expect(e.detail).toContain(`'"42"'`);
    // The quoted form is accepted.
    expect(run(home, ['contract', 'set', 'agent_status.next_action', '"42"', '--draft-id', id]).code).toBe(0);
  });
});

describe('receipt commands are compared as argv', () => {
  it("a claim quoted differently from the receipt's display names the same command and finalizes", () => {
    const home = tempHome();
    const id = init(home);
    const ran = run(home, [
      'evidence',
      'run',
      '--draft-id',
      id,
      '--json',
      '--',
      'node',
      '-e',
      'process.exit(0)',
      'a b',
    ]);
    expect(ran.code, ran.stderr).toBe(0);
    const receipt = ran.json.receipt;
    expect(receipt.command).toBe("node -e 'process.exit(0)' 'a b'");
    const claim = 'node -e "process.exit(0)" a\\ b';
    const fill = run(home, [
      'contract',
      'fill',
      '--draft-id',
      id,
      '--json',
      JSON.stringify({
        agent_status: { pending_steps: [], next_action: 'done' },
        evidence_report: {
          verification: { type: 'command', command: claim, result: 'pass', receipt: receipt.receipt_id },
        },
      }),
    ]);
    expect(fill.code, fill.stdout).toBe(0);
    expect(run(home, ['contract', 'set', 'agent_status.agent_state', 'COMPLETE', '--draft-id', id]).code).toBe(0);
    const fin = run(home, ['contract', 'finalize', '--draft-id', id, '--json']);
    expect(fin.code, fin.stdout).toBe(0);
  });
});

describe('control characters are shown escaped', () => {
  it('the dispatch block keeps tabs and line breaks and escapes ESC, on stdout and in contract_block', () => {
    const home = tempHome();
    const goal = `paint${ESC}[2Jover\tthe\nscreen`;
    const human = run(home, ['contract', 'dispatch', '--goal', goal]);
    expect(human.code, human.stderr).toBe(0);
    expect(human.stdout).not.toContain(ESC);
    expect(human.stdout).toContain('paint\\u001b[2Jover\tthe\n  screen');
    const json = run(home, ['contract', 'dispatch', '--goal', goal, '--json']);
    expect(json.json.contract_block).not.toContain(ESC);
    expect(json.json.contract_block).toContain('paint\\u001b[2Jover\tthe\n  screen');
  });

  it('a key holding ESC in a hand-edited draft is shown escaped in a human rejection', () => {
    const home = tempHome();
    const id = init(home);
    const path = join(home, 'drafts', `${id}.json`);
    const e = JSON.parse(readFileSync(path, 'utf8'));
    e[`x${ESC}[2Jy`] = 1;
    writeFileSync(path, JSON.stringify(e));
    const r = run(home, ['contract', 'validate', '--draft-id', id]);
    expect(r.code).toBe(1);
    expect(r.stderr).toContain('x\\u001b[2Jy');
    expect(r.stderr).not.toContain(ESC);
    // --json stays raw data (JSON escapes it itself).
    expect(run(home, ['contract', 'validate', '--draft-id', id, '--json']).json.errors[0].path).toContain(ESC);
  });
});
