/**
 * MCP rejections are worded for a tool's caller: they name `explain: true`, `each: true` and the parameters
 * (`limit`, `draft_id`), never the command line's flags (`--explain`, `--each`, `--limit`). Quoted values are left
 * as they were sent.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { tempHome } from '../helpers/cli.js';
import { connect, textOf, type McpSession } from '../helpers/mcp.js';

const D = 'a0123456789abcdef.0123456789ab';
const sessions: McpSession[] = [];
afterEach(async () => {
  await Promise.all(sessions.splice(0).map((s) => s.close()));
});

/** Every `--flag` of a text outside double-quoted values. */
const flagsIn = (text: string): string[] => text.replace(/"(?:[^"\\\n]|\\.)*"/g, '""').match(/--[a-z][a-z-]*/g) ?? [];

describe('rejections name parameters, never flags', () => {
  const cases: [string, string, Record<string, unknown>, string, string][] = [
    [
      'a short write rejection',
      'contract_set',
      { field: 'work_phas', value: 'x', draft_id: D },
      'UNKNOWN_FIELD',
      'explain: true',
    ],
    ['a short validation rejection', 'contract_validate', { envelope: {} }, 'MISSING_FIELD', 'explain: true'],
    [
      'an array value for add',
      'contract_add',
      { field: 'evidence_report.files_checked', value: ['a', 'b'], draft_id: D },
      'ADD_LIST_VALUE',
      'each: true',
    ],
    [
      'each with a value that is no array',
      'contract_add',
      { field: 'evidence_report.files_checked', value: 'a', each: true, draft_id: D },
      'USAGE',
      'each: true needs an array value',
    ],
    ['a limit out of range', 'contract_list', { limit: 0 }, 'USAGE', 'limit "0" must be'],
    ['an unknown state', 'contract_list', { state: 'nope' }, 'USAGE', 'state "nope" is not a row state'],
    [
      'a draft that does not exist',
      'contract_view',
      { draft_id: 'a0123456789abcdef.ffffffffffff' },
      'DRAFT_NOT_FOUND',
      'start one with contract_init',
    ],
    [
      'a shell command given as words',
      'evidence_run',
      { command: ['echo', 'a'], shell: true, draft_id: D },
      'USAGE',
      'with shell: true, command is one shell string',
    ],
  ];

  it.each(cases)('%s: %s says %s', async (_what, tool, args, code, says) => {
    const s = await connect(tempHome(), ['--allow-run']);
    sessions.push(s);
    await s.call('contract_init', { draft_id: D });
    const r = await s.call(tool, args);
    expect(r.isError).toBe(true);
    const sc = r.structuredContent!;
    expect(sc.code ?? sc.codes?.[0]).toBe(code);
    expect(textOf(r)).toContain(says);
    expect(flagsIn(textOf(r))).toEqual([]);
    expect(flagsIn(String(sc.error ?? ''))).toEqual([]);
  });

  it('explain: true returns the repair text, itself free of flags; a quoted value keeps its dashes', async () => {
    const s = await connect(tempHome());
    sessions.push(s);
    await s.call('contract_init', { draft_id: D });
    const full = await s.call('contract_set', { field: 'work_phas', value: 'x', draft_id: D, explain: true });
    expect(typeof full.structuredContent?.repair).toBe('string');
    expect(flagsIn(textOf(full))).toEqual([]);
    const quoted = await s.call('contract_list', { state: 'x --limit y' });
    expect(quoted.structuredContent?.error).toContain('state "x --limit y" is not a row state');
  });
});
