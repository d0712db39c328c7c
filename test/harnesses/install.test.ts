/**
 * scripts/harnesses/install.mjs: a complete cache of the pinned versions is reused without calling npm; a cache of
 * other pins or without its marker is not complete. (The install itself needs the npm registry and about 1.3 GB: it
 * runs in `npm run test:harnesses`.)
 */
import { spawnSync } from 'node:child_process';
import { chmodSync, mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { REPO, tempHome } from '../helpers/cli.js';

const SCRIPT = join(REPO, 'scripts', 'harnesses', 'install.mjs');

/** Runs `code` (an ES module body with `m` = the install module) with `env`; npm on PATH always fails. */
function withModule(code: string, env: Record<string, string>) {
  const fakeBin = tempHome('handoff-fake-npm-');
  writeFileSync(join(fakeBin, 'npm'), '#!/bin/sh\necho "npm must not run" >&2\nexit 99\n');
  chmodSync(join(fakeBin, 'npm'), 0o755);
  const body = `const m = await import(${JSON.stringify(SCRIPT)});\n${code}`;
  return spawnSync(process.execPath, ['--input-type=module', '-e', body], {
    encoding: 'utf8',
    env: { PATH: `${fakeBin}:${dirname(process.execPath)}:/usr/bin:/bin`, HOME: tempHome(), ...env },
  });
}

function pins(): Record<string, string> {
  const r = withModule('console.log(JSON.stringify(m.PINS));', {});
  expect(r.status, r.stderr).toBe(0);
  return JSON.parse(r.stdout);
}

/** A cache folder with the five binaries and a marker naming `recorded` pins. */
function fakeCache(recorded: Record<string, string> | null): string {
  const dir = join(tempHome('handoff-harness-cache-'), 'cache');
  mkdirSync(join(dir, 'node_modules', '.bin'), { recursive: true });
  for (const b of ['claude', 'codex', 'gemini', 'copilot', 'opencode', 'qwen'])
    writeFileSync(join(dir, 'node_modules', '.bin', b), '');
  if (recorded)
    writeFileSync(
      join(dir, 'handoff-harnesses.json'),
      JSON.stringify({ pins: recorded, versions: { claude: '1.2.3' } }),
    );
  return dir;
}

describe('harness install cache', () => {
  it('pins exact versions of the harnesses', () => {
    const p = pins();
    expect(Object.keys(p).sort()).toEqual([
      '@anthropic-ai/claude-code',
      '@github/copilot',
      '@google/gemini-cli',
      '@openai/codex',
      '@qwen-code/qwen-code',
      'opencode-ai',
    ]);
    for (const v of Object.values(p)) expect(v).toMatch(/^\d+\.\d+\.\d+$/);
  });

  it('reuses a complete cache named by HANDOFF_HARNESS_CACHE without calling npm', () => {
    const dir = fakeCache(pins());
    const r = withModule('console.log(JSON.stringify(m.ensureHarnesses()));', { HANDOFF_HARNESS_CACHE: dir });
    expect(r.status, r.stderr).toBe(0);
    expect(JSON.parse(r.stdout)).toMatchObject({
      dir,
      reused: true,
      bins: { codex: join(dir, 'node_modules', '.bin', 'codex') },
      versions: { claude: '1.2.3' },
    });
  });

  it('a cache of other pins, without its marker, or missing a binary is not complete', () => {
    const other = { ...pins(), '@openai/codex': '0.0.1' };
    const missing = fakeCache(pins());
    rmSync(join(missing, 'node_modules', '.bin', 'gemini'));
    const dirs = [fakeCache(other), fakeCache(null), missing, fakeCache(pins())];
    const r = withModule(`console.log(JSON.stringify(${JSON.stringify(dirs)}.map((d) => m.isComplete(d))));`, {});
    expect(r.status, r.stderr).toBe(0);
    expect(JSON.parse(r.stdout)).toEqual([false, false, false, true]);
  });

  it('without HANDOFF_HARNESS_CACHE the cache is under ~/.cache, outside node_modules, named by the pins', () => {
    const home = tempHome();
    const r = withModule('console.log(m.cacheDir());', { HOME: home });
    expect(r.status, r.stderr).toBe(0);
    expect(r.stdout.trim()).toMatch(new RegExp(`^${home}/\\.cache/handoff-harnesses/[0-9a-f]{12}$`));
  });
});
