/**
 * The server survives any message: a request over the 10 MiB limit gets a JSON-RPC error naming the limit
 * (MESSAGE_TOO_LARGE) and the calls before and after it are served; a message that is not valid UTF-8 is refused
 * (INVALID_UTF8), never read with U+FFFD in place of its bytes.
 */
import { spawnSync } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { BIN, baseEnv, snapshot, tempHome } from '../helpers/cli.js';
import { connect, textOf, type McpSession } from '../helpers/mcp.js';

const D = 'a0123456789abcdef.0123456789ab';
const LIMIT = 10 * 1024 * 1024;

const sessions: McpSession[] = [];
afterEach(async () => {
  await Promise.all(sessions.splice(0).map((s) => s.close()));
});

describe('a message over the limit', () => {
  it('a 12 MB request between two normal calls: a JSON-RPC error naming the limit, the server goes on, nothing written', async () => {
    const home = tempHome();
    const s = await connect(home);
    sessions.push(s);
    const first = await s.call('contract_init', { draft_id: D });
    expect(first.isError, textOf(first)).toBe(false);
    const before = snapshot(home);
    const big = await s
      .call('contract_set', { field: 'report_prose', value: 'x'.repeat(12_000_000), draft_id: D })
      .then(
        () => undefined,
        (e: unknown) => e as { code?: number; message?: string; data?: Record<string, unknown> },
      );
    expect(big?.code).toBe(-32600);
    expect(big?.message).toContain(String(LIMIT));
    expect(big?.data).toMatchObject({ code: 'MESSAGE_TOO_LARGE', limit_bytes: LIMIT });
    expect(big?.data?.size_bytes).toBeGreaterThan(12_000_000);
    expect(snapshot(home)).toEqual(before);
    const after = await s.call('contract_set', { field: 'report_prose', value: 'small', draft_id: D });
    expect(after.isError, textOf(after)).toBe(false);
    const draft = JSON.parse(readFileSync(join(home, 'drafts', `${D}.json`), 'utf8')) as { report_prose: string };
    expect(draft.report_prose).toBe('small');
    expect(s.stderr()).toContain('MESSAGE_TOO_LARGE');
  });

  it('a call in flight while the large request arrives still gets its answer', async () => {
    const home = tempHome();
    const s = await connect(home, ['--allow-run']);
    sessions.push(s);
    await s.call('contract_init', { draft_id: D });
    // The command waits until the large request has been answered (it looks for the marker file the test writes).
    const marker = join(home, 'answered');
    const waiting = `const fs = require('node:fs'); const t = setInterval(() => { if (fs.existsSync(${JSON.stringify(marker)})) { clearInterval(t); console.log('done'); } }, 20);`;
    const inFlight = s.call('evidence_run', { command: [process.execPath, '-e', waiting], draft_id: D });
    const big = await s.call('contract_view', { field: 'x'.repeat(11 * 1024 * 1024), draft_id: D }).then(
      () => 'answered',
      (e: unknown) => (e as { data?: { code?: string } }).data?.code,
    );
    expect(big).toBe('MESSAGE_TOO_LARGE');
    writeFileSync(marker, '');
    const r = await inFlight;
    expect(r.isError, textOf(r)).toBe(false);
    expect(r.structuredContent?.receipt).toMatchObject({ exit_code: 0, outcome: 'pass' });
  });
});

describe('a message that is not UTF-8', () => {
  it('is answered with a parse error naming INVALID_UTF8 and nothing of it is done; the next call is served', () => {
    const home = tempHome();
    const head = [
      {
        jsonrpc: '2.0',
        id: 1,
        method: 'initialize',
        params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 't', version: '1' } },
      },
      { jsonrpc: '2.0', method: 'notifications/initialized' },
    ].map((m) => Buffer.from(`${JSON.stringify(m)}\n`));
    // Written by hand: a JSON client cannot send a byte that is not UTF-8. Read leniently, this call would succeed.
    const bad = Buffer.concat([
      Buffer.from(
        `{"jsonrpc":"2.0","method":"tools/call","params":{"name":"contract_init","arguments":{"draft_id":"${D}"},"_meta":{"note":"caf`,
      ),
      Buffer.from([0xe9]),
      Buffer.from('"}},"id":2}\n'),
    ]);
    const next = Buffer.from(
      `${JSON.stringify({ jsonrpc: '2.0', id: 3, method: 'tools/call', params: { name: 'contract_view', arguments: { draft_id: D } } })}\n`,
    );
    const r = spawnSync(process.execPath, [BIN, 'mcp'], {
      env: baseEnv(home),
      cwd: home,
      input: Buffer.concat([...head, bad, next]),
      timeout: 60_000,
    });
    expect(r.status).toBe(0);
    const answers = r.stdout
      .toString('utf8')
      .split('\n')
      .filter((l) => l !== '')
      .map((l) => JSON.parse(l) as Record<string, any>);
    expect(answers.find((m) => m.id === 2)?.error).toMatchObject({ code: -32700, data: { code: 'INVALID_UTF8' } });
    expect(answers.find((m) => m.id === 3)?.result).toMatchObject({
      isError: true,
      structuredContent: { code: 'DRAFT_NOT_FOUND' },
    });
    expect(snapshot(home)).toEqual({});
  });
});

describe('a message that is not JSON', () => {
  it('is answered with -32700 and "id": null, nothing of it is done; the next call is served', () => {
    const home = tempHome();
    const lines = [
      JSON.stringify({
        jsonrpc: '2.0',
        id: 1,
        method: 'initialize',
        params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 't', version: '1' } },
      }),
      JSON.stringify({ jsonrpc: '2.0', method: 'notifications/initialized' }),
      // A call cut short (its id unreadable as JSON), and text that is no JSON at all.
      `{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"contract_init","arguments":{"draft_id":"${D}"}`,
      'not json',
      JSON.stringify({
        jsonrpc: '2.0',
        id: 3,
        method: 'tools/call',
        params: { name: 'contract_view', arguments: { draft_id: D } },
      }),
    ];
    const r = spawnSync(process.execPath, [BIN, 'mcp'], {
      env: baseEnv(home),
      cwd: home,
      input: `${lines.join('\n')}\n`,
      timeout: 60_000,
    });
    expect(r.status).toBe(0);
    const answers = r.stdout
      .toString('utf8')
      .split('\n')
      .filter((l) => l !== '')
      .map((l) => JSON.parse(l) as Record<string, any>);
    const parseErrors = answers.filter((m) => m.error?.code === -32700);
    expect(parseErrors).toHaveLength(2);
    for (const m of parseErrors) {
      expect(m).toHaveProperty('id', null);
      expect(m.error.data).toEqual({ code: 'INVALID_JSON' });
    }
    // The parse errors are written at once, maybe before the answer to initialize: their order is not asserted.
    expect(answers).toHaveLength(4);
    expect(answers.map((m) => m.id)).toEqual(expect.arrayContaining([1, null, null, 3]));
    expect(answers.find((m) => m.id === 3)?.result).toMatchObject({
      isError: true,
      structuredContent: { code: 'DRAFT_NOT_FOUND' },
    });
    expect(snapshot(home)).toEqual({});
  });
});
