/**
 * Users' files as they were: install then uninstall gives back every file the user did not touch meanwhile, byte for
 * byte (compact JSON, key order, tabs, a missing final newline, Gemini's empty "hooks": {}); files install created are
 * removed with the folders it made; a file the user changed meanwhile loses only handoff's entries. --dry-run's diff
 * is a unified diff that `git apply` accepts and that gives the same bytes as the real command.
 */
import { spawnSync } from 'node:child_process';
import { cpSync, existsSync, mkdirSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { run, tempHome } from '../helpers/cli.js';

function setup() {
  const base = mkdtempSync(join(tmpdir(), 'hooks-restore-'));
  const project = join(base, 'project');
  const home = join(base, 'home');
  mkdirSync(project);
  mkdirSync(home);
  const git = (args: string[], cwd = project) => {
    const r = spawnSync('git', args, { cwd, encoding: 'utf8', env: { ...process.env, HOME: home } });
    expect(r.status, r.stderr).toBe(0);
    return r.stdout;
  };
  git(['init', '-q']);
  const data = tempHome();
  const env = { HOME: home, CODEX_HOME: join(home, '.codex'), XDG_CONFIG_HOME: join(home, '.config') };
  const hooks = (args: string[], cwd = project) => {
    const r = run(data, ['hooks', ...args], { cwd, env });
    expect(r.code, r.stdout + r.stderr).toBe(0);
    return r;
  };
  const write = (rel: string, text: string, root = project) => {
    mkdirSync(dirname(join(root, rel)), { recursive: true });
    writeFileSync(join(root, rel), text);
  };
  return { base, project, home, git, hooks, write };
}

/** The user's originals, one per harness, each in a form a re-serialisation would change. */
const ORIGINALS: { harness: string; rel: string; text: string | undefined }[] = [
  { harness: 'claude', rel: '.claude/settings.json', text: '{"permissions":{"allow":["Bash(ls)"]},"model":"opus"}' },
  { harness: 'gemini', rel: '.gemini/settings.json', text: '{"theme":"Default","hooks":{}}\n' },
  {
    harness: 'cursor',
    rel: '.cursor/hooks.json',
    text: '{\n\t"version": 1,\n\t"hooks": {\n\t\t"afterFileEdit": [ { "command": "./fmt.sh" } ]\n\t}\n}\n',
  },
  { harness: 'copilot', rel: '.github/hooks/handoff.json', text: undefined },
  { harness: 'codex', rel: '.codex/hooks.json', text: undefined },
  {
    harness: 'qwen',
    rel: '.qwen/settings.json',
    text: '{\n    "model": { "name": "qwen3-coder" },\n    "hooks": {}\n}',
  },
];

describe('install then uninstall gives the user their files back', () => {
  for (const o of ORIGINALS)
    it(`${o.harness}: ${o.text === undefined ? 'a file install created is removed, with its folders' : 'byte for byte'}`, () => {
      const s = setup();
      if (o.text !== undefined) s.write(o.rel, o.text);
      const path = join(s.project, o.rel);
      const trust = o.harness === 'codex' ? ['--no-trust'] : [];
      expect(s.hooks(['install', '--harness', o.harness, ...trust, '--json']).json.action).toBe(
        o.text === undefined ? 'created' : 'updated',
      );
      const installed = readFileSync(path, 'utf8');
      expect(installed).toContain('contract gate');
      // Compact JSON stays compact.
      if (o.harness === 'claude') expect(installed).not.toContain('\n');
      expect(s.hooks(['uninstall', '--harness', o.harness, '--json']).json.action).toBe(
        o.text === undefined ? 'removed' : 'updated',
      );
      if (o.text === undefined) {
        expect(existsSync(path)).toBe(false);
        expect(existsSync(join(s.project, o.rel.split('/')[0]))).toBe(false);
      } else expect(readFileSync(path, 'utf8')).toBe(o.text);
      // The record of what install changed is gone with it.
      expect(existsSync(join(s.home, '.local', 'state', 'handoff', 'hooks-installed.json'))).toBe(false);
    });

  it('two installs (the second changing the hooks) and one uninstall still give back the first original', () => {
    const s = setup();
    const text = '{"theme":"Default","hooks":{}}';
    s.write('.gemini/settings.json', text);
    s.hooks(['install', '--harness', 'gemini']);
    s.hooks(['install', '--harness', 'gemini', '--strict']);
    s.hooks(['uninstall', '--harness', 'gemini']);
    expect(readFileSync(join(s.project, '.gemini/settings.json'), 'utf8')).toBe(text);
  });

  it('a file the user changed meanwhile: only handoff’s entries come out, the user’s stay', () => {
    const s = setup();
    const path = join(s.project, '.gemini/settings.json');
    s.write('.gemini/settings.json', '{"theme":"Default","hooks":{}}\n');
    s.hooks(['install', '--harness', 'gemini']);
    const edited = JSON.parse(readFileSync(path, 'utf8'));
    edited.model = 'flash';
    edited.hooks.BeforeModel = [{ hooks: [{ type: 'command', command: './mine.sh' }] }];
    writeFileSync(path, JSON.stringify(edited));
    s.hooks(['uninstall', '--harness', 'gemini']);
    expect(JSON.parse(readFileSync(path, 'utf8'))).toEqual({
      theme: 'Default',
      hooks: { BeforeModel: [{ hooks: [{ type: 'command', command: './mine.sh' }] }] },
      model: 'flash',
    });
  });
});

describe('--dry-run prints a diff git apply accepts', () => {
  for (const o of ORIGINALS.filter((x) => x.harness !== 'codex'))
    it(`${o.harness}: install's and uninstall's diffs, applied, give the real command's bytes`, () => {
      const s = setup();
      if (o.text !== undefined) s.write(o.rel, o.text);
      // A twin project where the real commands run.
      const twin = join(s.base, 'twin');
      cpSync(s.project, twin, { recursive: true });

      const dry = s.hooks(['install', '--harness', o.harness, '--dry-run']).stdout;
      expect(dry).toMatch(
        new RegExp(`^--- ${o.text === undefined ? '/dev/null' : `a/${o.rel}`}\\n\\+\\+\\+ b/${o.rel}\\n@@ -`),
      );
      writeFileSync(join(s.base, 'install.patch'), dry);
      s.git(['apply', join(s.base, 'install.patch')]);
      s.hooks(['install', '--harness', o.harness], twin);
      expect(readFileSync(join(s.project, o.rel), 'utf8')).toBe(readFileSync(join(twin, o.rel), 'utf8'));

      const undo = s.hooks(['uninstall', '--harness', o.harness, '--dry-run'], twin).stdout;
      expect(undo).toMatch(/\n@@ -\d+,\d+ \+\d+,\d+ @@\n/);
      writeFileSync(join(s.base, 'uninstall.patch'), undo);
      s.git(['apply', join(s.base, 'uninstall.patch')]);
      s.hooks(['uninstall', '--harness', o.harness], twin);
      if (o.text === undefined) expect(existsSync(join(twin, o.rel))).toBe(false);
      else expect(readFileSync(join(twin, o.rel), 'utf8')).toBe(o.text);
      expect(existsSync(join(s.project, o.rel))).toBe(o.text !== undefined);
      if (o.text !== undefined) expect(readFileSync(join(s.project, o.rel), 'utf8')).toBe(o.text);
    });

  it('a long file: the diff holds only the changed lines and three lines of context around each', () => {
    const s = setup();
    const settings: Record<string, unknown> = {};
    for (let i = 0; i < 40; i++) settings[`key${i}`] = i;
    const text = `${JSON.stringify(settings, null, 2)}\n`;
    s.write('.claude/settings.json', text);
    const dry = s.hooks(['install', '--harness', 'claude', '--dry-run']).stdout;
    const body = dry.split('\n').slice(2);
    expect(body[0]).toMatch(/^@@ -38,5 \+38,\d+ @@$/);
    expect(body.filter((l) => l.startsWith(' '))).toEqual([
      '   "key36": 36,',
      '   "key37": 37,',
      '   "key38": 38,',
      ' }',
    ]);
    expect(body.filter((l) => l.startsWith('-'))).toEqual(['-  "key39": 39']);
    expect(body.filter((l) => l.startsWith('@@'))).toHaveLength(1);
  });
});
