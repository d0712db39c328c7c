/** MCP `approval_show`: the same result as `handoff approval show --json`, and the fill input works as a patch. */
import { afterEach, describe, expect, it } from 'vitest';
import { run, tempHome } from '../helpers/cli.js';
import { connect, type McpSession } from '../helpers/mcp.js';

const D = 'a0123456789abcdef.0123456789ab';
const CONTENT = 'git push origin main\n\u202e';

const sessions: McpSession[] = [];
afterEach(async () => {
  await Promise.all(sessions.splice(0).map((s) => s.close()));
});

describe('approval_show', () => {
  it('returns what the CLI returns; fill_input is the contract_fill patch for the executing turn', async () => {
    const home = tempHome();
    expect(run(home, ['contract', 'init', '--draft-id', D]).code).toBe(0);
    const req = run(home, ['approval', 'request', '--content', CONTENT, '--draft-id', D, '--json']);
    const id = req.json.approval_id as string;
    expect(run(home, ['approval', 'decide', id, '--decision', 'approved', '--by', 'alice']).code).toBe(0);
    const s = await connect(home);
    sessions.push(s);
    const r = await s.call('approval_show', { approval_id: id });
    expect(r.isError).toBe(false);
    expect(r.structuredContent).toEqual(run(home, ['approval', 'show', id, '--json']).json);
    const shown = r.structuredContent as {
      approval: { exact_content: string; approval_status: string };
      fill_input: string;
    };
    expect([shown.approval.exact_content, shown.approval.approval_status]).toEqual([CONTENT, 'approved']);
    const filled = await s.call('contract_fill', { patch: JSON.parse(shown.fill_input), draft_id: D });
    expect(filled.isError).toBe(false);
  });

  it('an unknown id is APPROVAL_NOT_FOUND; a flag-looking id is USAGE, never read as a flag', async () => {
    const home = tempHome();
    const s = await connect(home);
    sessions.push(s);
    const missing = await s.call('approval_show', { approval_id: `P-${'0'.repeat(32)}` });
    expect([missing.isError, (missing.structuredContent as { code: string }).code]).toEqual([
      true,
      'APPROVAL_NOT_FOUND',
    ]);
    const flag = await s.call('approval_show', { approval_id: '--json' });
    expect([flag.isError, (flag.structuredContent as { code: string }).code]).toEqual([true, 'USAGE']);
  });
});
