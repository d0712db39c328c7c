/**
 * The in-process core: the shipped bundle's `execute(argv, io)` runs a verb on the io it is given (env, cwd, stdin,
 * writers, terminals) and leaves the process as it found it: process.env, the cwd and process.exitCode untouched.
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { BIN, tempHome } from '../helpers/cli.js';

interface Result {
  exit: number;
  stdout: string;
  stderr: string;
}
type Execute = (
  argv: string[],
  io: { env: NodeJS.ProcessEnv; cwd: string; stdin?: string; tty?: number[]; script: string; startedAt?: number },
) => Promise<Result>;

const { loadBundle, BUNDLE } = createRequire(import.meta.url)(BIN) as {
  loadBundle: (cache: boolean, file: string) => { exports: { execute: Execute } };
  BUNDLE: string;
};
const { execute } = loadBundle(true, BUNDLE).exports;
const D = 'a0123456789abcdef.0123456789ab';

describe('execute(argv, io)', () => {
  it('runs verbs on the given env, cwd and stdin; the process env, cwd and exit code stay as they were', async () => {
    const home = tempHome();
    const work = join(home, 'work');
    mkdirSync(work);
    writeFileSync(join(work, 'patch.json'), '{"report_prose":"from a relative file"}');
    const envBefore = { ...process.env };
    const cwdBefore = process.cwd();
    const exitBefore = process.exitCode;
    const io = {
      env: { PATH: process.env.PATH, HANDOFF_HOME: 'data', HANDOFF_WORKSPACE: 'ws' },
      cwd: work,
      script: BIN,
    };

    const init = await execute(['contract', 'init', '--draft-id', D, '--json'], io);
    expect([init.exit, JSON.parse(init.stdout).draft_id]).toEqual([0, D]);
    // A relative --json-file and a relative HANDOFF_HOME both resolve against io.cwd, never the process's.
    const fill = await execute(['contract', 'fill', '--draft-id', D, '--json-file', 'patch.json'], io);
    expect(fill.exit, fill.stderr).toBe(0);
    const viaStdin = await execute(['contract', 'fill', '--draft-id', D, '--json-file', '-'], {
      ...io,
      stdin: '{"memory_delta":{"learned":["x"]}}',
    });
    expect(viaStdin.exit, viaStdin.stdout + viaStdin.stderr).not.toBe(2);
    const view = await execute(['contract', 'view', 'report_prose', '--draft-id', D, '--json'], io);
    expect(JSON.parse(view.stdout).value).toBe('from a relative file');
    const bad = await execute(['contract', 'set', 'no_such_field', 'x', '--draft-id', D], io);
    expect(bad.exit).toBe(1);
    expect(bad.stderr).toMatch(/UNKNOWN_FIELD \[no_such_field\]/);

    expect(process.env).toEqual(envBefore);
    expect(process.cwd()).toBe(cwdBefore);
    expect(process.exitCode).toBe(exitBefore);
  });

  it('help and --version are written to io, not to the process', async () => {
    const io = { env: { NO_COLOR: '1' }, cwd: tempHome(), script: BIN };
    const help = await execute(['help', 'contract'], io);
    expect(help.exit).toBe(0);
    expect(help.stdout).toMatch(/contract set/);
    const version = await execute(['--version'], io);
    expect(version.stdout).toMatch(/^handoff\/\d/);
  });

  it('the CLI as people expect: `version` is --version; a topic alone prints its help, exit 0', async () => {
    const home = tempHome();
    const io = { env: { HANDOFF_HOME: home }, cwd: home, script: BIN };
    const flag = await execute(['--version'], io);
    const verb = await execute(['version'], io);
    expect(verb).toEqual(flag);
    expect(verb.exit).toBe(0);
    const topic = await execute(['contract'], io);
    expect(topic.exit, topic.stderr).toBe(0);
    expect(topic.stdout).toBe((await execute(['help', 'contract'], io)).stdout);
    expect(topic.stdout).toMatch(/contract wait/);
    // A word that is neither is still USAGE, exit 2.
    expect((await execute(['contrct'], io)).exit).toBe(2);
    expect((await execute(['version', 'x'], io)).exit).toBe(2);
  });

  it('colour follows io: a terminal on stderr colours the rejection, none leaves it plain', async () => {
    const home = tempHome();
    const io = { env: { HANDOFF_HOME: home }, cwd: home, script: BIN };
    const plain = await execute(['contract', 'view', '--draft-id', D], io);
    expect(plain.stderr).not.toContain('\u001b[');
    const onTty = await execute(['contract', 'view', '--draft-id', D], {
      ...io,
      env: { ...io.env, FORCE_COLOR: '1' },
      tty: [2],
    });
    expect(onTty.exit).toBe(plain.exit);
    expect(onTty.stderr).toContain('\u001b[');
  });

  it('hooks install writes the script io names (user scope: a project file names handoff through the PATH)', async () => {
    const home = tempHome();
    const project = join(home, 'project');
    mkdirSync(project);
    const r = await execute(['hooks', 'install', '--harness', 'claude', '--scope', 'user', '--dry-run', '--json'], {
      env: { HOME: home, HANDOFF_HOME: home },
      cwd: project,
      script: BIN,
    });
    expect(r.exit, r.stdout + r.stderr).toBe(0);
    expect(r.stdout).toContain(join('bin', 'run.js'));
  });

  it("the stop gate runs in-process: its budget counts from the call's start (io.startedAt), not the process's", async () => {
    const home = tempHome();
    const io = { env: { PATH: process.env.PATH, HANDOFF_HOME: home, HANDOFF_WORKSPACE: 'ws' }, cwd: home, script: BIN };
    const d = await execute(['contract', 'dispatch', '--goal', 'g', '--json'], io);
    const id = JSON.parse(d.stdout).contract_id as string;
    const hook = JSON.stringify({ hook_event_name: 'Stop', session_id: 's1', stop_reason: 'end_turn' });
    // A call made now judges the stop (its draft is not finalized: a block), though this process is older than the
    // budget: counted from the process's start, the 2 s would be spent before the call began.
    const age = performance.now();
    if (age < 3000) await new Promise((done) => setTimeout(done, 3000 - age));
    const now = await execute(['contract', 'gate', '--draft-id', id, '--timeout', '2s'], { ...io, stdin: hook });
    expect(now.exit, now.stderr).toBe(2);
    expect(now.stderr).toMatch(/ROW_NOT_FINALIZED/);
    // A call that started a minute ago has spent its 2 s: the budget's answer at once (fails open), the process
    // left running.
    const late = await execute(['contract', 'gate', '--draft-id', id, '--timeout', '2s'], {
      ...io,
      stdin: hook,
      startedAt: performance.now() - 60_000,
    });
    expect([late.exit, late.stdout]).toEqual([1, '']);
    expect(late.stderr).toMatch(/budget of 2 s ran out before the turn's contract was found.*Stop not gated\./);
  });
});
