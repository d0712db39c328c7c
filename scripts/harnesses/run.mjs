#!/usr/bin/env node
// `npm run test:harnesses`: installs the pinned harnesses (or reuses the cache), then runs the real-harness suite
// (vitest.harnesses.config.ts) and prints the wall time and a table of what each harness was seen to do.
//
// Where the machine allows it the suite runs in a network namespace of its own with only the loopback interface,
// so nothing can reach a host but 127.0.0.1; elsewhere the harnesses' proxies point at a closed local port and
// their update checks and telemetry are off. The line "network:" says which. Extra arguments go to vitest.
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { ensureHarnesses } from './install.mjs';
import { formatTable } from './table.mjs';

const REPO = resolve(fileURLToPath(import.meta.url), '..', '..', '..');
const started = Date.now();
const secs = (ms) => `${(ms / 1000).toFixed(1)} s`;

const installed = ensureHarnesses();
const installMs = Date.now() - started;
console.log(`harnesses: ${installed.reused ? 'reused' : 'installed'} ${installed.dir} (${secs(installMs)})`);

/** True when a loopback-only network namespace can be made here (unprivileged user namespaces, `ip`). */
function canIsolate() {
  const r = spawnSync('unshare', ['--map-root-user', '--net', 'sh', '-c', 'ip link set lo up'], {
    stdio: 'ignore',
    timeout: 30_000,
  });
  return r.status === 0;
}

const scratch = mkdtempSync(join(tmpdir(), 'handoff-harness-run-'));
const report = join(scratch, 'observed.json');
const vitest = [
  process.execPath,
  join(REPO, 'node_modules', 'vitest', 'vitest.mjs'),
  'run',
  '--config',
  'vitest.harnesses.config.ts',
  ...process.argv.slice(2),
];
const isolated = process.env.HANDOFF_HARNESS_NETNS !== '0' && canIsolate();
const argv = isolated
  ? ['unshare', '--map-root-user', '--net', 'sh', '-c', 'ip link set lo up && exec "$@"', 'sh', ...vitest]
  : vitest;
console.log(
  `network: ${isolated ? 'a namespace with loopback only' : 'host network; proxies point at a closed local port'}`,
);

const env = {
  ...process.env,
  HANDOFF_HARNESS_BIN_DIR: join(installed.dir, 'node_modules', '.bin'),
  HANDOFF_HARNESS_REPORT: report,
};
const suiteStarted = Date.now();
const r = spawnSync(argv[0], argv.slice(1), { cwd: REPO, env, stdio: 'inherit' });
const suiteMs = Date.now() - suiteStarted;

let observed = {};
try {
  observed = JSON.parse(readFileSync(report, 'utf8'));
} catch {
  // the suite wrote nothing (it failed to start)
}
rmSync(scratch, { recursive: true, force: true });
console.log('');
console.log(formatTable(observed, installed.versions));
console.log('');
console.log(`wall time: ${secs(Date.now() - started)} (install ${secs(installMs)}, suite ${secs(suiteMs)})`);
process.exitCode = r.status ?? 1;
