/**
 * Approval patterns and the pre-tool approval gate on the real PostgreSQL server: migration 0008's columns, the
 * patterns stored and inherited by a continuation, and an approval used once by one tool call.
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { fill, hostOk, pgHost, pgRow } from '../helpers/pg-cli.js';
import { dropDatabase, freshDatabase, sql } from '../helpers/pg.js';

let dbUrl: string;
beforeAll(async () => {
  dbUrl = await freshDatabase();
});
afterAll(async () => {
  await dropDatabase(dbUrl);
});

describe('approval gate on PostgreSQL', () => {
  it('stores the patterns, a continuation inherits them, and an approval lets one tool call run once', async () => {
    const host = pgHost(dbUrl);
    const d = hostOk(host, [
      'contract',
      'dispatch',
      '--workspace',
      'ws',
      '--goal',
      'g',
      '--require-approval',
      'Bash(git push *)',
    ]);
    expect(JSON.parse((await pgRow(dbUrl, d.contract_id)).require_approval_json)).toEqual(['Bash(git push *)']);

    const repo = join(host.home, 'repo');
    mkdirSync(join(repo, '.git'), { recursive: true });
    writeFileSync(join(repo, '.git', 'HEAD'), 'ref: refs/heads/main\n'); // a repository, as git judges one
    const transcript = join(host.home, 't.jsonl');
    writeFileSync(
      transcript,
      `${JSON.stringify({ type: 'user', message: { role: 'user', content: d.contract_block } })}\n`,
    );
    const call = (id: string) => ({
      input: JSON.stringify({
        hook_event_name: 'PreToolUse',
        session_id: 's',
        transcript_path: transcript,
        cwd: repo,
        tool_name: 'Bash',
        tool_input: { command: 'git push origin main' },
        tool_use_id: id,
      }),
    });
    expect(host.run(['approval', 'gate'], call('t1')).code).toBe(2);
    const a = hostOk(host, ['approval', 'request', '--draft-id', d.contract_id, '--content', 'git push origin main']);
    hostOk(host, ['approval', 'decide', a.approval_id, '--decision', 'approved']);
    expect(host.run(['approval', 'gate'], call('t2')).code).toBe(0);
    expect(host.run(['approval', 'gate'], call('t3')).code).toBe(2);
    const [row] = await sql(
      dbUrl,
      'SELECT status, used_by_tool_use_id, used_by_contract_id FROM approvals WHERE id = $1',
      [a.approval_id],
    );
    expect(row).toEqual({ status: 'used', used_by_tool_use_id: 't2', used_by_contract_id: d.contract_id });
    expect(hostOk(host, ['approval', 'show', a.approval_id]).approval).toMatchObject({
      approval_status: 'used',
      used_by_tool_use_id: 't2',
    });

    fill(host, d.contract_id, { agent_status: { agent_state: 'BLOCKED' } });
    hostOk(host, ['contract', 'finalize', '--draft-id', d.contract_id]);
    const link = hostOk(host, ['contract', 'add', 'evidence_report.commands_run', 'late', '--draft-id', d.contract_id]);
    const linked = await pgRow(dbUrl, link.continuation.contract_id);
    expect(JSON.parse(linked.require_approval_json)).toEqual(['Bash(git push *)']);
  });
});
