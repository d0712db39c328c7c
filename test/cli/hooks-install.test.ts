/**
 * `handoff hooks install|uninstall|status`: the gate merged into each harness's config file (other hooks, keys and
 * order kept), idempotent, reversible, absolute paths, nothing secret in a project file, --dry-run, invalid JSON
 * refused, and the installed commands run as the harness would run them.
 */
import { spawnSync } from 'node:child_process';
import {
  cpSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  statSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { BIN, REPO, run, tempHome } from '../helpers/cli.js';
import { dispatchJson } from '../helpers/gate.js';

interface Setup {
  project: string;
  home: string;
  data: string;
  env: Record<string, string>;
}

function setup(): Setup {
  const base = mkdtempSync(join(tmpdir(), 'hooks-'));
  const project = join(base, 'project');
  const home = join(base, 'home');
  mkdirSync(join(project, '.git'), { recursive: true });
  mkdirSync(home);
  const data = tempHome();
  return {
    project,
    home,
    data,
    env: { HOME: home, CODEX_HOME: join(home, '.codex'), XDG_CONFIG_HOME: join(home, '.config') },
  };
}

const hooks = (s: Setup, args: string[], extraEnv: Record<string, string> = {}) =>
  run(s.data, ['hooks', ...args], { cwd: s.project, env: { ...s.env, ...extraEnv } });

const readJson = (path: string): any => JSON.parse(readFileSync(path, 'utf8'));

/** Runs a hook command through /bin/sh with the input on stdin, as the harnesses do. */
function runHook(command: string, input: object, s: Setup): { code: number; stdout: string; stderr: string } {
  const env: NodeJS.ProcessEnv = { ...process.env, ...s.env, HANDOFF_HOME: s.data };
  delete env.HANDOFF_DB;
  delete env.HANDOFF_STORE_URL;
  const r = spawnSync('/bin/sh', ['-c', command], {
    input: JSON.stringify(input),
    env,
    cwd: s.project,
    encoding: 'utf8',
  });
  return { code: r.status ?? -1, stdout: r.stdout, stderr: r.stderr };
}

describe('hooks install --harness claude', () => {
  it('merges into an existing settings.json keeping its keys, hooks and order; a second install changes no byte; uninstall restores it', () => {
    const s = setup();
    const path = join(s.project, '.claude', 'settings.json');
    mkdirSync(join(s.project, '.claude'));
    const original = {
      permissions: { allow: ['Bash(npm test)'] },
      hooks: {
        PreToolUse: [{ matcher: 'Bash', hooks: [{ type: 'command', command: './guard.sh' }] }],
        Stop: [{ hooks: [{ type: 'command', command: 'notify-send done' }] }],
      },
      model: 'opus',
    };
    const originalText = `${JSON.stringify(original, null, 2)}\n`;
    writeFileSync(path, originalText);

    const first = hooks(s, ['install', '--harness', 'claude', '--json']);
    expect(first.code, first.stderr).toBe(0);
    expect(first.json).toMatchObject({ status: 'ok', harness: 'claude', scope: 'project', path, action: 'updated' });
    const after = readJson(path);
    expect(Object.keys(after)).toEqual(['permissions', 'hooks', 'model']);
    expect(Object.keys(after.hooks)).toEqual(['PreToolUse', 'Stop', 'SubagentStop']);
    expect(after.hooks.PreToolUse).toEqual(original.hooks.PreToolUse);
    expect(after.hooks.Stop[0]).toEqual(original.hooks.Stop[0]);
    const gateStop = after.hooks.Stop[1].hooks[0];
    expect(gateStop).toEqual({
      type: 'command',
      command: expect.stringMatching(/ contract gate --harness claude --on-missing allow$/),
      timeout: 30,
    });
    expect(after.hooks.SubagentStop).toEqual([
      {
        matcher: 'implementer|verifier|investigator',
        hooks: [{ type: 'command', command: expect.stringMatching(/ contract gate --harness claude$/), timeout: 30 }],
      },
    ]);
    // A project file names handoff through the PATH only.
    expect(gateStop.command).toBe('handoff contract gate --harness claude --on-missing allow');

    const bytes = readFileSync(path);
    const mtime = statSync(path).mtimeMs;
    const second = hooks(s, ['install', '--harness', 'claude', '--json']);
    expect(second.json.action).toBe('unchanged');
    expect(readFileSync(path)).toEqual(bytes);
    expect(statSync(path).mtimeMs).toBe(mtime);

    expect(hooks(s, ['uninstall', '--harness', 'claude', '--json']).json.action).toBe('updated');
    expect(readFileSync(path, 'utf8')).toBe(originalText);
  });

  it('a matcher its owner edited is kept by a later install, and replaced only by --matcher', () => {
    const s = setup();
    const path = join(s.project, '.claude', 'settings.json');
    expect(hooks(s, ['install', '--harness', 'claude']).code).toBe(0);
    const edited = readJson(path);
    edited.hooks.SubagentStop[0].matcher = 'coder|reviewer';
    writeFileSync(path, `${JSON.stringify(edited, null, 2)}\n`);
    expect(hooks(s, ['install', '--harness', 'claude', '--json']).json.action).toBe('unchanged');
    expect(readJson(path).hooks.SubagentStop[0].matcher).toBe('coder|reviewer');
    expect(hooks(s, ['install', '--harness', 'claude', '--matcher', 'planner', '--json']).json.action).toBe('updated');
    expect(readJson(path).hooks.SubagentStop[0].matcher).toBe('planner');
  });

  it('the installed commands gate for real: a dispatched subagent is blocked (2), an interactive session stops (0)', () => {
    const s = setup();
    expect(hooks(s, ['install', '--harness', 'claude']).code).toBe(0);
    const settings = readJson(join(s.project, '.claude', 'settings.json'));
    const sub = settings.hooks.SubagentStop[0].hooks[0].command as string;
    const stop = settings.hooks.Stop[0].hooks[0].command as string;
    const d = dispatchJson(s.data, ['--goal', 'g', '--harness-id', 'agent-1']);
    const blocked = runHook(
      sub,
      {
        hook_event_name: 'SubagentStop',
        session_id: 's',
        agent_id: 'agent-1',
        agent_type: 'implementer',
        stop_hook_active: false,
      },
      s,
    );
    expect(blocked.code).toBe(2);
    expect(blocked.stderr).toContain(d.contract_id);
    expect(runHook(stop, { hook_event_name: 'Stop', session_id: 'interactive', stop_hook_active: false }, s)).toEqual({
      code: 0,
      stdout: '',
      stderr: '',
    });
  });

  it('--dry-run prints the diff and writes nothing; --strict adds --on-store-error block', () => {
    const s = setup();
    const r = hooks(s, ['install', '--harness', 'claude', '--strict', '--dry-run']);
    expect(r.code).toBe(0);
    expect(r.stdout).toMatch(/^--- \/dev\/null\n\+\+\+ b\/\.claude\/settings\.json\n@@ -0,0 \+1,\d+ @@\n\+\{\n/);
    expect(r.stdout).toContain('--on-store-error block --on-missing block');
    expect(r.stdout).toContain('--on-missing allow --on-store-error block');
    expect(existsSync(join(s.project, '.claude'))).toBe(false);
  });

  it('a config that is not valid JSON, or has comments, is refused with its path and nothing is written', () => {
    const s = setup();
    mkdirSync(join(s.project, '.claude'));
    const path = join(s.project, '.claude', 'settings.json');
    for (const text of ['{"hooks": {', '{\n  // my hooks\n  "hooks": {}\n}\n']) {
      writeFileSync(path, text);
      const r = hooks(s, ['install', '--harness', 'claude', '--json']);
      expect([r.code, r.json.code]).toEqual([2, 'HOOK_CONFIG_INVALID']);
      expect(r.json.error).toContain(path);
      expect(readFileSync(path, 'utf8')).toBe(text);
    }
  });

  it('a project file names handoff through the PATH only and carries no data root or store URL; a user file names absolute paths', () => {
    const s = setup();
    const env = { HOME: join(REPO, '..'), HANDOFF_STORE_URL: 'postgres://handoff:s3cret@db:5432/h' };
    const r = hooks(s, ['install', '--harness', 'codex', '--json'], env);
    expect(r.code, r.stderr).toBe(0);
    const text = readFileSync(join(s.project, '.codex', 'hooks.json'), 'utf8');
    expect(r.json.commands).toEqual(['handoff contract gate --harness codex --on-missing allow']);
    expect(text).not.toMatch(/run\.js|node_modules|\$HOME|"\//);
    expect(text).not.toContain(process.execPath);
    expect(text).not.toMatch(/s3cret|HANDOFF_HOME|HANDOFF_STORE_URL/);
    // A user-scope file may name the absolute path (the strict recipe).
    const user = hooks(s, ['install', '--harness', 'codex', '--scope', 'user', '--json'], {
      HOME: join(REPO, '..'),
      CODEX_HOME: join(s.home, '.codex'),
    });
    expect(user.json.path).toBe(join(s.home, '.codex', 'hooks.json'));
    expect(readFileSync(user.json.path, 'utf8')).toContain(BIN);
  });

  it('hooks status exits 1 when the handoff a project hook would run resolves inside the workspace, or nowhere, and says why', () => {
    const s = setup();
    expect(hooks(s, ['install', '--harness', 'claude']).code).toBe(0);
    // handoff on the PATH outside the workspace (the tests' shim): it will run.
    const good = hooks(s, ['status', '--harness', 'claude', '--json']);
    expect(good.code, good.stdout).toBe(0);
    expect(good.json.hooks[0]).toMatchObject({ scope: 'project', installed: true, will_run: true });
    // The workspace's own node_modules/.bin first on the PATH: an agent working there could replace it.
    const local = join(s.project, 'node_modules', '.bin');
    mkdirSync(local, { recursive: true });
    writeFileSync(join(local, 'handoff'), `#!/bin/sh\nexec "${process.execPath}" "${BIN}" "$@"\n`, { mode: 0o755 });
    const inside = hooks(s, ['status', '--harness', 'claude'], { PATH: `${local}:${process.env.PATH ?? ''}` });
    expect(inside.code).toBe(1);
    expect(inside.stdout).toContain(
      `claude will NOT run it: the hook runs ${join(local, 'handoff')}, inside the workspace`,
    );
    // No handoff on the PATH at all.
    const none = hooks(s, ['status', '--harness', 'claude', '--json'], { PATH: '/usr/bin:/bin' });
    expect(none.code).toBe(1);
    expect(none.json.hooks[0].why_not).toContain('handoff is not on the PATH');
    expect(none.json.hooks[0].commands[0].resolves).toBe(false);
  });
});

describe('hooks install, per harness', () => {
  it('codex, gemini, copilot and cursor: each harness’s file and shape, and the installed command answers in its form', () => {
    const s = setup();
    for (const h of ['codex', 'gemini', 'copilot', 'cursor'])
      expect(hooks(s, ['install', '--harness', h]).code).toBe(0);
    const codex = readJson(join(s.project, '.codex', 'hooks.json'));
    expect(codex.hooks.Stop[0].hooks[0]).toMatchObject({
      type: 'command',
      timeout: 30,
      command: expect.stringMatching(/contract gate --harness codex --on-missing allow$/),
    });
    const gemini = readJson(join(s.project, '.gemini', 'settings.json'));
    expect(gemini.hooks.AfterAgent[0].hooks[0]).toMatchObject({
      type: 'command',
      timeout: 30000,
      command: expect.stringMatching(/contract gate --harness gemini --on-missing allow$/),
    });
    const copilot = readJson(join(s.project, '.github', 'hooks', 'handoff.json'));
    expect(copilot).toEqual({
      version: 1,
      hooks: {
        agentStop: [
          {
            type: 'command',
            bash: expect.stringMatching(/contract gate --harness copilot --on-missing allow$/),
            timeoutSec: 30,
          },
        ],
      },
    });
    const cursor = readJson(join(s.project, '.cursor', 'hooks.json'));
    expect(cursor).toEqual({
      version: 1,
      hooks: { stop: [{ command: expect.stringMatching(/contract gate --harness cursor --on-missing allow$/) }] },
    });

    dispatchJson(s.data, ['--goal', 'g', '--harness-id', 'g-1']);
    const g = runHook(
      gemini.hooks.AfterAgent[0].hooks[0].command,
      { hook_event_name: 'AfterAgent', session_id: 'g-1', prompt: 'x', stop_hook_active: false },
      s,
    );
    expect(g.code).toBe(0);
    expect(JSON.parse(g.stdout).decision).toBe('block');
    expect(
      runHook(
        copilot.hooks.agentStop[0].bash,
        { sessionId: 'other', stopReason: 'end_turn', stop_hook_active: false },
        s,
      ),
    ).toMatchObject({ code: 0, stdout: '' });

    for (const h of ['codex', 'gemini', 'copilot', 'cursor'])
      expect(hooks(s, ['uninstall', '--harness', h, '--json']).json.action).toBe('removed');
    for (const dir of ['.codex', '.gemini', '.github', '.cursor']) expect(existsSync(join(s.project, dir))).toBe(false);
  });

  it('opencode: the plugin the package ships, ESM: a project one runs handoff through the PATH, a user one names node and the library; uninstall removes it', () => {
    const s = setup();
    const r = hooks(s, ['install', '--harness', 'opencode', '--json']);
    expect(r.code, r.stderr).toBe(0);
    const path = join(s.project, '.opencode', 'plugin', 'handoff-gate.js');
    expect(r.json.path).toBe(path);
    const text = readFileSync(path, 'utf8');
    expect(text).toContain("const HANDOFF = { command: 'handoff' };");
    expect(text).not.toContain(process.execPath);
    expect(text).toMatch(/^export const HandoffGate = async/m);
    expect(spawnSync(process.execPath, ['--check', path]).status).toBe(0);
    const st = hooks(s, ['status', '--harness', 'opencode', '--json']);
    expect(st.json.hooks[0]).toMatchObject({ scope: 'project', installed: true, will_run: true });
    expect(st.json.hooks[0].commands).toEqual([
      { event: 'session.idle', command: 'handoff contract gate --harness opencode', resolves: true },
    ]);
    expect(hooks(s, ['install', '--harness', 'opencode', '--json']).json.action).toBe('unchanged');
    expect(hooks(s, ['uninstall', '--harness', 'opencode', '--json']).json.action).toBe('removed');
    expect(existsSync(join(s.project, '.opencode'))).toBe(false);
    // At user scope: node and the library by absolute path.
    const user = hooks(s, ['install', '--harness', 'opencode', '--scope', 'user', '--json']);
    expect(readFileSync(user.json.path, 'utf8')).toContain(
      `const HANDOFF = { node: ${JSON.stringify(process.execPath)}, library: ${JSON.stringify(join(REPO, 'dist', 'index.js'))} };`,
    );
  });

  it('opencode: leaves nothing for OpenCode to download at start (node_modules and a lock naming its plugin package), and a folder the user manages alone', () => {
    const s = setup();
    const dir = join(s.project, '.opencode');
    expect(hooks(s, ['install', '--harness', 'opencode', '--json']).code).toBe(0);
    // OpenCode installs @opencode-ai/plugin into a config folder unless node_modules exists and the lock's root
    // lists it (checked in OpenCode 1.18.33: no registry request at start once both are there).
    expect(readdirSync(join(dir, 'node_modules'))).toEqual([]);
    expect(JSON.parse(readFileSync(join(dir, 'package-lock.json'), 'utf8')).packages['']).toEqual({
      dependencies: { '@opencode-ai/plugin': '*' },
    });
    // The same in OpenCode's own config folder, which it makes at first start and installs into (with a plugin to
    // load it waits for that install: 68 s offline in OpenCode 1.18.33).
    const global = join(s.home, '.config', 'opencode');
    expect(readdirSync(global).sort()).toEqual(['node_modules', 'package-lock.json']);
    // OpenCode writes a .gitignore of its own there; uninstall leaves it and removes what install wrote.
    writeFileSync(join(dir, '.gitignore'), 'node_modules\n');
    expect(hooks(s, ['uninstall', '--harness', 'opencode', '--json']).json.action).toBe('removed');
    expect(readdirSync(dir)).toEqual(['.gitignore']);

    // A folder with a package.json of the user's: OpenCode manages it, install adds the plugin only.
    const t = setup();
    mkdirSync(join(t.project, '.opencode'));
    writeFileSync(join(t.project, '.opencode', 'package.json'), '{"dependencies":{"left-pad":"1.3.0"}}\n');
    expect(hooks(t, ['install', '--harness', 'opencode', '--json']).code).toBe(0);
    expect(readdirSync(join(t.project, '.opencode')).sort()).toEqual(['package.json', 'plugin']);
  });

  it('copilot has no user scope (USAGE); an unknown harness is USAGE', () => {
    const s = setup();
    expect(hooks(s, ['install', '--harness', 'copilot', '--scope', 'user', '--json']).json.code).toBe('USAGE');
    expect(hooks(s, ['install', '--harness', 'vim', '--json']).json.code).toBe('USAGE');
  });
});

describe('hooks status', () => {
  it('shows what is wired where, whether it resolves, the data root, and an untrusted Codex project', () => {
    const s = setup();
    expect(hooks(s, ['install', '--harness', 'codex']).code).toBe(0);
    mkdirSync(join(s.home, '.codex'), { recursive: true });
    writeFileSync(
      join(s.home, '.codex', 'config.toml'),
      'model = "gpt-5"\n[projects."/elsewhere"]\ntrust_level = "trusted"\n',
    );
    const r = hooks(s, ['status', '--harness', 'codex', '--json']);
    // Installed where Codex will not run it (the project is not trusted): exit 1.
    expect(r.code, r.stderr).toBe(1);
    expect(r.json).toMatchObject({
      status: 'ok',
      data_root: s.data,
      data_root_exists: true,
      store: { kind: 'sqlite', exists: false },
    });
    const project = r.json.hooks.find((h: any) => h.scope === 'project');
    expect(project).toMatchObject({
      harness: 'codex',
      installed: true,
      codex_project_trusted: false,
      path: join(s.project, '.codex', 'hooks.json'),
    });
    expect(project.commands).toEqual([{ event: 'Stop', command: expect.any(String), resolves: true }]);
    expect(project).toMatchObject({ will_run: false, why_not: expect.stringContaining('project is not trusted') });
    expect(hooks(s, ['status', '--harness', 'codex']).stdout).toContain('not trusted by Codex');

    writeFileSync(
      join(s.home, '.codex', 'config.toml'),
      `[projects.${JSON.stringify(s.project)}]\ntrust_level = "trusted"\n`,
    );
    expect(hooks(s, ['status', '--harness', 'codex', '--json']).json.hooks[0].codex_project_trusted).toBe(true);
  });
});

describe('HOOK_PATH_UNSTABLE', () => {
  it('refuses to write a hook that points into the npx cache', () => {
    const s = setup();
    const npx = join(mkdtempSync(join(tmpdir(), 'npm-')), '_npx', 'a1b2c3', 'node_modules', 'handoff');
    mkdirSync(npx, { recursive: true });
    for (const f of ['bin', 'dist', 'package.json', 'oclif.manifest.json'])
      cpSync(join(REPO, f), join(npx, f), { recursive: true });
    symlinkSync(join(REPO, 'node_modules'), join(npx, 'node_modules'));
    const env: NodeJS.ProcessEnv = { ...process.env, ...s.env, HANDOFF_HOME: s.data };
    const r = spawnSync(
      process.execPath,
      [join(npx, 'bin', 'run.js'), 'hooks', 'install', '--harness', 'claude', '--scope', 'user', '--json'],
      { cwd: s.project, env, encoding: 'utf8' },
    );
    expect(r.status).toBe(2);
    expect(JSON.parse(r.stdout)).toMatchObject({ code: 'HOOK_PATH_UNSTABLE' });
    expect(existsSync(join(s.home, '.claude'))).toBe(false);
  });
});
