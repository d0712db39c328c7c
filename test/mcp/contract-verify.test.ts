/**
 * contract_verify: an MCP-only agent proves its check. Served only with `--allow-run`; it runs the draft's
 * verification.command, records the receipt and writes it into the draft, so the dispatched turn closes COMPLETE.
 * The policy's rejection text names the tools, never a shell command.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { run, tempHome } from '../helpers/cli.js';
import { connect, textOf, type McpSession } from '../helpers/mcp.js';

const sessions: McpSession[] = [];
afterEach(async () => {
  await Promise.all(sessions.splice(0).map((s) => s.close()));
});

async function open(home: string, args: string[]): Promise<McpSession> {
  const s = await connect(home, args, { HANDOFF_WORKSPACE: 'ws' });
  sessions.push(s);
  return s;
}

/** A dispatched turn (the policy receipt) with its closing fields written, verification.command set. */
function dispatched(home: string): string {
  const r = run(home, ['contract', 'dispatch', '--goal', 'g', '--kind', 'change', '--workspace', 'ws', '--json']);
  expect(r.code, r.stderr).toBe(0);
  return r.json.contract_id as string;
}

describe('contract_verify', () => {
  it('without --allow-run it is not served, and the refusal names the flag', async () => {
    const s = await open(tempHome(), []);
    const r = await s.call('contract_verify', { draft_id: 'a0123456789abcdef.0123456789ab' });
    expect(r.isError).toBe(true);
    expect(textOf(r)).toContain('contract_verify is not served');
    expect(textOf(r)).toContain('--allow-run');
  });

  it('records a receipt of verification.command; the dispatched turn then closes COMPLETE', async () => {
    const home = tempHome();
    const D = dispatched(home);
    const s = await open(home, ['--allow-run']);
    const patch = {
      agent_status: { next_action: 'done' },
      evidence_report: { verification: { type: 'self_review', reviewed: 'read the diff', result: 'pass' } },
    };
    expect((await s.call('contract_fill', { draft_id: D, patch })).isError).toBe(false);
    expect(
      (await s.call('contract_set', { draft_id: D, field: 'agent_status.agent_state', value: 'COMPLETE' })).isError,
    ).toBe(false);
    const refused = await s.call('contract_finalize', { draft_id: D });
    expect(refused.isError).toBe(true);
    const said = textOf(refused);
    expect(said).toContain('RECEIPT_REQUIRED');
    expect(said).toContain('evidence_run (or contract_verify');
    expect(said).not.toMatch(/handoff (evidence run|contract verify)/);

    const claim = { type: 'command', command: `${process.execPath} -e 0`, reviewed: null };
    expect(
      (await s.call('contract_fill', { draft_id: D, patch: { evidence_report: { verification: claim } } })).isError,
    ).toBe(false);
    const v = await s.call('contract_verify', { draft_id: D });
    expect(v.isError, textOf(v)).toBe(false);
    const receiptId = v.structuredContent?.receipt?.receipt_id as string;
    expect(receiptId).toMatch(/^R-[0-9a-f]{16}$/);
    const fin = await s.call('contract_finalize', { draft_id: D });
    expect(fin.isError, textOf(fin)).toBe(false);
    expect(fin.structuredContent).toMatchObject({ status: 'ok', agent_state: 'COMPLETE' });
  });
});
