/**
 * better-sqlite3's JavaScript runs from the CLI bundle (in its V8 code cache, nothing resolved or compiled from
 * node_modules at run time); only its native addon is required from node_modules, by path.
 */
import { spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { BIN, RECORDER, baseEnv, tempHome } from '../helpers/cli.js';
import { dispatchJson } from '../helpers/gate.js';

/** The files Node's module loader held at the end of `handoff ...args` (test/fixtures/record-modules.cjs). */
function modulesOf(home: string, args: string[]): { code: number | null; modules: string[] } {
  const file = join(home, `modules-${args[1]}.txt`);
  const r = spawnSync(process.execPath, ['--require', RECORDER, BIN, ...args], {
    env: baseEnv(home, { RECORD_MODULES_FILE: file }),
    cwd: home,
    input: '',
    encoding: 'utf8',
  });
  return {
    code: r.status,
    modules: readFileSync(file, 'utf8')
      .split('\n')
      .filter((l) => l !== ''),
  };
}

describe('better-sqlite3 inside the bundle', () => {
  it('a dispatched write and finalize load its addon from node_modules and none of its .js files', () => {
    const home = tempHome();
    const id = dispatchJson(home, ['--goal', 'g']).contract_id as string;
    const calls = [
      ['contract', 'set', 'work_phase', 'executing', '--draft-id', id],
      ['contract', 'fill', '--draft-id', id, '--json', '{"agent_status":{"agent_state":"BLOCKED"}}'],
      ['contract', 'finalize', '--draft-id', id],
    ];
    for (const args of calls) {
      const { code, modules } = modulesOf(home, args);
      expect(code, args.join(' ')).toBe(0);
      const sqlite = modules.filter((m) => m.includes(`${join('node_modules', 'better-sqlite3')}`));
      expect(sqlite, args.join(' ')).toEqual([expect.stringMatching(/better_sqlite3\.node$/)]);
    }
  });
});
