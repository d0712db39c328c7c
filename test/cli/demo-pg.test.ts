/**
 * `npm run demo:pg` (scripts/demo-pg.mjs): it starts its own PostgreSQL server, runs a script
 * with HANDOFF_STORE_URL set, and stops the server and removes its folder whether the script passed or failed. The
 * full demo (scripts/demo.sh) runs on it too, so it cannot rot.
 */
import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { REPO } from '../helpers/cli.js';

function demoPg(args: string[]): { code: number; stdout: string; stderr: string; dir: string | undefined } {
  const env: NodeJS.ProcessEnv = { ...process.env, NO_COLOR: '1' };
  delete env.HANDOFF_STORE_URL;
  delete env.HANDOFF_HOME;
  const r = spawnSync(process.execPath, [join(REPO, 'scripts', 'demo-pg.mjs'), ...args], {
    encoding: 'utf8',
    env,
    timeout: 240_000,
  });
  const dir = /data in (\S+) \(removed on exit\)/.exec(r.stderr)?.[1];
  return { code: r.status ?? -1, stdout: r.stdout, stderr: r.stderr, dir };
}

function script(body: string): string {
  const dir = mkdtempSync(join(tmpdir(), 'handoff-demo-pg-test-'));
  const path = join(dir, 'steps.sh');
  writeFileSync(
    path,
    `set -euo pipefail\nexport WORK="${dir}" HANDOFF_HOME="${dir}/home" HANDOFF_WORKSPACE=demo\nh() { node bin/run.js "$@"; }\n${body}\n`,
  );
  return path;
}

describe('npm run demo:pg', () => {
  it('runs a script against its own server (a store blob verified), then stops it and removes its folder', () => {
    const r = demoPg([
      '--script',
      script(`case "$HANDOFF_STORE_URL" in postgres://*) ;; *) exit 9 ;; esac
h brief add pay --ac AC-1=works
head -c 6000 /dev/zero | tr '\\0' 'z' > "$WORK/big.txt"
h evidence add --brief pay --ac AC-1 --type file --artifact-file "$WORK/big.txt" --json
h evidence show 1 --verify --json`),
    ]);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toContain('"artifact_path":"blob:sha256:');
    expect(r.stdout).toContain('"verified":true');
    expect(r.dir).toBeDefined();
    expect(existsSync(r.dir as string)).toBe(false);
  });

  it('a failing script: its exit status, and the server stopped and its folder removed all the same', () => {
    const r = demoPg(['--script', script('h brief add pay\nexit 3')]);
    expect(r.code).toBe(3);
    expect(r.dir).toBeDefined();
    expect(existsSync(r.dir as string)).toBe(false);
  });

  it('the demo itself (dispatch -> writes -> evidence -> finalize -> list) passes on PostgreSQL', () => {
    const r = demoPg([]);
    expect(r.code, `${r.stdout}\n${r.stderr}`).toBe(0);
    expect(r.stdout).toContain('store: PostgreSQL');
    expect(r.stdout).toContain('Demo complete');
    expect(existsSync(r.dir as string)).toBe(false);
  });
});
