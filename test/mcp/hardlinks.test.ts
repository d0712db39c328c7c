/**
 * A hard link inside the roots to a file outside them has no symlink to resolve: an MCP file input that is a regular
 * file with more than one link is PATH_HARDLINKED (exit 2 family), nothing read or stored; `handoff mcp
 * --allow-hardlinks` opts out.
 */
import { linkSync, realpathSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { confineFile } from '../../src/mcp/confine.js';
import { isHandoffError } from '../../src/errors.js';
import { run, snapshot, tempHome } from '../helpers/cli.js';
import { connect, textOf, type McpSession } from '../helpers/mcp.js';

const WS = { HANDOFF_WORKSPACE: 'ws' };
const SECRET = 'root:$6$not-for-agents$\n';
const ADD = { brief: 'payments', ac: 'AC-1', type: 'file' };

const sessions: McpSession[] = [];
afterEach(async () => {
  await Promise.all(sessions.splice(0).map((s) => s.close()));
});

/** A data root with a brief; a project holding a hard link to a secret file outside it, and a plain log. */
function setup(): { home: string; project: string } {
  const home = tempHome();
  expect(run(home, ['brief', 'add', 'payments', '--ac', 'AC-1=replay'], { env: WS }).code).toBe(0);
  const project = realpathSync(tempHome('handoff-project-'));
  const secret = join(tempHome('handoff-elsewhere-'), 'shadow');
  writeFileSync(secret, SECRET);
  linkSync(secret, join(project, 'innocent.log'));
  writeFileSync(join(project, 'plain.log'), 'tests pass\n');
  return { home, project };
}

describe('MCP file inputs with more than one link', () => {
  it('confineFile refuses the hard link before copying anything, and reads it when allowed', () => {
    const { project } = setup();
    let thrown: unknown;
    try {
      confineFile('artifact_file', 'innocent.log', project, [project]);
    } catch (e) {
      thrown = e;
    }
    expect(isHandoffError(thrown) ? [thrown.code, thrown.exit, thrown.data] : thrown).toEqual([
      'PATH_HARDLINKED',
      2,
      { param: 'artifact_file', path: 'innocent.log', links: 2 },
    ]);
    const copy = confineFile('artifact_file', 'innocent.log', project, [project], {}, { allowHardlinks: true });
    copy.dispose();
    confineFile('artifact_file', 'plain.log', project, [project]).dispose();
  });

  it('evidence_add over stdio: PATH_HARDLINKED and nothing stored; with --allow-hardlinks it is stored', async () => {
    const { home, project } = setup();
    const s = await connect(home, [], WS, { cwd: project });
    sessions.push(s);
    const before = snapshot(home);
    const r = await s.call('evidence_add', { ...ADD, artifact_file: 'innocent.log' });
    expect(r.isError, textOf(r)).toBe(true);
    expect(r.structuredContent).toMatchObject({ status: 'error', code: 'PATH_HARDLINKED' });
    expect(textOf(r)).not.toContain('not-for-agents');
    expect(snapshot(home)).toEqual(before);
    const plain = await s.call('evidence_add', { ...ADD, artifact_file: 'plain.log' });
    expect(plain.isError, textOf(plain)).toBe(false);

    const allowed = await connect(home, ['--allow-hardlinks'], WS, { cwd: project });
    sessions.push(allowed);
    const ok = await allowed.call('evidence_add', { ...ADD, artifact_file: 'innocent.log' });
    expect(ok.isError, textOf(ok)).toBe(false);
    expect(ok.structuredContent?.evidence).toMatchObject({ text: SECRET });
  });
});
