/**
 * Cancelling an MCP call (notifications/cancelled, sent by the SDK's client when its AbortSignal fires) stops what
 * the call started: evidence_run's command dies with its whole process group, a process it left behind included.
 */
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { tempHome } from '../helpers/cli.js';
import { connect, type McpSession } from '../helpers/mcp.js';

const D = 'a0123456789abcdef.0123456789ab';
const sessions: McpSession[] = [];
const started: number[] = [];
afterEach(async () => {
  for (const pid of started.splice(0)) {
    try {
      process.kill(pid, 'SIGKILL');
    } catch {
      // gone
    }
  }
  await Promise.all(sessions.splice(0).map((s) => s.close()));
});

/** Running (a zombie waiting for its parent counts as gone). */
function alive(pid: number): boolean {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    return stat.slice(stat.lastIndexOf(')') + 2)[0] !== 'Z';
  } catch {
    return false;
  }
}

/** Polls until `ok`; the bound only catches a hang (a group that never dies), it is not a speed claim. */
async function waitFor(ok: () => boolean, what: string, boundMs = 60_000): Promise<void> {
  const end = Date.now() + boundMs;
  while (!ok()) {
    if (Date.now() > end) throw new Error(`still waiting: ${what}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

describe('cancelling evidence_run', () => {
  it("kills the child's process group, a grandchild included", async () => {
    const home = tempHome();
    const s = await connect(home, ['--allow-run']);
    sessions.push(s);
    expect((await s.call('contract_init', { draft_id: D })).isError).toBe(false);
    const pids = join(home, 'pids');
    const script = [
      "const { spawn } = require('node:child_process');",
      "const g = spawn(process.execPath, ['-e', 'setInterval(() => {}, 1000)'], { stdio: 'ignore' });",
      `require('node:fs').writeFileSync(${JSON.stringify(pids)}, process.pid + ' ' + g.pid);`,
      'setInterval(() => {}, 1000);',
    ].join('\n');
    const abort = new AbortController();
    const call = s.client
      .callTool(
        { name: 'evidence_run', arguments: { command: [process.execPath, '-e', script], draft_id: D } },
        undefined,
        {
          signal: abort.signal,
          timeout: 600_000,
        },
      )
      .then(
        () => 'answered',
        () => 'cancelled',
      );
    await waitFor(() => existsSync(pids) && readFileSync(pids, 'utf8').includes(' '), 'the command to start');
    const [leader, grandchild] = readFileSync(pids, 'utf8').split(' ').map(Number);
    started.push(leader, grandchild);
    expect([alive(leader), alive(grandchild)]).toEqual([true, true]);
    abort.abort();
    expect(await call).toBe('cancelled');
    await waitFor(() => !alive(leader) && !alive(grandchild), 'the process group to die after the cancel');
    // The server goes on serving.
    expect((await s.call('contract_view', { field: 'work_phase', draft_id: D })).isError).toBe(false);
  });
});
