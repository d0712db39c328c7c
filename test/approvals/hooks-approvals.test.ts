/** `hooks install --approvals`: the pre-tool approval gate wired beside the stop gate, shown by status, taken out by uninstall. */
import { existsSync, mkdirSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { run, tempHome } from '../helpers/cli.js';

function setup() {
  const base = mkdtempSync(join(tmpdir(), 'hooks-approvals-'));
  const project = join(base, 'project');
  const home = join(base, 'home');
  mkdirSync(join(project, '.git'), { recursive: true });
  mkdirSync(home);
  return { project, data: tempHome(), env: { HOME: home, CODEX_HOME: join(home, '.codex') } };
}
type S = ReturnType<typeof setup>;
const hooks = (s: S, args: string[]) => run(s.data, ['hooks', ...args], { cwd: s.project, env: s.env });
const readJson = (path: string): any => JSON.parse(readFileSync(path, 'utf8'));

const FILES: Record<string, string> = {
  claude: '.claude/settings.json',
  codex: '.codex/hooks.json',
  gemini: '.gemini/settings.json',
  copilot: '.github/hooks/handoff.json',
  cursor: '.cursor/hooks.json',
};
const PRE: Record<string, string> = {
  claude: 'PreToolUse',
  codex: 'PreToolUse',
  gemini: 'BeforeTool',
  copilot: 'preToolUse',
  cursor: 'beforeShellExecution',
};
/** Every command string in a config, grouped or flat. */
const commandsOf = (list: any[]): string[] =>
  list.flatMap((e: any) => (Array.isArray(e.hooks) ? e.hooks.map((h: any) => h.command) : [e.command ?? e.bash]));

describe('hooks install --approvals', () => {
  it.each(Object.keys(FILES))('%s: the approval gate on the pre-tool event beside the stop gate', (harness) => {
    const s = setup();
    const r = hooks(s, ['install', '--harness', harness, '--approvals', '--json']);
    expect(r.code, r.stderr).toBe(0);
    const config = readJson(join(s.project, FILES[harness]));
    const pre = commandsOf(config.hooks[PRE[harness]]);
    expect(pre).toHaveLength(1);
    expect(pre[0]).toBe(`handoff approval gate --harness ${harness}`);
    // The stop gate is still there, unchanged in kind.
    const all = Object.values(config.hooks as Record<string, any[]>).flatMap(commandsOf);
    expect(all.filter((c) => / contract gate /.test(c)).length).toBeGreaterThan(0);
    // Idempotent: a second install changes no byte.
    const bytes = readFileSync(join(s.project, FILES[harness]), 'utf8');
    expect(hooks(s, ['install', '--harness', harness, '--approvals']).code).toBe(0);
    expect(readFileSync(join(s.project, FILES[harness]), 'utf8')).toBe(bytes);
    // Status lists it on its event.
    const st = hooks(s, ['status', '--harness', harness, '--json']).json;
    const mine = st.hooks.find((h: any) => h.scope === 'project');
    expect(mine.commands.map((c: any) => c.event)).toContain(PRE[harness]);
    expect(hooks(s, ['status', '--harness', harness]).stdout).toContain(`${PRE[harness]}: `);
    // Uninstall takes both out (a file that only held them goes).
    expect(hooks(s, ['uninstall', '--harness', harness]).code).toBe(0);
    expect(existsSync(join(s.project, FILES[harness]))).toBe(false);
  });

  it('without --approvals no pre-tool hook is written; OpenCode has none to wire', () => {
    const s = setup();
    expect(hooks(s, ['install', '--harness', 'claude']).code).toBe(0);
    expect(readJson(join(s.project, FILES.claude)).hooks.PreToolUse).toBeUndefined();
    const oc = hooks(s, ['install', '--harness', 'opencode', '--approvals', '--dry-run', '--json']);
    expect(oc.code, oc.stderr).toBe(0);
    expect(oc.json.commands.join('\n')).not.toContain('approval gate');
  });

  it("keeps the user's own pre-tool hooks", () => {
    const s = setup();
    const path = join(s.project, FILES.claude);
    mkdirSync(join(s.project, '.claude'));
    const own = { matcher: 'Bash', hooks: [{ type: 'command', command: 'echo mine' }] };
    writeFileSync(path, JSON.stringify({ hooks: { PreToolUse: [own] } }, null, 2));
    expect(hooks(s, ['install', '--harness', 'claude', '--approvals']).code).toBe(0);
    expect(readJson(path).hooks.PreToolUse[0]).toEqual(own);
    expect(readJson(path).hooks.PreToolUse).toHaveLength(2);
    expect(hooks(s, ['uninstall', '--harness', 'claude']).code).toBe(0);
    expect(readJson(path).hooks).toEqual({ PreToolUse: [own] });
  });
});

describe('docs/hooks.md', () => {
  it('documents the pre-tool gate per harness and that it is a guard at L1', () => {
    const doc = readFileSync(join(import.meta.dirname, '..', '..', 'docs', 'hooks.md'), 'utf8');
    const section = doc.slice(doc.indexOf('## Approvals at the moment of action'));
    for (const word of [
      'hooks install --harness claude --approvals',
      ...Object.values(PRE),
      'handoff approval wait',
      'A guard at L1',
      'sh -c',
      'HANDOFF_APPROVAL_PATTERNS',
    ])
      expect(section).toContain(word);
  });
});
