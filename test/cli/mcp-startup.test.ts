/**
 * Start-up: nothing of the MCP SDK, nor zod's JSON Schema generator, loads on any other verb's path, and neither is
 * inside the bundles every other call reads. `handoff mcp` runs from a bundle of its own that holds both, so it loads
 * neither from node_modules either. A preload records every module the process held at exit (the bundle among them,
 * which shows that a module required from node_modules would be seen too).
 */
import { spawnSync } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { BIN, baseEnv, hotVerbCalls, RECORDER, REPO, tempHome } from '../helpers/cli.js';

const D = 'a0123456789abcdef.0123456789ab';
const SDK = `${join('node_modules', '@modelcontextprotocol', 'sdk')}`;
const ZOD = `${join('node_modules', 'zod')}`;

/** Runs `handoff ...args` under the recorder; the module files it held at exit, and the exit code. */
function modulesOf(
  home: string,
  args: string[],
  input = '',
): { code: number | null; modules: string[]; stdout: string } {
  const record = join(home, `modules-${args[0]}-${args[1] ?? ''}.txt`);
  const r = spawnSync(process.execPath, ['--require', RECORDER, BIN, ...args], {
    env: baseEnv(home, { RECORD_MODULES_FILE: record }),
    cwd: home,
    input,
    encoding: 'utf8',
    timeout: 60_000,
  });
  return {
    code: r.status,
    modules: readFileSync(record, 'utf8')
      .split('\n')
      .filter((l) => l !== ''),
    stdout: r.stdout,
  };
}

describe('the MCP SDK stays off every other verb', () => {
  it('the hot verbs load neither the SDK nor zod from node_modules (the bundle is all they read)', () => {
    const home = tempHome();
    writeFileSync(join(home, 'envelope.json'), '{}');
    const calls = [...hotVerbCalls(D, join(home, 'envelope.json')), ['help']];
    for (const args of calls) {
      const { modules } = modulesOf(home, args);
      expect(
        modules.some((m) => m.endsWith(join('dist', 'cli', 'handoff.cjs'))),
        args.join(' '),
      ).toBe(true);
      expect(
        modules.filter((m) => m.includes(SDK) || m.includes(ZOD)),
        args.join(' '),
      ).toEqual([]);
    }
  });

  it('`handoff mcp` serves a request from its own bundle, loading neither the SDK nor zod from node_modules', () => {
    const home = tempHome();
    const initialize = {
      jsonrpc: '2.0',
      id: 1,
      method: 'initialize',
      params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 't', version: '1' } },
    };
    const { code, modules, stdout } = modulesOf(home, ['mcp'], `${JSON.stringify(initialize)}\n`);
    expect(code).toBe(0);
    expect(JSON.parse(stdout.split('\n')[0])).toMatchObject({ id: 1, result: { serverInfo: { name: 'handoff' } } });
    expect(modules.some((m) => m.endsWith(join('dist', 'cli', 'handoff.cjs')))).toBe(true);
    expect(modules.filter((m) => m.includes(SDK) || m.includes(ZOD))).toEqual([]);
  });

  it("only the MCP bundle holds the SDK and zod's JSON Schema generator", () => {
    const text = (name: string) => readFileSync(join(REPO, 'dist', 'cli', name), 'latin1');
    // A message of the SDK's Server class, and one of zod's JSON Schema processors.
    const MARKS = ['Server does not support', 'cannot be represented in JSON Schema'];
    for (const name of ['handoff.cjs', 'handoff-hot.cjs', 'handoff-stop.cjs']) {
      for (const mark of MARKS) expect(text(name), `${name}: ${mark}`).not.toContain(mark);
    }
    for (const mark of MARKS) expect(text('handoff-mcp.cjs'), mark).toContain(mark);
  });
});
