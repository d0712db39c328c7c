/**
 * A signed chain built through the CLI: link 1 APPROVAL_REQUEST citing an approval the approver decides with their
 * own key, link 2 COMPLETE with an `evidence run` receipt, link 3 BLOCKED. Keys are generated into the temp home.
 */
import { join } from 'node:path';
import { expect } from 'vitest';
import { run, tempHome, type RunResult } from './cli.js';

export interface SignedChain {
  home: string;
  env: Record<string, string>;
  storeKey: { private_key: string; public_key: string; key_id: string };
  approverKey: { private_key: string; public_key: string; key_id: string };
  first: string;
  links: string[];
  approvalId: string;
}

export function runOk(home: string, args: string[], env: Record<string, string> = {}): RunResult {
  const r = run(home, args, { env });
  expect(r.code, `${args.join(' ')}: ${r.stdout}${r.stderr}`).toBe(0);
  return r;
}

export function generate(home: string, dir: string, type = 'ecdsa-p256'): SignedChain['storeKey'] {
  return runOk(home, ['key', 'generate', '--type', type, '--out', join(home, dir), '--json'])
    .json as SignedChain['storeKey'];
}

const COMPLETE =
  '{"evidence_report":{"verification":{"type":"command","command":"npm test","result":"PASS"}},"agent_status":{"next_action":"done"}}';

/** Opens the continuation of a closed contract (a write to it) and returns the new contract id. */
function continueFrom(home: string, id: string, env: Record<string, string>): string {
  const add = runOk(home, ['contract', 'add', 'evidence_report.open_gaps', 'more', '--draft-id', id, '--json'], env);
  return (add.json as { continuation: { contract_id: string } }).continuation.contract_id;
}

export function signedChain(
  opts: { storeType?: string; approverType?: string; env?: Record<string, string> } = {},
): SignedChain {
  const home = tempHome('handoff-attest-');
  const storeKey = generate(home, 'store-keys', opts.storeType);
  const approverKey = generate(home, 'approver-keys', opts.approverType ?? 'ed25519');
  const env = { ...opts.env, HANDOFF_SIGNING_KEY: storeKey.private_key };

  const first = (runOk(home, ['contract', 'init', '--json'], env).json as { draft_id: string }).draft_id;
  const req = runOk(
    home,
    ['approval', 'request', '--content', 'deploy the release', '--draft-id', first, '--json'],
    env,
  ).json as { approval_id: string };
  runOk(
    home,
    [
      'contract',
      'fill',
      '--draft-id',
      first,
      '--json',
      JSON.stringify({ approval_request: { exact_content: 'deploy the release', approval_id: req.approval_id } }),
    ],
    env,
  );
  runOk(home, ['contract', 'set', 'agent_status.agent_state', 'APPROVAL_REQUEST', '--draft-id', first], env);
  runOk(home, ['contract', 'finalize', '--draft-id', first, '--json'], env);
  runOk(
    home,
    [
      'approval',
      'decide',
      req.approval_id,
      '--decision',
      'approved',
      '--by',
      'alice',
      '--key',
      approverKey.private_key,
    ],
    env,
  );

  const second = continueFrom(home, first, env);
  runOk(home, ['contract', 'fill', '--draft-id', second, '--json', COMPLETE], env);
  runOk(
    home,
    ['evidence', 'run', '--draft-id', second, '--', process.execPath, '-e', 'console.log("tests pass")'],
    env,
  );
  runOk(home, ['contract', 'set', 'agent_status.agent_state', 'COMPLETE', '--draft-id', second], env);
  runOk(home, ['contract', 'finalize', '--draft-id', second, '--json'], env);

  const third = continueFrom(home, second, env);
  runOk(home, ['contract', 'set', 'agent_status.agent_state', 'BLOCKED', '--draft-id', third], env);
  runOk(home, ['contract', 'finalize', '--draft-id', third, '--json'], env);
  return { home, env, storeKey, approverKey, first, links: [first, second, third], approvalId: req.approval_id };
}
