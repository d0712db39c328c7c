// Part of npm run bench: the hardening timing targets that tests never assert:
//   contract gc over 100,000 drafts of which 50,000 are removable: under 10 s (scripts/bench-gc.mjs);
//   HANDOFF_HOME=/proc/nonexist fails with DATA_ROOT_UNUSABLE within a second;
//   a write behind a lock of the wrong form (dangling symlink, folder) gets through within 2 s.
import { spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, symlinkSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { gcBench } from './bench-gc.mjs';

const timed = (fn) => {
  const t0 = process.hrtime.bigint();
  const r = fn();
  return { r, ms: Number(process.hrtime.bigint() - t0) / 1e6 };
};

export async function run({ BIN, median, RUNS }) {
  const handoff = (home, args) =>
    spawnSync(process.execPath, [BIN, ...args], {
      env: { ...process.env, HANDOFF_HOME: home, NO_COLOR: '1' },
      encoding: 'utf8',
      cwd: tmpdir(),
    });

  const proc = [];
  for (let i = 0; i < Math.min(RUNS, 11); i++) {
    const { r, ms } = timed(() => handoff('/proc/nonexist/handoff', ['contract', 'init', '--json']));
    if (!r.stdout.includes('DATA_ROOT_UNUSABLE')) process.exitCode = 1;
    proc.push(ms);
  }
  console.log(
    `\nHANDOFF_HOME=/proc/nonexist contract init -> DATA_ROOT_UNUSABLE (target < 1 s): median ${median(proc).toFixed(1)} ms, max ${Math.max(...proc).toFixed(1)} ms`,
  );

  const lockTimes = { symlink: [], folder: [] };
  for (let i = 0; i < Math.min(RUNS, 11); i++) {
    for (const form of Object.keys(lockTimes)) {
      const home = mkdtempSync(join(tmpdir(), 'handoff-bench-lock-'));
      const id = JSON.parse(handoff(home, ['contract', 'init', '--json']).stdout).draft_id;
      const lock = join(home, 'drafts', `${id}.lock`);
      if (form === 'symlink') symlinkSync(join(home, 'nowhere'), lock);
      else mkdirSync(lock);
      const { r, ms } = timed(() => handoff(home, ['contract', 'set', 'report_prose', 'x', '--draft-id', id]));
      if (r.status !== 0) process.exitCode = 1;
      lockTimes[form].push(ms);
      rmSync(home, { recursive: true, force: true });
    }
  }
  for (const [form, xs] of Object.entries(lockTimes)) {
    console.log(
      `set behind a lock that is a ${form.padEnd(7)} (target < 2 s): median ${median(xs).toFixed(1)} ms, max ${Math.max(...xs).toFixed(1)} ms`,
    );
  }

  const [gc] = await gcBench({ bin: BIN, drafts: Number(process.env.GC_DRAFTS ?? 100_000) });
  console.log(
    `contract gc, ${gc.total.toLocaleString('en')} drafts, ${(gc.total / 2).toLocaleString('en')} removable (target < 10 s): ${(gc.ms / 1000).toFixed(2)} s, exit ${gc.exit}, removed ${gc.removed}, left ${gc.left}`,
  );
  if (gc.exit !== 0 || gc.removed !== gc.total / 2) process.exitCode = 1;
}
