/**
 * Every tool declares a shallow outputSchema: the top-level keys of the result schemas of schemas/results/ its verb's
 * --json output takes (the same table as test/helpers/schemas/verb-schemas.ts) with their JSON types, so that
 * `tools/list` stays at most 64 KB. A real session through every tool, successes and refusals, is validated against
 * the shallow schema with ajv (draft 2020-12, strict) and against the full published schemas, and the SDK's own client
 * compiles it and checks every successful result as it arrives.
 */
import { Ajv2020 } from 'ajv/dist/2020.js';
import { AjvJsonSchemaValidator } from '@modelcontextprotocol/sdk/validation/ajv';
import { afterEach, describe, expect, it } from 'vitest';
import { run, tempHome } from '../helpers/cli.js';
import { connect, textOf, type McpSession, type ToolCallResult } from '../helpers/mcp.js';
import { check as checkFull } from '../helpers/schemas/schemas.js';
import { VERB_SCHEMAS } from '../helpers/schemas/verb-schemas.js';

const D = 'a0123456789abcdef.0123456789ab';
const WS = { HANDOFF_WORKSPACE: 'ws' };
const sessions: McpSession[] = [];
afterEach(async () => {
  await Promise.all(sessions.splice(0).map((s) => s.close()));
});

async function open(home: string): Promise<McpSession> {
  const s = await connect(home, ['--allow-run'], WS);
  sessions.push(s);
  return s;
}

/** Every tool once or more, with a success and a refusal each. */
const SESSION: [string, Record<string, unknown>, 'ok' | 'refused'][] = [
  ['contract_init', { draft_id: D }, 'ok'],
  ['contract_init', { draft_id: D }, 'refused'],
  ['contract_set', { field: 'work_phase', value: 'Executing', draft_id: D }, 'ok'],
  ['contract_set', { field: 'work_phas', value: 'x', draft_id: D, explain: true }, 'refused'],
  ['contract_add', { field: 'evidence_report.files_checked', value: 'src/a.ts', draft_id: D }, 'ok'],
  ['contract_add', { field: 'evidence_report.files_checked', value: ['b'], draft_id: D }, 'refused'],
  [
    'contract_fill',
    {
      patch: {
        report_prose: 'p',
        evidence_report: { verification: { type: 'command', command: 'npm test', result: 'pass' } },
      },
      draft_id: D,
    },
    'ok',
  ],
  ['contract_fill', { patch: { evidence_report: { files_checked: ['other'] } }, draft_id: D }, 'refused'],
  ['contract_patch', { patch: { report_prose: 'q' }, draft_id: D }, 'ok'],
  ['contract_patch', { patch: { agent_status: { agent_id: null } }, draft_id: D }, 'refused'],
  ['contract_view', { draft_id: D }, 'ok'],
  ['contract_view', { field: 'work_phase', draft_id: D }, 'ok'],
  ['contract_view', { field: 'nope', draft_id: D }, 'refused'],
  ['contract_validate', { draft_id: D }, 'ok'],
  ['contract_validate', { envelope: {} }, 'refused'],
  ['contract_finalize', { draft_id: D }, 'refused'],
  ['evidence_run', { command: 'echo tests pass', shell: true, draft_id: D }, 'ok'],
  ['evidence_run', { command: 'echo tests pass', draft_id: D }, 'refused'],
  [
    'contract_fill',
    { patch: { evidence_report: { verification: { command: 'echo tests pass' } } }, draft_id: D },
    'ok',
  ],
  ['contract_verify', { draft_id: D }, 'ok'],
  ['contract_verify', { draft_id: 'a0123456789abcdef.ffffffffffff' }, 'refused'],
  ['contract_set', { field: 'agent_status.next_action', value: 'done', draft_id: D }, 'ok'],
  ['contract_set', { field: 'agent_status.agent_state', value: 'COMPLETE', draft_id: D }, 'ok'],
  ['contract_finalize', { draft_id: D }, 'ok'],
  ['contract_list', { with_envelope: true }, 'ok'],
  ['contract_list', { limit: 0 }, 'refused'],
  ['contract_chain', { contract_id: D }, 'ok'],
  ['contract_chain', { contract_id: D, diff: true }, 'ok'],
  ['contract_chain', { contract_id: 'a0123456789abcdef.ffffffffffff' }, 'refused'],
  ['evidence_add', { brief: 'payments', ac: 'AC-1', type: 'text', text: 'replayed twice: one charge' }, 'ok'],
  ['evidence_add', { brief: 'nope', ac: 'AC-1', type: 'text', text: 'x' }, 'refused'],
  ['evidence_list', { brief: 'payments' }, 'ok'],
  ['evidence_list', { brief: '../x' }, 'refused'],
  ['approval_request', { content: 'DROP TABLE staging;' }, 'ok'],
  ['approval_request', { content: ' ' }, 'refused'],
  ['approval_list', {}, 'ok'],
  ['approval_list', { status: 'nope' }, 'refused'],
  // APPROVAL_ID stands for the id the approval_request call above returned.
  ['approval_show', { approval_id: 'APPROVAL_ID' }, 'ok'],
  ['approval_show', { approval_id: 'P-0123' }, 'refused'],
];

describe('outputSchema', () => {
  it('tools/list is at most 64 KB in all', async () => {
    const s = await open(tempHome());
    const listed = await s.client.listTools();
    const bytes = Buffer.byteLength(JSON.stringify(listed));
    expect(bytes).toBeLessThanOrEqual(64 * 1024);
    for (const t of listed.tools) expect(Buffer.byteLength(JSON.stringify(t.outputSchema)), t.name).toBeLessThan(4096);
  });

  it("each tool's outputSchema names the verb's result schemas, compiles strict under 2020-12 and in the SDK's client validator", async () => {
    const s = await open(tempHome());
    const { tools } = await s.client.listTools();
    expect(tools.length).toBeGreaterThanOrEqual(15);
    const ajv = new Ajv2020({ strict: true, strictRequired: false, allowUnionTypes: true });
    const sdk = new AjvJsonSchemaValidator();
    for (const t of tools) {
      const schema = t.outputSchema as Record<string, any> | undefined;
      expect(schema?.type, t.name).toBe('object');
      const verb = t.name.replace('_', ' ');
      const named = [...String(schema?.description).matchAll(/([a-z-]+)\.schema\.json/g)].map((m) => m[1]);
      expect(named, t.name).toEqual(VERB_SCHEMAS[verb]);
      expect(schema?.properties?.status, t.name).toEqual({ type: 'string' });
      expect(() => ajv.compile(schema!), t.name).not.toThrow();
      expect(() => sdk.getValidator(schema as never), t.name).not.toThrow();
    }
  });

  it("every real result, success or refusal, follows its tool's outputSchema; a wrong one does not", async () => {
    const home = tempHome();
    expect(run(home, ['brief', 'add', 'payments', '--ac', 'AC-1=replay'], { env: WS }).code).toBe(0);
    const s = await open(home);
    const { tools } = await s.client.listTools();
    const ajv = new Ajv2020({ strict: true, strictRequired: false, allowUnionTypes: true, allErrors: true });
    const validators = new Map(tools.map((t) => [t.name, ajv.compile(t.outputSchema as object)]));
    const seen = new Set<string>();
    let approvalId = '';
    for (const [tool, given, expected] of SESSION) {
      const args = given.approval_id === 'APPROVAL_ID' ? { approval_id: approvalId } : given;
      const r: ToolCallResult = await s.call(tool, args);
      if (tool === 'approval_request' && expected === 'ok')
        approvalId = (r.structuredContent as { approval_id: string }).approval_id;
      expect(r.isError ?? false, `${tool} ${JSON.stringify(args)}: ${textOf(r)}`).toBe(expected === 'refused');
      const check = validators.get(tool)!;
      expect(check(r.structuredContent), `${tool} ${JSON.stringify(args)}: ${ajv.errorsText(check.errors)}`).toBe(true);
      const full = VERB_SCHEMAS[tool.replace('_', ' ')].map((n) => checkFull(n, r.structuredContent));
      expect(
        full.some((c) => c.ok),
        `${tool} ${JSON.stringify(args)}: ${full.map((c) => c.why).join('; ')}`,
      ).toBe(true);
      seen.add(`${tool}:${expected}`);
    }
    for (const t of tools) {
      expect(seen.has(`${t.name}:ok`), t.name).toBe(true);
      expect(seen.has(`${t.name}:refused`), t.name).toBe(true);
    }
    // A key of the wrong type fails the shallow schema; a wrong shape with the right types only the full one.
    expect(validators.get('contract_init')!({ status: 'ok', draft_id: 1 })).toBe(false);
    expect(validators.get('evidence_run')!({ status: 'ok', receipt: 'R-1' })).toBe(false);
    expect(VERB_SCHEMAS['contract init'].some((n) => checkFull(n, { status: 'ok', draft_id: D }).ok)).toBe(false);
    expect(VERB_SCHEMAS['evidence run'].some((n) => checkFull(n, { status: 'ok', receipt: {} }).ok)).toBe(false);
  });

  it('an ambiguous draft (no draft_id, two drafts) follows the ambiguous-draft shape of the outputSchema', async () => {
    const home = tempHome();
    const s = await open(home);
    await s.call('contract_init', {});
    await s.call('contract_init', {});
    const { tools } = await s.client.listTools();
    const ajv = new Ajv2020({ strict: true, strictRequired: false, allowUnionTypes: true });
    const r = await s.call('contract_set', { field: 'work_phase', value: 'executing' });
    const check = ajv.compile(tools.find((t) => t.name === 'contract_set')!.outputSchema as object);
    expect(r.structuredContent).toMatchObject({ status: 'error', code: 'AMBIGUOUS_DRAFT' });
    expect(check(r.structuredContent), ajv.errorsText(check.errors)).toBe(true);
  });
});
