#!/usr/bin/env node
// Installs the real agent harnesses the harness suite drives, at pinned versions, into a cache folder outside
// node_modules (about 1.8 GB together: they are not dev dependencies). A complete cache is reused as it is.
//
//   node scripts/harnesses/install.mjs          install (or reuse), print the cache folder and each binary
//   HANDOFF_HARNESS_CACHE=/some/dir ...          use that folder instead of ~/.cache/handoff-harnesses/<hash>
//
// Install scripts are not run: they would fetch from hosts other than the npm registry (prebuilt keytar, node-pty).
// The scripts a harness needs (Claude Code's and OpenCode's, which each link their native binary from an optional
// dependency) are run by hand afterwards, and every binary is started once with --version so a missing native part fails here.
import { createHash } from 'node:crypto';
import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { homedir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

export const PINS = {
  '@anthropic-ai/claude-code': '2.1.332',
  '@openai/codex': '0.171.0',
  '@google/gemini-cli': '0.61.0',
  '@github/copilot': '1.0.102',
  'opencode-ai': '1.18.33',
  '@qwen-code/qwen-code': '0.24.4',
};

/** The command each harness is started with, by harness name. */
export const BINS = {
  claude: 'claude',
  codex: 'codex',
  gemini: 'gemini',
  copilot: 'copilot',
  opencode: 'opencode',
  qwen: 'qwen',
};

const MARKER = 'handoff-harnesses.json';

export function cacheDir(env = process.env) {
  if (env.HANDOFF_HARNESS_CACHE) return resolve(env.HANDOFF_HARNESS_CACHE);
  const key = JSON.stringify({
    pins: PINS,
    platform: process.platform,
    arch: process.arch,
    node: process.versions.node.split('.')[0],
  });
  const hash = createHash('sha256').update(key).digest('hex').slice(0, 12);
  return join(homedir(), '.cache', 'handoff-harnesses', hash);
}

function binPaths(dir) {
  return Object.fromEntries(Object.entries(BINS).map(([name, bin]) => [name, join(dir, 'node_modules', '.bin', bin)]));
}

/** A cache folder holds a complete install of exactly these pins (its marker is written last). */
export function isComplete(dir) {
  const marker = join(dir, MARKER);
  if (!existsSync(marker)) return false;
  try {
    const recorded = JSON.parse(readFileSync(marker, 'utf8'));
    if (JSON.stringify(recorded.pins) !== JSON.stringify(PINS)) return false;
  } catch {
    return false;
  }
  return Object.values(binPaths(dir)).every((p) => existsSync(p));
}

function versionOf(bin, env) {
  return execFileSync(bin, ['--version'], { encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'], timeout: 60_000, env })
    .trim()
    .split('\n')[0];
}

/** The environment a harness binary runs in when only asked its version: no update checks, no telemetry. */
function quietEnv(home) {
  return {
    PATH: process.env.PATH,
    HOME: home,
    DISABLE_AUTOUPDATER: '1',
    CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC: '1',
    COPILOT_AUTO_UPDATE: 'false',
    GEMINI_CLI_NO_RELAUNCH: 'true',
  };
}

function install(dir) {
  const parent = dirname(dir);
  mkdirSync(parent, { recursive: true });
  const work = `${dir}.partial-${process.pid}`;
  rmSync(work, { recursive: true, force: true });
  mkdirSync(work);
  writeFileSync(
    join(work, 'package.json'),
    JSON.stringify({ name: 'handoff-harnesses', private: true, dependencies: PINS }, null, 2) + '\n',
  );
  execFileSync('npm', ['install', '--ignore-scripts', '--no-audit', '--no-fund', '--omit=dev', '--loglevel=error'], {
    cwd: work,
    stdio: 'inherit',
    timeout: 30 * 60_000,
  });
  // Claude Code links its platform binary (an optional dependency, from the registry) over bin/claude.exe.
  execFileSync(process.execPath, ['install.cjs'], {
    cwd: join(work, 'node_modules', '@anthropic-ai', 'claude-code'),
    stdio: 'inherit',
    timeout: 120_000,
  });
  // OpenCode likewise links its platform binary (opencode-<platform>-<arch>, from the registry) over bin/opencode.exe.
  execFileSync(process.execPath, ['postinstall.mjs'], {
    cwd: join(work, 'node_modules', 'opencode-ai'),
    stdio: 'inherit',
    timeout: 120_000,
  });
  const home = join(work, '.version-home');
  mkdirSync(home);
  const versions = {};
  for (const [name, bin] of Object.entries(binPaths(work))) versions[name] = versionOf(bin, quietEnv(home));
  rmSync(home, { recursive: true, force: true });
  writeFileSync(join(work, MARKER), JSON.stringify({ pins: PINS, versions }, null, 2) + '\n');
  rmSync(dir, { recursive: true, force: true });
  renameSync(work, dir);
}

/** Installs when needed; returns the cache folder, each harness's binary and whether the cache was reused. */
export function ensureHarnesses(env = process.env) {
  const dir = cacheDir(env);
  const reused = isComplete(dir);
  if (!reused) install(dir);
  const marker = JSON.parse(readFileSync(join(dir, MARKER), 'utf8'));
  return { dir, reused, bins: binPaths(dir), versions: marker.versions };
}

if (process.argv[1] && resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  const started = Date.now();
  const result = ensureHarnesses();
  const secs = ((Date.now() - started) / 1000).toFixed(1);
  console.log(`${result.reused ? 'reused' : 'installed'} ${result.dir} (${secs} s)`);
  for (const [name, bin] of Object.entries(result.bins))
    console.log(`  ${name.padEnd(8)} ${result.versions[name]}  ${bin}`);
}
