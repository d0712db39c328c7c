/**
 * `hooks install|uninstall|status --harness codex` and Codex's hook trust, against a stand-in `codex app-server`
 * (test/fixtures/fake-codex; the real Codex is the judge in the harness suite): install trusts exactly the hooks it
 * wrote, appending to the user's config.toml and never reordering it or writing a project's trust_level; --no-trust
 * and --dry-run write no trust; uninstall takes out only its own tables; status asks Codex and exits 1 when Codex
 * will not run the gate.
 */
import { existsSync, mkdirSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { FIXTURES, HANDOFF_BIN_DIR, run, tempHome } from '../helpers/cli.js';

const FAKE_CODEX_DIR = join(FIXTURES, 'fake-codex');

interface Setup {
  project: string;
  home: string;
  codexHome: string;
  config: string;
  hooksFile: string;
  data: string;
  env: Record<string, string>;
}

/** A git project Codex trusts (as its first-run question writes it), a user config with keys of the user's own. */
function setup(opts: { trusted?: boolean; codexOnPath?: boolean } = {}): Setup {
  const base = mkdtempSync(join(tmpdir(), 'hooks-codex-'));
  const project = join(base, 'project');
  const home = join(base, 'home');
  const codexHome = join(home, '.codex');
  mkdirSync(join(project, '.git'), { recursive: true });
  mkdirSync(codexHome, { recursive: true });
  const config = join(codexHome, 'config.toml');
  writeFileSync(
    config,
    [
      'model = "gpt-5"',
      '',
      `[projects.${JSON.stringify(opts.trusted === false ? join(base, 'elsewhere') : project)}]`,
      'trust_level = "trusted"',
      '',
      '[hooks.state."/somewhere/else/hooks.json:stop:0:0"]',
      'trusted_hash = "sha256:0000"',
      '',
    ].join('\n'),
  );
  const path =
    opts.codexOnPath === false ? `${HANDOFF_BIN_DIR}:/usr/bin:/bin` : `${FAKE_CODEX_DIR}:${process.env.PATH ?? ''}`;
  return {
    project,
    home,
    codexHome,
    config,
    hooksFile: join(project, '.codex', 'hooks.json'),
    data: tempHome(),
    env: { HOME: home, CODEX_HOME: codexHome, PATH: path },
  };
}

const hooks = (s: Setup, args: string[]) =>
  run(s.data, ['hooks', ...args], { cwd: s.project, env: s.env, timeout: 120_000 });

const read = (path: string): string => readFileSync(path, 'utf8');

describe('hooks install --harness codex: trust', () => {
  it('trusts exactly the hook it wrote, appended after the user config unchanged; status says Codex will run it; uninstall restores both files byte for byte', () => {
    const s = setup();
    // A hook of the user's own comes first: the gate's is the second group, and only it is trusted.
    mkdirSync(join(s.project, '.codex'));
    const userHooks = `${JSON.stringify({ hooks: { Stop: [{ hooks: [{ type: 'command', command: 'echo mine' }] }] } }, null, 2)}\n`;
    writeFileSync(s.hooksFile, userHooks);
    const before = read(s.config);

    const r = hooks(s, ['install', '--harness', 'codex', '--json']);
    expect(r.code, r.stderr).toBe(0);
    const key = `${s.hooksFile}:stop:1:0`;
    expect(r.json.trust).toEqual({
      status: 'trusted',
      path: s.config,
      hooks: [{ key, hash: expect.stringMatching(/^sha256:[0-9a-f]{64}$/) }],
    });
    const after = read(s.config);
    expect(after.startsWith(before)).toBe(true);
    expect(after.slice(before.length)).toBe(
      `\n# handoff hooks install: trust for the gate it wrote in ${JSON.stringify(s.hooksFile)}\n` +
        `[hooks.state.${JSON.stringify(key)}]\ntrusted_hash = "${r.json.trust.hooks[0].hash as string}"\n`,
    );
    expect(after).not.toContain(`:stop:0:0"]\ntrusted_hash = "${r.json.trust.hooks[0].hash as string}`);

    const st = hooks(s, ['status', '--harness', 'codex', '--json']);
    expect(st.code, st.stdout + st.stderr).toBe(0);
    const row = st.json.hooks.find((h: any) => h.scope === 'project');
    expect(row).toMatchObject({ installed: true, will_run: true });
    expect(row.codex_hooks).toEqual([{ key, command: expect.any(String), trust_status: 'trusted', enabled: true }]);

    // A second install changes no byte of either file.
    expect(hooks(s, ['install', '--harness', 'codex', '--json']).json.trust.status).toBe('trusted');
    expect(read(s.config)).toBe(after);

    const u = hooks(s, ['uninstall', '--harness', 'codex', '--json']);
    expect(u.code, u.stderr).toBe(0);
    expect(u.json.trust).toMatchObject({ status: 'removed', path: s.config });
    expect(read(s.config)).toBe(before);
    expect(read(s.hooksFile)).toBe(userHooks);
  });

  it('a changed install (--strict) replaces its own trusted_hash in place; a table of the user for that key is updated, not duplicated', () => {
    const s = setup();
    const first = hooks(s, ['install', '--harness', 'codex', '--json']);
    const key = `${s.hooksFile}:stop:0:0`;
    expect(first.json.trust.hooks[0].key).toBe(key);
    const strict = hooks(s, ['install', '--harness', 'codex', '--strict', '--json']);
    expect(strict.json.trust.status, strict.stderr).toBe('trusted');
    expect(strict.json.trust.hooks[0].hash).not.toBe(first.json.trust.hooks[0].hash);
    const text = read(s.config);
    expect(text.split(`[hooks.state.${JSON.stringify(key)}]`)).toHaveLength(2);
    expect(text).toContain(`trusted_hash = "${strict.json.trust.hooks[0].hash as string}"`);

    // The user reviewed an older gate in Codex: that table (theirs, unmarked) gets the new hash where it stands.
    const t = setup();
    const mine = `${read(t.config)}[hooks.state.${JSON.stringify(`${t.hooksFile}:stop:0:0`)}]\ntrusted_hash = "sha256:old"\nenabled = true\n\n[tui]\nx = 1\n`;
    writeFileSync(t.config, mine);
    const r = hooks(t, ['install', '--harness', 'codex', '--json']);
    expect(r.json.trust.status, r.stderr).toBe('trusted');
    expect(read(t.config)).toBe(mine.replace('"sha256:old"', `"${r.json.trust.hooks[0].hash as string}"`));
  });

  it('--no-trust and --dry-run write no trust; status exits 1 while Codex would not run the hook, and names why', () => {
    const s = setup();
    const before = read(s.config);
    const dry = hooks(s, ['install', '--harness', 'codex', '--dry-run', '--json']);
    expect(dry.code, dry.stderr).toBe(0);
    expect(dry.json.trust).toMatchObject({ status: 'would_write', hooks: [{ key: `${s.hooksFile}:stop:0:0` }] });
    expect(dry.json.trust.diff).toMatch(/^--- .*config\.toml\n\+\+\+ .*config\.toml\n/);
    expect(dry.json.trust.diff).toContain(`+[hooks.state.${JSON.stringify(`${s.hooksFile}:stop:0:0`)}]`);
    expect(existsSync(s.hooksFile)).toBe(false);
    expect(read(s.config)).toBe(before);

    const r = hooks(s, ['install', '--harness', 'codex', '--no-trust', '--json']);
    expect(r.code, r.stderr).toBe(0);
    expect(r.json.trust).toEqual({ status: 'left_to_review', path: s.config, hooks: [] });
    expect(r.stderr).toContain("left to Codex's review");
    expect(read(s.config)).toBe(before);
    const st = hooks(s, ['status', '--harness', 'codex']);
    expect(st.code).toBe(1);
    expect(st.stdout).toMatch(/codex will NOT run it: .*:stop:0:0 is untrusted in Codex/);

    // Trusted, then the hook edited by hand: Codex calls it modified, and so does status.
    expect(hooks(s, ['install', '--harness', 'codex', '--json']).json.trust.status).toBe('trusted');
    expect(hooks(s, ['status', '--harness', 'codex']).code).toBe(0);
    writeFileSync(s.hooksFile, read(s.hooksFile).replace('--on-missing allow', '--on-missing block'));
    const edited = hooks(s, ['status', '--harness', 'codex', '--json']);
    expect(edited.code).toBe(1);
    expect(edited.json.hooks[0]).toMatchObject({ will_run: false, why_not: expect.stringContaining('is modified') });
  });

  it('never writes a project trust_level: in a project Codex does not trust, the hook trust is written and status says the project is the reason', () => {
    const s = setup({ trusted: false });
    const r = hooks(s, ['install', '--harness', 'codex', '--json']);
    expect(r.code, r.stderr).toBe(0);
    expect(r.json.trust).toMatchObject({ status: 'written', reason: expect.stringContaining('not trusted by Codex') });
    expect(r.stderr).toContain('Codex will not run the gate yet');
    const text = read(s.config);
    expect(text).not.toContain(JSON.stringify(s.project) + ']');
    expect(text.match(/trust_level/g)).toHaveLength(1);
    const st = hooks(s, ['status', '--harness', 'codex', '--json']);
    expect(st.code).toBe(1);
    expect(st.json.hooks[0]).toMatchObject({
      codex_project_trusted: false,
      will_run: false,
      why_not: expect.stringContaining('project is not trusted'),
    });
  });

  it('Codex not on PATH: the hooks file is written, config.toml is not, the notice and status say so', () => {
    const s = setup({ codexOnPath: false });
    const before = read(s.config);
    const r = hooks(s, ['install', '--harness', 'codex', '--json']);
    expect(r.code, r.stderr).toBe(0);
    expect(r.json).toMatchObject({
      action: 'created',
      trust: { status: 'unavailable', reason: 'codex is not on PATH' },
    });
    expect(r.stderr).toContain('codex is not on PATH');
    expect(read(s.config)).toBe(before);
    const st = hooks(s, ['status', '--harness', 'codex', '--json']);
    expect(st.code).toBe(1);
    expect(st.json.hooks[0].why_not).toContain('cannot ask Codex');
  });

  it('HOOK_TRUST_FAILED: when Codex cannot read the config afterwards, config.toml is put back byte for byte', () => {
    const s = setup();
    // A table written twice already: Codex's parser refuses the file once it is read again.
    const broken = `${read(s.config)}[tui]\nx = 1\n\n[tui]\ny = 2\n`;
    writeFileSync(s.config, broken);
    const r = hooks(s, ['install', '--harness', 'codex', '--json']);
    expect(r.code).toBe(1);
    expect(r.json).toMatchObject({ code: 'HOOK_TRUST_FAILED' });
    expect(read(s.config)).toBe(broken);
  });
});
