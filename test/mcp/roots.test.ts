/**
 * MCP file inputs stay inside the server's roots, over the SDK's own client on stdio: the server's directory by
 * default, the client's MCP roots when it lists any (and again after it says they changed), plus each --allow-path.
 * Anything else is PATH_OUTSIDE_ROOTS (exit family usage), with nothing read, stored or run; `-` is USAGE.
 */
import { mkdirSync, readFileSync, symlinkSync, writeFileSync } from 'node:fs';
import { createHash } from 'node:crypto';
import { execFileSync } from 'node:child_process';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { run, snapshot, tempHome } from '../helpers/cli.js';
import { connect, textOf, type ConnectOptions, type McpSession } from '../helpers/mcp.js';

const D = 'a0123456789abcdef.0123456789ab';
const WS = { HANDOFF_WORKSPACE: 'ws' };
const SECRET = 'root:$6$not-for-agents$\n';
const ADD = { brief: 'payments', ac: 'AC-1', type: 'file' };

const sessions: McpSession[] = [];
afterEach(async () => {
  await Promise.all(sessions.splice(0).map((s) => s.close()));
});

/** A data root with a brief, a project folder the server runs in (with a log), and a secret folder elsewhere. */
function setup(): { home: string; project: string; secret: string; elsewhere: string } {
  const home = tempHome();
  expect(run(home, ['brief', 'add', 'payments', '--ac', 'AC-1=replay'], { env: WS }).code).toBe(0);
  const project = tempHome('handoff-project-');
  writeFileSync(join(project, 'test-output.log'), 'tests pass\n');
  const elsewhere = tempHome('handoff-elsewhere-');
  const secret = join(elsewhere, 'shadow');
  writeFileSync(secret, SECRET);
  return { home, project, secret, elsewhere };
}

async function open(
  home: string,
  project: string,
  flags: string[] = [],
  opts: ConnectOptions = {},
): Promise<McpSession> {
  const s = await connect(home, flags, WS, { cwd: project, ...opts });
  sessions.push(s);
  return s;
}

const sha = (text: string): string => createHash('sha256').update(text).digest('hex');

async function expectOutside(
  s: McpSession,
  home: string,
  args: Record<string, unknown>,
  tool = 'evidence_add',
): Promise<void> {
  const before = snapshot(home);
  const r = await s.call(tool, args);
  expect(r.isError, textOf(r)).toBe(true);
  expect(r.structuredContent).toMatchObject({ status: 'error', code: 'PATH_OUTSIDE_ROOTS' });
  expect(textOf(r)).toContain('[PATH_OUTSIDE_ROOTS]');
  expect(snapshot(home)).toEqual(before);
}

describe('file inputs outside the roots are refused, nothing read', () => {
  it('an absolute path, a ../ path, a symlink inside pointing out, a missing path outside: PATH_OUTSIDE_ROOTS; evidence_list stays empty', async () => {
    const { home, project, secret, elsewhere } = setup();
    symlinkSync(secret, join(project, 'innocent.log'));
    symlinkSync(elsewhere, join(project, 'linked-dir'));
    const s = await open(home, project);
    await expectOutside(s, home, { ...ADD, artifact_file: secret });
    await expectOutside(s, home, {
      ...ADD,
      artifact_file: `../${join(elsewhere, 'shadow').split('/').slice(-2).join('/')}`,
    });
    await expectOutside(s, home, { ...ADD, artifact_file: 'innocent.log' });
    await expectOutside(s, home, { ...ADD, artifact_file: 'linked-dir/shadow' });
    // Whether a path outside exists is not told apart.
    await expectOutside(s, home, { ...ADD, artifact_file: join(elsewhere, 'no-such-file') });
    await expectOutside(s, home, { ...ADD, artifact_file: 'linked-dir/no-such-file' });
    const listed = await s.call('evidence_list', { brief: 'payments' });
    expect(listed.structuredContent?.evidence ?? listed.structuredContent?.rows ?? []).toEqual([]);
    expect(JSON.stringify(listed.structuredContent)).not.toContain('not-for-agents');
  });

  it('a file inside the server directory is stored (a blob keeps its extension); a FIFO there is INPUT_NOT_REGULAR without hanging; "-" is USAGE', async () => {
    const { home, project } = setup();
    execFileSync('mkfifo', [join(project, 'pipe')]);
    const s = await open(home, project);
    const ok = await s.call('evidence_add', { ...ADD, artifact_file: 'test-output.log' });
    expect(ok.isError, textOf(ok)).toBe(false);
    expect(ok.structuredContent?.evidence).toMatchObject({ sha256: sha('tests pass\n'), text: 'tests pass\n' });
    const fifo = await s.call('evidence_add', { ...ADD, artifact_file: 'pipe' });
    expect(fifo.structuredContent).toMatchObject({ code: 'INPUT_NOT_REGULAR' });
    // A blob keeps the extension of the file named: the server reads a private copy of what it opened, under its name.
    const big = 'x'.repeat(10_000);
    writeFileSync(join(project, 'big.txt'), big);
    const blob = await s.call('evidence_add', { ...ADD, artifact_file: 'big.txt' });
    const evidence = blob.structuredContent?.evidence as { artifact_path: string; sha256: string; size_bytes: number };
    expect(evidence).toMatchObject({ sha256: sha(big), size_bytes: 10_000 });
    expect(evidence.artifact_path).toMatch(/\.txt$/);
    expect(readFileSync(evidence.artifact_path, 'utf8')).toBe(big);
    const before = snapshot(home);
    const dash = await s.call('evidence_add', { ...ADD, artifact_file: '-' });
    expect(dash.structuredContent).toMatchObject({ status: 'error', code: 'USAGE' });
    expect(snapshot(home)).toEqual(before);
  });
});

describe('--allow-path and the client roots', () => {
  it('each --allow-path DIR adds a root; a missing one or a file stops the server at start (USAGE, exit 2)', async () => {
    const { home, project, secret, elsewhere } = setup();
    const other = tempHome('handoff-other-');
    writeFileSync(join(other, 'b.log'), 'b\n');
    const s = await open(home, project, ['--allow-path', elsewhere, '--allow-path', other]);
    for (const file of [secret, join(other, 'b.log'), 'test-output.log']) {
      const r = await s.call('evidence_add', { ...ADD, artifact_file: file });
      expect(r.isError, textOf(r)).toBe(false);
    }
    const bad = run(home, ['mcp', '--allow-path', join(other, 'missing')], { env: WS });
    expect(bad.code).toBe(2);
    expect(bad.stderr).toMatch(/--allow-path .*missing" does not exist.*\[USAGE\]/);
    const file = run(home, ['mcp', '--allow-path', secret], { env: WS });
    expect(file.code).toBe(2);
    expect(file.stderr).toMatch(/is not a directory.*\[USAGE\]/);
  });

  it("the client's roots replace the server directory, and are asked for again after roots/list_changed", async () => {
    const { home, project } = setup();
    const clientRoot = tempHome('handoff-client-root-');
    mkdirSync(join(clientRoot, 'sub'));
    writeFileSync(join(clientRoot, 'sub', 'c.log'), 'c\n');
    const s = await open(home, project, [], { roots: [clientRoot] });
    await expectOutside(s, home, { ...ADD, artifact_file: 'test-output.log' });
    const inside = await s.call('evidence_add', { ...ADD, artifact_file: join(clientRoot, 'sub', 'c.log') });
    expect(inside.isError, textOf(inside)).toBe(false);
    await s.setRoots([project]);
    const now = await s.call('evidence_add', { ...ADD, artifact_file: 'test-output.log' });
    expect(now.isError, textOf(now)).toBe(false);
    await expectOutside(s, home, { ...ADD, artifact_file: join(clientRoot, 'sub', 'c.log') });
  });
});

describe("evidence_run's cwd", () => {
  it('outside the roots is PATH_OUTSIDE_ROOTS and nothing runs; inside it runs there', async () => {
    const { home, project, elsewhere } = setup();
    const s = await open(home, project, ['--allow-run']);
    expect((await s.call('contract_init', { draft_id: D })).isError).toBe(false);
    const marker = join(elsewhere, 'ran');
    await expectOutside(s, home, { command: ['touch', marker], cwd: elsewhere, draft_id: D }, 'evidence_run');
    await expectOutside(s, home, { command: ['touch', marker], cwd: '..', draft_id: D }, 'evidence_run');
    expect(snapshot(elsewhere)).not.toHaveProperty('ran');
    mkdirSync(join(project, 'work'));
    const ok = await s.call('evidence_run', { command: ['touch', 'ran'], cwd: 'work', draft_id: D });
    expect(ok.isError, textOf(ok)).toBe(false);
    expect(snapshot(join(project, 'work'))).toHaveProperty('ran');
  });
});
