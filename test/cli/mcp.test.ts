/**
 * `handoff mcp` driven with the SDK's own client over stdio against the built binary: the tool
 * list and its schemas, a whole envelope built and finalized, the same JSON as the command line, rejections and
 * refusals that write nothing, values stored exactly, the shared validator cases, concurrent writers, resources,
 * and evidence_run behind --allow-run.
 */
import { spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { Ajv2020 } from 'ajv/dist/2020.js';
import { afterEach, describe, expect, it } from 'vitest';
import { AGENT_STATUS_KEYS, AGENT_WRITABLE_ROOT_KEYS, EVIDENCE_LISTS } from '../../src/envelope/vocabulary.js';
import { validateEnvelope } from '../../src/validator/index.js';
import { BIN, baseEnv, loadCases, REPO, run, snapshot, tempHome } from '../helpers/cli.js';
import { connect, textOf, type McpSession } from '../helpers/mcp.js';
import { TOOLS as TOOL_SPECS } from '../../src/mcp/tools.js';
import { parameterKinds, reword } from '../../src/mcp/wording.js';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';

const D = 'a0123456789abcdef.0123456789ab';
const TOOLS = [
  'contract_init',
  'contract_set',
  'contract_add',
  'contract_fill',
  'contract_patch',
  'contract_view',
  'contract_validate',
  'contract_finalize',
  'contract_list',
  'contract_chain',
  'evidence_add',
  'evidence_list',
  'approval_request',
  'approval_list',
  'approval_show',
];

const sessions: McpSession[] = [];
async function open(
  home: string,
  flags: string[] = [],
  env: Record<string, string | undefined> = {},
): Promise<McpSession> {
  const s = await connect(home, flags, env);
  sessions.push(s);
  return s;
}
afterEach(async () => {
  await Promise.all(sessions.splice(0).map((s) => s.close()));
});

const readDraftFile = (home: string, id = D): Record<string, any> =>
  JSON.parse(readFileSync(join(home, 'drafts', `${id}.json`), 'utf8')) as Record<string, any>;

describe('tools/list', () => {
  it('lists the fourteen tools, each described, with a strict object input schema that compiles', async () => {
    const s = await open(tempHome());
    const { tools } = await s.client.listTools();
    expect(tools.map((t) => t.name)).toEqual(TOOLS);
    const ajv = new Ajv2020({ strict: false });
    for (const t of tools) {
      expect(t.description?.length ?? 0, t.name).toBeGreaterThan(120);
      expect(t.inputSchema.type).toBe('object');
      expect(t.inputSchema.additionalProperties, t.name).toBe(false);
      expect(() => ajv.compile(t.inputSchema), t.name).not.toThrow();
    }
  });

  it('evidence_run and contract_verify are listed only with --allow-run', async () => {
    const s = await open(tempHome(), ['--allow-run']);
    const { tools } = await s.client.listTools();
    expect(tools.map((t) => t.name)).toEqual([...TOOLS, 'evidence_run', 'contract_verify']);
    for (const name of ['evidence_run', 'contract_verify'])
      expect(tools.find((t) => t.name === name)?.annotations, name).toMatchObject({
        destructiveHint: true,
        readOnlyHint: false,
      });
  });

  it('input schemas come from the envelope declaration: field names every declared path, patch every agent key', async () => {
    const s = await open(tempHome());
    const { tools } = await s.client.listTools();
    const byName = (n: string) => tools.find((t) => t.name === n)!.inputSchema as Record<string, any>;
    const set = byName('contract_set');
    expect(set.required).toEqual(['field', 'value']);
    for (const k of AGENT_STATUS_KEYS) expect(set.properties.field.description).toContain(`agent_status.${k} (`);
    for (const l of EVIDENCE_LISTS)
      expect(set.properties.field.description).toContain(`evidence_report.${l} (array or null)`);
    for (const name of ['contract_fill', 'contract_patch']) {
      const patch = byName(name).properties.patch;
      expect(Object.keys(patch.properties)).toEqual(AGENT_WRITABLE_ROOT_KEYS);
      expect(patch.required).toBeUndefined();
      expect(Object.keys(patch.properties.agent_status.properties)).toEqual(AGENT_STATUS_KEYS);
      expect(byName(name).$defs).toHaveProperty('verification');
    }
  });
});

describe('an envelope built and finalized through the tools', () => {
  it('init, set, add, fill, patch and finalize give a COMPLETE row; the draft holds every write', async () => {
    const home = tempHome();
    const s = await open(home, [], { HANDOFF_WORKSPACE: 'mcp' });
    const init = await s.call('contract_init', { draft_id: D });
    expect(init.isError).toBe(false);
    expect(init.structuredContent).toEqual({
      status: 'ok',
      draft_id: D,
      agent_id: 'a0123456789abcdef',
      agent_id_minted: false,
      workspace: 'mcp',
    }); // no claim token: no MCP result shows one (test/cli/mcp-claim-token.test.ts)
    const writes: [string, Record<string, unknown>][] = [
      ['contract_set', { field: 'work_phase', value: 'Executing' }],
      ['contract_add', { field: 'evidence_report.files_checked', value: 'src/payments.ts' }],
      ['contract_add', { field: 'evidence_report.commands_run', value: 'npm test' }],
      [
        'contract_fill',
        {
          patch: {
            approval_request: { exact_content: 'git push' },
            evidence_report: { verification: { type: 'command', command: 'npm test', result: 'PASS' } },
          },
        },
      ],
      ['contract_patch', { patch: { approval_request: null } }],
      ['contract_set', { field: 'agent_status.next_action', value: 'done' }],
      ['contract_set', { field: 'agent_status.agent_state', value: 'COMPLETE' }],
    ];
    for (const [tool, args] of writes) {
      const r = await s.call(tool, { ...args, draft_id: D });
      expect(r.isError, `${tool} ${textOf(r)}`).toBe(false);
      expect(r.structuredContent).toMatchObject({ status: 'ok', draft_id: D });
      expect(textOf(r)).toContain(`OK: draft ${D} updated and valid.`);
    }
    const draft = readDraftFile(home);
    expect(draft.work_phase).toBe('executing');
    expect(draft.evidence_report.files_checked).toEqual(['src/payments.ts']);
    expect(draft.evidence_report.verification).toEqual({ type: 'command', command: 'npm test', result: 'pass' });
    expect(draft).not.toHaveProperty('approval_request');
    const fin = await s.call('contract_finalize', { draft_id: D });
    expect(fin.isError).toBe(false);
    expect(fin.structuredContent).toMatchObject({
      status: 'ok',
      created: true,
      contract_id: D,
      agent_state: 'COMPLETE',
      workspace: 'mcp',
    });
    const list = await s.call('contract_list', { contract_id: D });
    expect(list.structuredContent).toMatchObject({
      status: 'ok',
      count: 1,
      handoffs: [{ contract_id: D, agent_state: 'COMPLETE' }],
    });
    const chain = await s.call('contract_chain', { contract_id: D });
    expect(chain.structuredContent).toMatchObject({ status: 'ok', contract_id: D, live_contract_id: D, links: 1 });
  });

  it('every tool answers with the same JSON object as its verb on the command line, and writes the same draft', async () => {
    const viaMcp = tempHome();
    const viaCli = tempHome();
    const env = { HANDOFF_WORKSPACE: 'parity' };
    const s = await open(viaMcp, [], env);
    const d = ['--draft-id', D];
    const steps: [string, Record<string, unknown>, string[]][] = [
      ['contract_init', { draft_id: D }, ['contract', 'init', ...d, '--json']],
      [
        'contract_set',
        { field: 'work_phase', value: 'Executing', draft_id: D },
        ['contract', 'set', 'work_phase', 'Executing', ...d, '--json'],
      ],
      [
        'contract_add',
        { field: 'evidence_report.commands_run', value: 'npm test', draft_id: D },
        ['contract', 'add', 'evidence_report.commands_run', 'npm test', ...d, '--json'],
      ],
      [
        'contract_fill',
        { patch: { report_prose: 'p' }, draft_id: D },
        ['contract', 'fill', ...d, '--json', '{"report_prose":"p"}'],
      ],
      [
        'contract_fill',
        { patch: { evidence_report: { commands_run: ['other'] } }, draft_id: D },
        ['contract', 'fill', ...d, '--json', '{"evidence_report":{"commands_run":["other"]}}'],
      ],
      [
        'contract_patch',
        { patch: { report_prose: null }, draft_id: D },
        ['contract', 'patch', ...d, '--json', '{"report_prose":null}'],
      ],
      [
        'contract_set',
        { field: 'agent_status.agent_state', value: 'COMPLETE', draft_id: D },
        ['contract', 'set', 'agent_status.agent_state', 'COMPLETE', ...d, '--json'],
      ],
      ['contract_view', { draft_id: D }, ['contract', 'view', ...d, '--json']],
      [
        'contract_view',
        { draft_id: D, field: 'evidence_report.commands_run' },
        ['contract', 'view', '--field', 'evidence_report.commands_run', ...d, '--json'],
      ],
      ['contract_validate', { draft_id: D }, ['contract', 'validate', ...d, '--json']],
      [
        'contract_set',
        { field: 'agent_status.agent_state', value: 'BLOCKED', draft_id: D },
        ['contract', 'set', 'agent_status.agent_state', 'BLOCKED', ...d, '--json'],
      ],
      ['contract_finalize', { draft_id: D }, ['contract', 'finalize', ...d, '--json']],
      ['contract_finalize', { draft_id: D }, ['contract', 'finalize', ...d, '--json']],
      ['approval_list', { status: 'pending' }, ['approval', 'list', '--status', 'pending', '--json']],
      [
        'contract_chain',
        { contract_id: 'a0123456789abcdef.000000000000' },
        ['contract', 'chain', '--contract-id', 'a0123456789abcdef.000000000000', '--json'],
      ],
      ['evidence_list', { brief: 'nothing-here' }, ['evidence', 'list', '--brief', 'nothing-here', '--json']],
    ];
    for (const [tool, args, argv] of steps) {
      const cli = run(viaCli, argv, { env });
      const r = await s.call(tool, args);
      // The same object; a refusal's message worded for a tool's caller (tools and parameters, not verbs and flags).
      const params = parameterKinds(TOOL_SPECS.find((t) => t.name === tool)!.input);
      const expected =
        typeof cli.json.error === 'string'
          ? { ...cli.json, error: reword(cli.json.error as string, params) }
          : cli.json;
      // init's claim token is the command line's alone: no MCP result shows one.
      delete expected.claim_token;
      expect(r.structuredContent, `${tool} ${JSON.stringify(args)}`).toEqual(expected);
      expect(r.isError).toBe(cli.code !== 0);
    }
    expect(readFileSync(join(viaMcp, 'drafts', `${D}.json`), 'utf8')).toBe(
      readFileSync(join(viaCli, 'drafts', `${D}.json`), 'utf8'),
    );
  });
});

describe('rejections and refusals write nothing', () => {
  it("a typo's rejection carries UNKNOWN_FIELD with isError, in the object and the text, and nothing is written", async () => {
    const home = tempHome();
    const s = await open(home);
    await s.call('contract_init', { draft_id: D });
    const before = snapshot(home);
    const r = await s.call('contract_set', { field: 'evidence_report.files_checkd', value: ['a.ts'], draft_id: D });
    expect(r.isError).toBe(true);
    expect(r.structuredContent).toMatchObject({ status: 'rejected', draft_id: D, codes: ['UNKNOWN_FIELD'] });
    expect(r.structuredContent?.errors).toEqual([
      expect.objectContaining({ code: 'UNKNOWN_FIELD', path: 'evidence_report.files_checkd' }),
    ]);
    expect(textOf(r)).toContain('UNKNOWN_FIELD [evidence_report.files_checkd]');
    expect(textOf(r)).toContain('"files_checked"');
    expect(snapshot(home)).toEqual(before);
  });

  it('a rejection is short (no repair) unless explain: true asks for the full repair text', async () => {
    const home = tempHome();
    const s = await open(home);
    await s.call('contract_init', { draft_id: D });
    const short = await s.call('contract_set', { field: 'work_phas', value: 'executing', draft_id: D });
    expect(short.isError).toBe(true);
    expect(short.structuredContent).not.toHaveProperty('repair');
    const full = await s.call('contract_set', { field: 'work_phas', value: 'executing', draft_id: D, explain: true });
    expect(full.structuredContent).toMatchObject({
      codes: ['UNKNOWN_FIELD'],
      repair: expect.stringContaining('A valid envelope (compact template):'),
    });
  });

  it('contract_add refuses an array value (ADD_LIST_VALUE, nothing written); each: true appends its elements in order', async () => {
    const home = tempHome();
    const s = await open(home);
    await s.call('contract_init', { draft_id: D });
    const before = snapshot(home);
    const nested = await s.call('contract_add', {
      field: 'evidence_report.files_checked',
      value: ['a.ts', 'b.ts'],
      draft_id: D,
    });
    expect([nested.isError, nested.structuredContent?.code]).toEqual([true, 'ADD_LIST_VALUE']);
    expect(snapshot(home)).toEqual(before);
    const each = await s.call('contract_add', {
      field: 'evidence_report.files_checked',
      value: ['a.ts', 'b.ts'],
      each: true,
      draft_id: D,
    });
    expect(each.isError).toBeFalsy();
    expect(readDraftFile(home).evidence_report.files_checked).toEqual(['a.ts', 'b.ts']);
    const notArray = await s.call('contract_add', {
      field: 'evidence_report.files_checked',
      value: 'c.ts',
      each: true,
      draft_id: D,
    });
    expect([notArray.isError, notArray.structuredContent?.code]).toEqual([true, 'USAGE']);
  });

  const refusals: [string, string, Record<string, unknown>, string][] = [
    [
      'a malformed draft id',
      'contract_set',
      { field: 'work_phase', value: 'x', draft_id: 'a/../x' },
      'INVALID_DRAFT_ID',
    ],
    ['an unknown parameter', 'contract_set', { field: 'work_phase', value: 'executing', draftid: D }, 'USAGE'],
    ['a missing value', 'contract_set', { field: 'work_phase', draft_id: D }, 'USAGE'],
    ['a field that is not a string', 'contract_set', { field: 5, value: 'x', draft_id: D }, 'USAGE'],
    [
      'an empty path segment',
      'contract_set',
      { field: 'agent_status..next_action', value: 'x', draft_id: D },
      'INVALID_FIELD_PATH',
    ],
    ['add to a non-list', 'contract_add', { field: 'agent_status.next_action', value: 'x', draft_id: D }, 'NOT_A_LIST'],
    ['a patch that is not an object', 'contract_fill', { patch: ['x'], draft_id: D }, 'PATCH_NOT_OBJECT'],
    [
      'a fill that collides with a list',
      'contract_fill',
      { patch: { evidence_report: { commands_run: ['b'] } }, draft_id: D },
      'FILL_LIST_COLLISION',
    ],
    [
      'a patch removing the agent id',
      'contract_patch',
      { patch: { agent_status: { agent_id: null } }, draft_id: D },
      'PATCH_FORBIDDEN',
    ],
    [
      'a patch with an own __proto__ key',
      'contract_patch',
      { patch: JSON.parse('{"__proto__":{"polluted":true}}') as unknown, draft_id: D },
      'PATCH_FORBIDDEN',
    ],
    ['a second init of the same id', 'contract_init', { draft_id: D }, 'DRAFT_EXISTS'],
    ['a missing field in view', 'contract_view', { field: 'evidence_report.nope', draft_id: D }, 'FIELD_NOT_FOUND'],
    [
      'a draft that does not exist',
      'contract_set',
      { field: 'work_phase', value: 'x', draft_id: 'a0123456789abcdef.ffffffffffff' },
      'DRAFT_NOT_FOUND',
    ],
    ['an envelope with a draft id', 'contract_validate', { envelope: {}, draft_id: D }, 'USAGE'],
    ['finalize of a draft still in progress', 'contract_finalize', { draft_id: D }, 'CLOSING_STATE_REQUIRED'],
    ['a list limit out of range', 'contract_list', { limit: 0 }, 'USAGE'],
    ['evidence_run without --allow-run', 'evidence_run', { command: ['touch', 'x'], draft_id: D }, 'USAGE'],
    ['an unknown tool', 'contract_sett', { field: 'x', value: 1 }, 'USAGE'],
  ];

  it.each(refusals)('%s: isError with its code, and the data root is unchanged', async (_what, tool, args, code) => {
    const home = tempHome();
    const s = await open(home);
    await s.call('contract_init', { draft_id: D });
    await s.call('contract_add', { field: 'evidence_report.commands_run', value: 'a', draft_id: D });
    const before = snapshot(home);
    const r = await s.call(tool, args);
    expect(r.isError, textOf(r)).toBe(true);
    const sc = r.structuredContent!;
    expect(sc.code ?? sc.codes?.[0]).toBe(code);
    expect(sc.status).toMatch(/^(rejected|error)$/);
    expect(textOf(r)).toContain(code);
    expect(snapshot(home)).toEqual(before);
  });

  it('an unknown parameter is named with the nearest one', async () => {
    const s = await open(tempHome());
    const r = await s.call('contract_view', { drft_id: D });
    expect(r.structuredContent?.error).toBe('invalid arguments: unknown parameter "drft_id". Did you mean "draft_id"?');
  });
});

describe('values the store cannot hold', () => {
  it('a number that overflows to Infinity on the wire (1e400) is VALUE_NOT_REPRESENTABLE, before any file access', () => {
    const home = tempHome();
    // Written by hand: a JSON client cannot send 1e400 (it serializes Infinity as null).
    const lines = [
      {
        jsonrpc: '2.0',
        id: 1,
        method: 'initialize',
        params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 't', version: '1' } },
      },
      { jsonrpc: '2.0', method: 'notifications/initialized' },
    ].map((m) => JSON.stringify(m));
    lines.push(
      `{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"contract_set","arguments":{"field":"report_prose","value":[1e400],"draft_id":"${D}"}}}`,
    );
    const r = spawnSync(process.execPath, [BIN, 'mcp'], {
      env: baseEnv(home),
      cwd: home,
      input: `${lines.join('\n')}\n`,
      encoding: 'utf8',
      timeout: 60_000,
    });
    expect(r.status).toBe(0);
    const answer = r.stdout
      .split('\n')
      .filter((l) => l !== '')
      .map((l) => JSON.parse(l) as Record<string, any>)
      .find((m) => m.id === 2);
    expect(answer?.result).toMatchObject({
      isError: true,
      structuredContent: { status: 'error', code: 'VALUE_NOT_REPRESENTABLE' },
    });
    expect(snapshot(home)).toEqual({});
  });

  it('a value nested deeper than 512 levels is VALUE_NOT_REPRESENTABLE and writes nothing', async () => {
    const home = tempHome();
    const s = await open(home);
    await s.call('contract_init', { draft_id: D });
    const before = snapshot(home);
    let deep: unknown = 'x';
    for (let i = 0; i < 600; i++) deep = [deep];
    const r = await s.call('contract_add', { field: 'evidence_report.key_outputs', value: deep, draft_id: D });
    expect(r.structuredContent).toMatchObject({ status: 'error', code: 'VALUE_NOT_REPRESENTABLE' });
    expect(snapshot(home)).toEqual(before);
  });
});

describe('the mcp verb on the command line', () => {
  it('takes no arguments, is suggested for a typo, and has its help page', () => {
    const home = tempHome();
    const extra = run(home, ['mcp', 'serve']);
    expect(extra.code).toBe(2);
    expect(extra.stderr).toMatch(/\[USAGE\]\n$/);
    const typo = run(home, ['mpc']);
    expect(typo.code).toBe(2);
    expect(typo.stderr).toContain('Did you mean "mcp"?');
    const help = run(home, ['mcp', '--help']);
    expect(help.code).toBe(0);
    expect(help.stdout).toContain('--allow-run');
    expect(snapshot(home)).toEqual({});
  });
});

describe('values arrive typed and are stored exactly', () => {
  it('quotes, newlines, tabs, backslashes and unicode are stored as sent; text that looks like JSON stays text', async () => {
    const home = tempHome();
    const s = await open(home);
    await s.call('contract_init', { draft_id: D });
    const prose = 'She said "ship it"\nthen: \'no\'\ttab \\ back\\slash é ñ 漢字 😀 \u2028 end';
    const writes: [string, string, unknown][] = [
      ['contract_set', 'report_prose', prose],
      ['contract_add', 'evidence_report.key_outputs', '42'],
      ['contract_add', 'evidence_report.key_outputs', 42],
      ['contract_add', 'evidence_report.key_outputs', '{"a": 1}'],
      ['contract_add', 'evidence_report.key_outputs', { a: [1, 'x', null] }],
      ['contract_add', 'evidence_report.key_outputs', ' null '],
      ['contract_set', 'user_facing_summary', null],
    ];
    for (const [tool, field, value] of writes) {
      const r = await s.call(tool, { field, value, draft_id: D });
      expect(r.isError, textOf(r)).toBe(false);
    }
    const draft = readDraftFile(home);
    expect(draft.report_prose).toBe(prose);
    expect(draft.evidence_report.key_outputs).toEqual(['42', 42, '{"a": 1}', { a: [1, 'x', null] }, ' null ']);
    expect(draft.user_facing_summary).toBeNull();
    const viewed = await s.call('contract_view', { field: 'report_prose', draft_id: D });
    expect(viewed.structuredContent?.value).toBe(prose);
  });
});

describe("contract_validate on the validator's public cases", () => {
  it('gives exactly the library result for each of the 153 cases', async () => {
    const cases = loadCases<{ name: string; envelope: unknown; context?: Record<string, unknown> }>(
      'validator-public.jsonl',
    );
    expect(cases.length).toBeGreaterThanOrEqual(153);
    const s = await open(tempHome());
    // All at once: the server handles calls concurrently.
    const results = await Promise.all(
      cases.map((c) =>
        s.call('contract_validate', {
          envelope: c.envelope,
          explain: true,
          ...(c.context?.consolidation === true ? { consolidation: true } : {}),
        }),
      ),
    );
    const validateParams = parameterKinds(TOOL_SPECS.find((t) => t.name === 'contract_validate')!.input);
    cases.forEach((c, i) => {
      const lib = validateEnvelope(c.envelope, c.context ?? {});
      const r = results[i];
      expect(r.isError, c.name).toBe(!lib.ok);
      if (lib.ok) expect(r.structuredContent, c.name).toEqual({ status: 'ok', source: 'envelope' });
      else {
        expect(r.structuredContent, c.name).toEqual({
          status: 'rejected',
          source: 'envelope',
          codes: [...new Set(lib.codes)],
          errors: lib.errors.map((e) => ({ code: e.code, path: e.path, detail: e.detail })),
          // Worded for a tool's caller: the write tools and their parameters instead of the verbs and flags.
          repair: reword(lib.repair, validateParams),
        });
      }
    });
  });
});

describe('concurrent calls in one server', () => {
  it('twelve parallel adds to one draft: all succeed and all twelve entries are stored', async () => {
    const home = tempHome();
    const s = await open(home);
    await s.call('contract_init', { draft_id: D });
    const entries = Array.from({ length: 12 }, (_, i) => `cmd ${i}`);
    const results = await Promise.all(
      entries.map((value) => s.call('contract_add', { field: 'evidence_report.commands_run', value, draft_id: D })),
    );
    for (const r of results) expect(r.isError, textOf(r)).toBe(false);
    expect([...readDraftFile(home).evidence_report.commands_run].sort()).toEqual([...entries].sort());
  });
});

describe('resources', () => {
  it('serves the published envelope schema and one draft exactly as stored', async () => {
    const home = tempHome();
    const s = await open(home);
    await s.call('contract_init', { draft_id: D });
    const { resources } = await s.client.listResources();
    expect(resources.map((r) => r.uri)).toEqual(['handoff://schema/envelope', `handoff://drafts/${D}`]);
    const { resourceTemplates } = await s.client.listResourceTemplates();
    expect(resourceTemplates.map((t) => t.uriTemplate)).toEqual(['handoff://drafts/{draft_id}']);
    const schema = await s.client.readResource({ uri: 'handoff://schema/envelope' });
    expect(schema.contents[0]).toMatchObject({
      text: readFileSync(join(REPO, 'schemas', 'envelope.schema.json'), 'utf8'),
    });
    const draft = await s.client.readResource({ uri: `handoff://drafts/${D}` });
    expect(draft.contents[0]).toMatchObject({
      mimeType: 'application/json',
      text: readFileSync(join(home, 'drafts', `${D}.json`), 'utf8'),
    });
  });

  const bad: [string, string, number, string][] = [
    ['a malformed draft id', 'handoff://drafts/../../etc/passwd', -32602, 'INVALID_DRAFT_ID'],
    ['a draft that does not exist', 'handoff://drafts/a0123456789abcdef.ffffffffffff', -32002, 'DRAFT_NOT_FOUND'],
    ['an unknown resource', 'handoff://nothing', -32002, 'RESOURCE_NOT_FOUND'],
  ];
  it.each(bad)('%s is a JSON-RPC error carrying its code; nothing is created', async (_what, uri, rpc, code) => {
    const home = tempHome();
    const s = await open(home);
    const before = snapshot(home);
    const failure = await s.client.readResource({ uri }).then(
      () => undefined,
      (e: unknown) => e as { code: number; data?: { code?: string } },
    );
    expect(failure?.code).toBe(rpc);
    expect(failure?.data?.code).toBe(code);
    expect(snapshot(home)).toEqual(before);
  });
});

describe('evidence_run (--allow-run)', () => {
  it('records a receipt, appends it to the draft, and returns the output; a failing command is not a tool error', async () => {
    const home = tempHome();
    const s = await open(home, ['--allow-run'], { HANDOFF_WORKSPACE: 'mcp' });
    await s.call('contract_init', { draft_id: D });
    const ok = await s.call('evidence_run', {
      command: [process.execPath, '-e', 'console.log("tests pass")'],
      draft_id: D,
    });
    expect(ok.isError, textOf(ok)).toBe(false);
    expect(ok.structuredContent).toMatchObject({
      status: 'ok',
      receipt: { contract_id: D, exit_code: 0, outcome: 'pass' },
    });
    expect(textOf(ok)).toContain('tests pass');
    const failing = await s.call('evidence_run', { command: [process.execPath, '-e', 'process.exit(1)'], draft_id: D });
    expect(failing.isError).toBe(false);
    expect(failing.structuredContent).toMatchObject({ status: 'ok', receipt: { exit_code: 1, outcome: 'fail' } });
    expect(readDraftFile(home).evidence_report.commands_run).toHaveLength(2);
  });
});

describe('docs/mcp.md', () => {
  it('the JSON configuration of the page starts a server that lists the tools', async () => {
    const config = JSON.parse(readFileSync(join(REPO, 'docs', 'examples', 'mcp-config.json'), 'utf8')) as {
      mcpServers: { handoff: { command: string; args: string[]; env: Record<string, string> } };
    };
    const server = config.mcpServers.handoff;
    expect(server.command).toBe('handoff');
    const shown = /```json\n(\{\n {2}"mcpServers"[\s\S]*?)```/.exec(readFileSync(join(REPO, 'docs', 'mcp.md'), 'utf8'));
    expect(JSON.parse(shown?.[1] ?? 'null')).toEqual(config);
    // `handoff` is the built binary here; the configured data root is replaced by a temp one.
    const home = tempHome();
    const transport = new StdioClientTransport({
      command: process.execPath,
      args: [BIN, ...server.args],
      env: { ...(baseEnv(home) as Record<string, string>), ...server.env, HANDOFF_HOME: home },
      cwd: home,
    });
    const client = new Client({ name: 'docs', version: '1.0.0' });
    await client.connect(transport);
    try {
      const { tools } = await client.listTools();
      expect(tools.map((t) => t.name)).toEqual(TOOLS);
    } finally {
      await client.close();
    }
  });

  it('the tool table names every tool and every parameter, required ones in bold', async () => {
    const doc = readFileSync(join(REPO, 'docs', 'mcp.md'), 'utf8');
    const s = await open(tempHome(), ['--allow-run']);
    const { tools } = await s.client.listTools();
    for (const t of tools) {
      const row = doc.split('\n').find((line) => line.startsWith(`| \`${t.name}\` |`));
      expect(row, t.name).toBeDefined();
      const required = new Set(t.inputSchema.required ?? []);
      for (const p of Object.keys(t.inputSchema.properties ?? {})) {
        expect(row, `${t.name} ${p}`).toContain(required.has(p) ? `**\`${p}\`**` : `\`${p}\``);
      }
    }
  });
});
