/**
 * The CLI bundle is self-contained (scripts/build.mjs): the gate's receipt checks are bundled into the bundle that
 * runs the gate (dist/cli/handoff-stop.cjs), never loaded from the tsc output at run time. Run from a copy of the
 * package that holds only what the executable needs, a tampered receipt must still block (it used to be skipped
 * silently: a module-not-found fallback turned "no dist/receipts/checks.js" into "no receipt checks"), and an error
 * raised inside the checks is the bundle's own HandoffError (a second copy's class made a store error exit 70 instead
 * of failing open).
 */
import { spawnSync } from 'node:child_process';
import { cpSync, mkdirSync, mkdtempSync, symlinkSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { basename, join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { REPO } from '../helpers/cli.js';
import { rawStore } from '../helpers/gate.js';
import { closeWith, freshHome, hf, newDraft, nodeCmd, receipt, WS } from '../helpers/receipts-cli.js';

/** The bundle bin/run.js runs the gate from (dist/cli/handoff-stop.cjs). */
const GATE_BUNDLE = (
  createRequire(import.meta.url)(join(REPO, 'bin', 'run.js')) as { bundleFor(argv: string[]): string }
).bundleFor(['contract', 'gate']);

/**
 * bin/, the gate's bundle, oclif.manifest.json (the bundles that hold only some verbs list the others from it),
 * migrations/, package.json and a node_modules symlink (for better-sqlite3). oclif's
 * explicit strategy require()s dist/cli/handoff.cjs by name, and bin/run.js registers the bundle it loaded under that
 * name; a require() still needs a file there to resolve, so one stands in that throws if it were ever run.
 */
function minimalPackage(): string {
  const root = mkdtempSync(join(tmpdir(), 'handoff-bundle-'));
  cpSync(join(REPO, 'bin'), join(root, 'bin'), { recursive: true });
  mkdirSync(join(root, 'dist', 'cli'), { recursive: true });
  cpSync(GATE_BUNDLE, join(root, 'dist', 'cli', basename(GATE_BUNDLE)));
  writeFileSync(join(root, 'dist', 'cli', 'handoff.cjs'), "throw new Error('the full bundle was loaded');\n");
  cpSync(join(REPO, 'migrations'), join(root, 'migrations'), { recursive: true });
  cpSync(join(REPO, 'package.json'), join(root, 'package.json'));
  cpSync(join(REPO, 'oclif.manifest.json'), join(root, 'oclif.manifest.json'));
  symlinkSync(join(REPO, 'node_modules'), join(root, 'node_modules'), 'dir');
  return root;
}

function runFrom(pkg: string, home: string, args: string[], input: string) {
  const env: NodeJS.ProcessEnv = { ...process.env, HANDOFF_HOME: home, HANDOFF_WORKSPACE: WS, NO_COLOR: '1' };
  delete env.HANDOFF_DB;
  delete env.HANDOFF_DEBUG;
  const r = spawnSync(process.execPath, [join(pkg, 'bin', 'run.js'), ...args], {
    env,
    cwd: home,
    input,
    encoding: 'utf8',
    timeout: 60_000,
  });
  return { code: r.status, stdout: r.stdout, stderr: r.stderr };
}

describe('the CLI bundle carries the gate receipt checks (no run-time load of dist/receipts)', () => {
  it("a tampered receipt still blocks when the package holds only bin/, the gate's bundle, the manifest, migrations/ and package.json", () => {
    const pkg = minimalPackage();
    const home = freshHome();
    const d = newDraft(home);
    const rc = receipt(home, d, nodeCmd('process.stdout.write("q".repeat(5000))')).receipt;
    expect(
      closeWith(home, d, { type: 'command', command: rc.command, result: 'pass', receipt: rc.receipt_id }).code,
    ).toBe(0);

    const hook = JSON.stringify({ hook_event_name: 'Stop', session_id: 's1', stop_reason: 'end_turn' });
    const args = ['contract', 'gate', '--draft-id', d, '--stop-reason', 'end_turn', '--json'];
    const clean = runFrom(pkg, home, args, hook);
    expect([clean.code, JSON.parse(clean.stdout).decision], clean.stderr).toEqual([0, 'allow']);

    writeFileSync(rc.stdout_path as string, 'tampered');
    const r = runFrom(pkg, home, args, hook);
    expect(r.code, r.stderr).toBe(2);
    const verdict = JSON.parse(r.stdout);
    expect(verdict).toMatchObject({ decision: 'block', codes: ['RECEIPT_TAMPERED'] });
    expect(r.stderr).toMatch(/^\[CONTRACT REJECTED\] /);
  });

  it('a store error inside the receipt checks fails open like every gate store problem (exit 1, not 70)', () => {
    const home = freshHome();
    const d = newDraft(home);
    const rc = receipt(home, d, nodeCmd('0')).receipt;
    expect(
      closeWith(home, d, { type: 'command', command: rc.command, result: 'pass', receipt: rc.receipt_id }).code,
    ).toBe(0);
    const db = rawStore(home);
    db.exec('ALTER TABLE receipts RENAME COLUMN stdout_text TO stdout_text_gone');
    db.close();
    const hook = JSON.stringify({ hook_event_name: 'Stop', session_id: 's1', stop_reason: 'end_turn' });
    const r = hf(home, ['contract', 'gate', '--draft-id', d, '--stop-reason', 'end_turn'], { input: hook });
    expect(r.code, r.stderr).toBe(1);
    expect(r.stdout).toBe('');
    expect(r.stderr).toMatch(/^handoff contract gate: cannot use the store .*\. Stop not gated\.\n$/);
  });
});
