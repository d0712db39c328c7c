// npm run stress: fault injection in the manner of issue 11's trial. Hundreds of `kill -9` at random moments during
// set / add / fill / finalize / evidence add / evidence run, then hostile inputs, then an audit of the data root:
// torn drafts, half rows, sha mismatches, leftover files before and after `contract gc`, and whether every contract
// still takes its next write. Timing targets are measured by `npm run bench`, not here.
//
//   STRESS_KILLS=300   processes to launch and kill (each at a random moment; some finish first)
//   STRESS_PARALLEL=4  concurrent processes
//   STRESS_WINDOW=3    kill moments are uniform over this many times an operation's unkilled duration
//   STRESS_KEEP=1      keep the data root for inspection
//   HANDOFF_BIN=...    another build's bin/run.js (to measure before/after)
import { Buffer } from 'node:buffer';
import { spawn, spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import {
  existsSync,
  lstatSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  symlinkSync,
  utimesSync,
  writeFileSync,
} from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { clearTimeout, setTimeout } from 'node:timers';

const require = createRequire(import.meta.url);
const REPO = resolve(import.meta.dirname, '..');
const BIN = resolve(process.env.HANDOFF_BIN ?? join(REPO, 'bin', 'run.js'));
const KILLS = Number(process.env.STRESS_KILLS ?? 300);
const PARALLEL = Number(process.env.STRESS_PARALLEL ?? 4);
const WINDOW = Number(process.env.STRESS_WINDOW ?? 3);
const home = mkdtempSync(join(tmpdir(), 'handoff-stress-'));
const env = { ...process.env, HANDOFF_HOME: home, HANDOFF_WORKSPACE: 'ws', NO_COLOR: '1' };
delete env.HANDOFF_DB;

const sh = (args, extra = {}) =>
  spawnSync(process.execPath, [BIN, ...args], {
    env: { ...env, ...extra },
    encoding: 'utf8',
    cwd: home,
    maxBuffer: 1 << 28,
  });
const json = (args) => {
  const r = sh([...args, '--json']);
  try {
    return JSON.parse(r.stdout);
  } catch {
    throw new Error(`stress setup: ${args.join(' ')} exited ${r.status}: ${r.stdout}${r.stderr}`);
  }
};
const pick = (xs) => xs[Math.floor(Math.random() * xs.length)];

// ---------------------------------------------------------------- setup
json(['brief', 'add', 'b', '--ac', 'AC-1=first', '--ac', 'AC-2=second']);
const briefId = json(['brief', 'show', 'b']).brief.id;
const contracts = Array.from({ length: 10 }, () => json(['contract', 'dispatch', '--goal', 'stress']).contract_id);
const finalizable = Array.from({ length: 80 }, (_, i) => {
  const id = json(['contract', 'init']).draft_id;
  const uc = [
    { contract: 'evidence', payload: { brief_id: briefId, ac_id: 'AC-1', type: 'text', text: `first ${i}` } },
    { contract: 'evidence', payload: { brief_id: briefId, ac_id: 'AC-2', type: 'text', text: `second ${i}` } },
  ];
  const r = sh([
    'contract',
    'fill',
    '--draft-id',
    id,
    '--json',
    JSON.stringify({ update_contracts: uc, agent_status: { agent_state: 'BLOCKED' } }),
  ]);
  if (r.status !== 0) throw new Error(`stress setup fill: ${r.stdout}`);
  return id;
});
const bigFile = join(home, 'big.bin');
writeFileSync(bigFile, Buffer.alloc(2 * 1024 * 1024, 7));
const patchFile = join(home, 'patch.json');
writeFileSync(patchFile, JSON.stringify({ report_prose: 'f'.repeat(200_000) }));

// ---------------------------------------------------------------- kills
const operations = {
  set: () => ['contract', 'set', 'report_prose', `s${Math.random()}`.repeat(4000), '--draft-id', pick(contracts)],
  add: () => ['contract', 'add', 'evidence_report.commands_run', `a${Math.random()}`, '--draft-id', pick(contracts)],
  fill: () => ['contract', 'fill', '--draft-id', pick(contracts), '--json-file', patchFile],
  finalize: () => ['contract', 'finalize', '--draft-id', pick(finalizable), '--json'],
  'evidence add': () =>
    Math.random() < 0.5
      ? ['evidence', 'add', '--brief', 'b', '--ac', 'AC-1', '--type', 'file', '--artifact-file', bigFile]
      : ['evidence', 'add', '--brief', 'b', '--ac', 'AC-2', '--type', 'text', '--text', 't'.repeat(9000)],
  'evidence run': () => [
    'evidence',
    'run',
    '--draft-id',
    pick(contracts),
    '--shell',
    '--',
    'head -c 300000 /dev/urandom | od -An | head -c 200000; echo',
  ],
};
const launched = Object.fromEntries(Object.keys(operations).map((k) => [k, { launched: 0, killed: 0, finished: 0 }]));

// Each kill lands at a uniformly random moment of STRESS_WINDOW (default 3) times the operation's own duration,
// measured here once without a kill and alone: with STRESS_PARALLEL processes at once each runs slower, so the kill
// moments cover start-up, the work and the exit, and some runs finish, whatever the machine's speed.
const duration = {};
for (const [op, argsOf] of Object.entries(operations)) {
  const t = Date.now();
  sh(argsOf().filter((a) => a !== '--json'));
  duration[op] = Math.max(200, Date.now() - t);
}
const finalizableLeft = [...finalizable];
operations.finalize = () => [
  'contract',
  'finalize',
  '--draft-id',
  finalizableLeft.length > 0 ? finalizableLeft.pop() : pick(finalizable),
  '--json',
];

function killOne() {
  const op = pick(Object.keys(operations));
  const args = operations[op]();
  launched[op].launched++;
  return new Promise((res) => {
    const child = spawn(process.execPath, [BIN, ...args], { env, cwd: home, stdio: 'ignore' });
    const timer = setTimeout(() => child.kill('SIGKILL'), Math.floor(Math.random() * duration[op] * WINDOW));
    child.on('exit', (_code, signal) => {
      clearTimeout(timer);
      if (signal === 'SIGKILL') launched[op].killed++;
      else launched[op].finished++;
      res();
    });
  });
}

const t0 = Date.now();
for (let i = 0; i < KILLS; i += PARALLEL)
  await Promise.all(Array.from({ length: Math.min(PARALLEL, KILLS - i) }, killOne));
const killSeconds = (Date.now() - t0) / 1000;

// ---------------------------------------------------------------- audit
const Database = require('better-sqlite3');
const sha = (buf) => createHash('sha256').update(buf).digest('hex');

function audit() {
  const drafts = readdirSync(join(home, 'drafts'));
  let torn = 0;
  for (const n of drafts.filter((n) => n.endsWith('.json') && !n.startsWith('.'))) {
    try {
      const v = JSON.parse(readFileSync(join(home, 'drafts', n), 'utf8'));
      if (typeof v !== 'object' || v === null || Array.isArray(v)) torn++;
    } catch {
      torn++;
    }
  }
  const db = new Database(join(home, 'handoff.db'), { readonly: true });
  const integrity = db.pragma('integrity_check', { simple: true });
  const halfRows = [];
  // A finalize is all or nothing: a finalized row carries both of its evidence rows, never one.
  for (const r of db
    .prepare(
      `SELECT h.contract_id, COUNT(e.id) AS n FROM handoffs h LEFT JOIN evidence e ON e.handoff_id = h.id
                              WHERE h.cut_reason IS NULL GROUP BY h.id`,
    )
    .all()) {
    if (finalizable.includes(r.contract_id) && r.n !== 2) halfRows.push(`${r.contract_id}: ${r.n} evidence rows`);
  }
  for (const r of db.prepare('SELECT id, raw_handoff_json FROM handoffs').all()) {
    try {
      JSON.parse(r.raw_handoff_json);
    } catch {
      halfRows.push(`handoff ${r.id}: envelope is not JSON`);
    }
  }
  let shaMismatch = 0;
  let missingBlobs = 0;
  const referenced = new Set();
  for (const e of db.prepare('SELECT id, artifact_path, text, sha256 FROM evidence').all()) {
    if (e.artifact_path === null) {
      if (sha(Buffer.from(e.text, 'utf8')) !== e.sha256) shaMismatch++;
      continue;
    }
    referenced.add(e.artifact_path);
    if (!existsSync(e.artifact_path)) missingBlobs++;
    else if (sha(readFileSync(e.artifact_path)) !== e.sha256) shaMismatch++;
  }
  for (const r of db
    .prepare(
      'SELECT receipt_id, stdout_path, stdout_sha256, stdout_text, stderr_path, stderr_sha256, stderr_text FROM receipts',
    )
    .all()) {
    for (const [p, text, digest] of [
      [r.stdout_path, r.stdout_text, r.stdout_sha256],
      [r.stderr_path, r.stderr_text, r.stderr_sha256],
    ]) {
      if (p === null) {
        if (sha(Buffer.from(text, 'utf8')) !== digest) shaMismatch++;
        continue;
      }
      referenced.add(p);
      if (!existsSync(p)) missingBlobs++;
      else if (sha(readFileSync(p)) !== digest) shaMismatch++;
    }
  }
  const counts = {
    rows: db.prepare('SELECT COUNT(*) AS n FROM handoffs').get().n,
    evidence: db.prepare('SELECT COUNT(*) AS n FROM evidence').get().n,
    receipts: db.prepare('SELECT COUNT(*) AS n FROM receipts').get().n,
  };
  db.close();
  const leftovers = { draft_temp: 0, lock: 0, evidence_temp: 0, orphan_blob: 0, spill: 0, tmpdir_spill: 0 };
  for (const n of drafts) {
    if (/^\..*\.tmp$/.test(n)) leftovers.draft_temp++;
    else if (/\.lock(\.break)?$/.test(n)) leftovers.lock++;
  }
  const walk = (dir) => {
    for (const n of existsSync(dir) ? readdirSync(dir) : []) {
      const p = join(dir, n);
      const st = lstatSync(p);
      if (st.isDirectory()) walk(p);
      else if (/^\..*\.tmp$/.test(n)) leftovers.evidence_temp++;
      else if (!referenced.has(p)) leftovers.orphan_blob++;
    }
  };
  walk(join(home, 'evidence'));
  if (existsSync(join(home, 'tmp'))) leftovers.spill = readdirSync(join(home, 'tmp')).length;
  leftovers.tmpdir_spill = readdirSync(tmpdir()).filter((n) => n.startsWith('handoff-capture-')).length;
  return { torn, integrity, halfRows, shaMismatch, missingBlobs, counts, leftovers };
}

const before = audit();

// Time passes: every piece of debris (not the drafts, not referenced blobs) is made older than gc's rules.
const ago = (Date.now() - 8 * 86_400_000) / 1000;
const age = (dir, pred) => {
  for (const n of existsSync(dir) ? readdirSync(dir) : []) {
    const p = join(dir, n);
    const st = lstatSync(p);
    if (st.isDirectory()) age(p, pred);
    if (pred(n, p, st)) utimesSync(p, ago, ago);
  }
};
const referencedNow = new Set(
  (() => {
    const db = new Database(join(home, 'handoff.db'), { readonly: true });
    const out = [
      ...db.prepare('SELECT artifact_path AS p FROM evidence WHERE artifact_path IS NOT NULL').all(),
      ...db
        .prepare(
          'SELECT stdout_path AS p FROM receipts WHERE stdout_path IS NOT NULL UNION ALL SELECT stderr_path FROM receipts WHERE stderr_path IS NOT NULL',
        )
        .all(),
    ].map((r) => r.p);
    db.close();
    return out;
  })(),
);
age(join(home, 'drafts'), (n) => n.startsWith('.'));
age(join(home, 'evidence'), (_n, p, st) => !st.isDirectory() && !referencedNow.has(p));
age(join(home, 'tmp'), (n) => n.startsWith('spill-'));
const gc = sh(['contract', 'gc', '--json']);
const gcJson = (() => {
  try {
    return JSON.parse(gc.stdout);
  } catch {
    return { status: 'error', stdout: gc.stdout, stderr: gc.stderr };
  }
})();
const after = audit();

// Every contract takes its next write; every finalizable draft finalizes (stale locks of the killed are broken).
let nextWriteFailures = 0;
for (const id of contracts)
  if (sh(['contract', 'add', 'evidence_report.commands_run', 'after-stress', '--draft-id', id]).status !== 0)
    nextWriteFailures++;
for (const id of finalizable)
  if (sh(['contract', 'finalize', '--draft-id', id, '--json']).status !== 0) nextWriteFailures++;
const finalAudit = audit();

// ---------------------------------------------------------------- hostile inputs
const hostile = [];
const expectExit = (name, args, exits, extra = {}, input) => {
  const r = spawnSync(process.execPath, [BIN, ...args], {
    env: { ...env, ...extra },
    encoding: 'utf8',
    cwd: tmpdir(),
    input,
    timeout: 120_000,
  });
  const crashed = r.status === 70 || /\n\s+at /.test(r.stderr) || r.status === null;
  hostile.push({ name, exit: r.status, ok: exits.includes(r.status) && !crashed, crashed });
};
const agentId = contracts[0].split('.')[0];
const secret = join(home, 'shadow');
writeFileSync(secret, '{"root": $6$hunter2SECRET}');
expectExit(
  '5,000-character id',
  ['contract', 'set', 'report_prose', 'x', '--draft-id', `a${'0'.repeat(4990)}.000000000000`],
  [2],
);
expectExit('116-character agent id', ['contract', 'init', '--agent-id', `a${'0'.repeat(115)}`], [2]);
expectExit(
  '1,000,000-key fill',
  ['contract', 'fill', '--draft-id', contracts[1], '--json-file', '-'],
  [2],
  {},
  JSON.stringify(Object.fromEntries(Array.from({ length: 1_000_000 }, (_, i) => [`k${i}`, i]))),
);
const goalFile = join(home, 'goal.txt');
spawnSync('truncate', ['-s', '50M', goalFile]);
expectExit('50 MB goal file', ['contract', 'dispatch', '--goal-file', goalFile], [2]);
expectExit('65 KiB --goal', ['contract', 'dispatch', '--goal', 'g'.repeat(65 * 1024)], [2]);
expectExit('secret-looking --json-file', ['contract', 'fill', '--draft-id', contracts[2], '--json-file', secret], [2]);
expectExit('HANDOFF_HOME=/proc/nonexist', ['contract', 'init'], [4], { HANDOFF_HOME: '/proc/nonexist' });
expectExit(
  'TMPDIR=/nonexistent evidence run',
  ['evidence', 'run', '--draft-id', contracts[3], '--shell', '--', 'head -c 10000 /dev/zero'],
  [0],
  { TMPDIR: '/nonexistent' },
);
expectExit(
  'agent id of another draft prefix',
  ['contract', 'set', 'report_prose', 'x', '--draft-id', contracts[4], '--agent-id', `${agentId}0`],
  [2],
);
{
  const planted = mkdtempSync(join(tmpdir(), 'handoff-stress-planted-'));
  const other = mkdtempSync(join(tmpdir(), 'handoff-stress-root-'));
  symlinkSync(planted, join(other, 'drafts'));
  expectExit('symlinked drafts/', ['contract', 'init'], [4], { HANDOFF_HOME: other });
  const wrote = readdirSync(planted).length;
  hostile.push({ name: 'nothing written behind the symlinked drafts/', exit: wrote, ok: wrote === 0, crashed: false });
  rmSync(planted, { recursive: true, force: true });
  rmSync(other, { recursive: true, force: true });
}
{
  const linked = json(['contract', 'init']).draft_id;
  symlinkSync(join(home, 'nowhere'), join(home, 'drafts', `${linked}.lock`));
  expectExit('dangling symlink as lock', ['contract', 'set', 'report_prose', 'x', '--draft-id', linked], [0]);
  const folder = json(['contract', 'init']).draft_id;
  mkdirSync(join(home, 'drafts', `${folder}.lock`));
  expectExit('folder as lock', ['contract', 'set', 'report_prose', 'y', '--draft-id', folder], [0]);
}
const hostileCrashes = hostile.filter((h) => h.crashed).length;
const hostileUnexpected = hostile.filter((h) => !h.ok).length;

// ---------------------------------------------------------------- report
const summary = {
  bin: BIN,
  kills: Object.values(launched).reduce((a, b) => a + b.killed, 0),
  launched: Object.values(launched).reduce((a, b) => a + b.launched, 0),
  by_operation: launched,
  kill_phase_seconds: killSeconds,
  unkilled_duration_ms: duration,
  torn_drafts: before.torn,
  half_rows: before.halfRows.length,
  sha_mismatches: before.shaMismatch,
  missing_blobs: before.missingBlobs,
  integrity_check: before.integrity,
  store: before.counts,
  leftovers_before_gc: before.leftovers,
  gc: {
    status: gcJson.status,
    removed_drafts: gcJson.removed?.length,
    debris: gcJson.debris?.length,
    blobs: gcJson.blobs,
  },
  leftovers_after_gc: after.leftovers,
  next_write_failures: nextWriteFailures,
  after_next_writes: {
    torn_drafts: finalAudit.torn,
    half_rows: finalAudit.halfRows.length,
    sha_mismatches: finalAudit.shaMismatch,
  },
  hostile: {
    cases: hostile.length,
    unexpected: hostileUnexpected,
    crashes: hostileCrashes,
    failed: hostile.filter((h) => !h.ok),
  },
  data_root: process.env.STRESS_KEEP ? home : '(removed)',
};
console.log(JSON.stringify(summary, null, 2));
if (!process.env.STRESS_KEEP) rmSync(home, { recursive: true, force: true });
const bad =
  before.torn +
  before.halfRows.length +
  before.shaMismatch +
  nextWriteFailures +
  finalAudit.torn +
  finalAudit.halfRows.length +
  hostileUnexpected;
if (bad > 0 || before.integrity !== 'ok') process.exitCode = 1;
