#!/usr/bin/env node
/**
 * Figures for signed export (docs/attest.md): export and verify of a 1,000-handoff chain, and finalize's cost with and
 * without a signing key. Run after `npm run build`: node scripts/attest-figures.mjs [handoffs=1000] [finalize runs=15]
 *
 * A continuation chain in the store holds at most 64 rows, so the 1,000-handoff chain is assembled from synthetic
 * finalized rows by the export's own code (the statements, their links, the bundles, the head) after the store read;
 * half of its statements carry a signature made "at write" (DSSE over node:crypto, as finalize makes it), half are
 * signed by the export. Verification is the real verb (`handoff attest verify`, a fresh process) on that file.
 */
import { spawnSync } from 'node:child_process';
import { mkdtempSync, writeFileSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';

const ROOT = new URL('..', import.meta.url).pathname;
const BIN = join(ROOT, 'bin', 'run.js');
const N = Number(process.argv[2] ?? 1000);
const RUNS = Number(process.argv[3] ?? 15);
const dist = (p) => import(join(ROOT, 'dist', p));

const { handoffStatement, payloadOf, sha256Hex, GENESIS } = await dist('attest/statement.js');
const { signPayload } = await dist('attest/dsse.js');
const { assembleExport } = await dist('attest/export.js');
const { loadSigningKey } = await dist('keys/key-file.js');
const { initialEnvelope } = await dist('envelope/vocabulary.js');

const home = mkdtempSync(join(tmpdir(), 'handoff-attest-figures-'));
const cli = (args, env = {}) => {
  const t = performance.now();
  const r = spawnSync(process.execPath, [BIN, ...args], {
    env: { ...process.env, HANDOFF_HOME: home, NO_COLOR: '1', ...env },
    cwd: home,
    encoding: 'utf8',
  });
  if (r.status !== 0 && !args.includes('--allow-fail'))
    throw new Error(`${args.join(' ')}: ${r.status} ${r.stdout}${r.stderr}`);
  return { ms: performance.now() - t, r };
};
const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];

const keyGen = JSON.parse(cli(['key', 'generate', '--out', join(home, 'keys'), '--json']).r.stdout);
const key = loadSigningKey(keyGen.private_key);

// 1. A 1,000-handoff chain through the export's assembly.
const agent = 'a0123456789abcdef';
let previous = GENESIS;
const lines = [];
let writeSignMs = 0;
for (let i = 0; i < N; i++) {
  const envelope = initialEnvelope(agent);
  envelope.agent_status.agent_state = 'BLOCKED';
  envelope.evidence_report.open_gaps = [`step ${i}`];
  const cid = `${agent}.${i.toString(16).padStart(12, '0')}`;
  const row = {
    id: i + 1,
    contract_id: cid,
    agent_id: agent,
    workspace: 'figures',
    agent_state: 'BLOCKED',
    cut_reason: null,
    raw_handoff_json: JSON.stringify(envelope),
    kind: null,
    plan_task_id: null,
    parent_handoff_id: null,
    brief_id: null,
    continues_handoff_id: i === 0 ? null : i,
    harness_id: null,
    goal: null,
    consolidation: 0,
    require_receipt: 0,
    can_write_json: null,
    acceptance_json: null,
    created_at: new Date(Date.UTC(2026, 0, 1, 0, 0, i)).toISOString(),
    updated_at: '',
    finalized_at: new Date(Date.UTC(2026, 0, 1, 0, 0, i, 500)).toISOString(),
  };
  const payload = payloadOf(handoffStatement(row, [], previous));
  const line = { payload, digest: sha256Hex(payload) };
  if (i % 2 === 0) {
    const t = performance.now();
    line.stored = { signature: signPayload(key, payload), keyId: key.keyId };
    writeSignMs += performance.now() - t;
  }
  lines.push(line);
  previous = line.digest;
}
const t0 = performance.now();
const assembled = await assembleExport(
  { root: `${agent}.000000000000`, tip: previous, lines, receipts: [], approvals: [] },
  key,
);
const file = join(home, 'chain.jsonl');
writeFileSync(file, assembled.text);
const exportMs = performance.now() - t0;
const verify = cli(['attest', 'verify', file, '--key', keyGen.public_key, '--json']);
const verified = JSON.parse(verify.r.stdout);
const noop = median(Array.from({ length: 5 }, () => cli(['help', 'attest']).ms));

// 2. finalize with and without a key (each a fresh draft closed BLOCKED; the store exists before the first timed run).
const finalizeOnce = (env) => {
  const id = JSON.parse(cli(['contract', 'init', '--json']).r.stdout).draft_id;
  cli(['contract', 'set', 'agent_status.agent_state', 'BLOCKED', '--draft-id', id]);
  return cli(['contract', 'finalize', '--draft-id', id], env).ms;
};
finalizeOnce({});
const plain = [];
const signed = [];
for (let i = 0; i < RUNS; i++) {
  plain.push(finalizeOnce({}));
  signed.push(finalizeOnce({ HANDOFF_SIGNING_KEY: keyGen.private_key }));
}

const f = (ms) => `${ms.toFixed(0)} ms`;
console.log(
  `handoffs in the chain:            ${N} (+1 head; ${assembled.signedNow} signed by the export, ${N - assembled.signedNow + 1} at write)`,
);
console.log(`file:                             ${(statSync(file).size / 1024).toFixed(0)} KiB`);
console.log(`DSSE signing at write (node:crypto), per statement: ${(writeSignMs / Math.ceil(N / 2)).toFixed(3)} ms`);
console.log(`export assembly (@sigstore/sign bundles, ${assembled.lines} lines): ${f(exportMs)}`);
console.log(
  `attest verify (the verb, a fresh process): ${f(verify.ms)}  [verified=${verified.verified}, lines=${verified.lines}]`,
);
console.log(`  for scale, handoff help attest:  ${f(noop)}`);
console.log(
  `contract finalize, median of ${RUNS}: without a key ${f(median(plain))}, with HANDOFF_SIGNING_KEY ${f(median(signed))}`,
);
