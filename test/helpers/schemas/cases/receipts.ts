/** Cases of the receipt verbs: evidence run, contract verify, evidence receipts, evidence show R-.... */
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { expect } from 'vitest';
import { gitRepo, nodeCmd } from '../../receipts-cli.js';
import { mintDraft } from '../../store-cli.js';
import type { ResultCase } from '../case.js';
import { ambiguousCase, closedContract, hf, plantDraft, noStoreCase, ok, refusal } from './setup.js';

const run = (home: string, id: string, argv: string[], flags: string[] = []) =>
  hf(home, ['evidence', 'run', '--draft-id', id, ...flags, '--json', '--', ...argv]);

const verify = (home: string, id: string) => hf(home, ['contract', 'verify', '--draft-id', id, '--json']);

/** A draft whose evidence_report.verification.command is `command`, in `state` with `result` (if given). */
function verifiable(home: string, command: string, state = 'IN_PROGRESS', result?: string): string {
  return plantDraft(home, state, (e) => {
    e.agent_status.next_action = state === 'COMPLETE' ? 'done' : 'verify';
    e.evidence_report.verification = { type: 'command', command, ...(result === undefined ? {} : { result }) };
  });
}

/** A recorded receipt whose stdout (5000 bytes) is stored as a blob. */
function spilledReceipt(home: string): { id: string; path: string } {
  const r = ok(home, ['evidence', 'run', '--draft-id', plantDraft(home), '--json', '--', ...nodeCmd("process.stdout.write('x'.repeat(5000))")]);
  return { id: r.receipt.receipt_id, path: r.receipt.stdout_path };
}

/** A draft file that is no longer JSON once the command has run: the append after the receipt fails. */
const breaksItsDraft = (home: string, id: string): string[] => ['sh', '-c', `printf 'not json' > '${join(home, 'drafts', `${id}.json`)}'`];

const receiptWrongs: ResultCase['wrong'] = {
  'an outcome that contradicts the exit code': (j) => ({ ...j, receipt: { ...j.receipt, outcome: j.receipt.exit_code === 0 ? 'fail' : 'pass' } }),
  'a stream both inline and in a blob': (j) => ({ ...j, receipt: { ...j.receipt, stdout_text: 'x', stdout_path: '/tmp/x' } }),
  'the raw argv_json column': (j) => ({ ...j, receipt: { ...j.receipt, argv_json: '[]' } }),
  'a 0/1 flag instead of a boolean': (j) => ({ ...j, receipt: { ...j.receipt, shell: 0 } }),
  'a malformed receipt id': (j) => ({ ...j, receipt: { ...j.receipt, receipt_id: 'R-XYZ' } }),
  'a git head without its tree fingerprint': (j) => ({ ...j, receipt: { ...j.receipt, git_head: 'abc1234', tree_fingerprint: null } }),
};

const appendFailedWrongs: ResultCase['wrong'] = {
  'a receipt not recorded': (j) => ({ ...j, receipt_recorded: false }),
  'appended after all': (j) => ({ ...j, appended: true }),
};

export const RECEIPT_CASES: ResultCase[] = [
  {
    verb: 'evidence run',
    schema: 'evidence-run',
    name: 'a passing command, appended to the draft',
    exit: 0,
    produce: (home) => run(home, plantDraft(home), nodeCmd('console.log("ok")')),
    expect: (j) => expect([j.receipt.outcome, j.receipt.stdout_text, j.receipt.shell, j.receipt.git_head]).toEqual(['pass', 'ok\n', false, null]),
    wrong: receiptWrongs,
  },
  {
    verb: 'evidence run',
    schema: 'evidence-run',
    name: "a failing command: the exit is the child's, the status still ok",
    exit: 1,
    produce: (home) => run(home, plantDraft(home), nodeCmd('process.exitCode = 1')),
    expect: (j) => expect([j.status, j.receipt.exit_code, j.receipt.outcome]).toEqual(['ok', 1, 'fail']),
  },
  {
    verb: 'evidence run',
    schema: 'evidence-run',
    name: 'a command that cannot start: unproven, exit 127',
    exit: 127,
    produce: (home) => run(home, plantDraft(home), ['handoff-no-such-command']),
    expect: (j) => expect([j.receipt.exit_code, j.receipt.outcome]).toEqual([null, 'unproven']),
    wrong: { 'no exit code but not unproven': (j) => ({ ...j, receipt: { ...j.receipt, outcome: 'fail' } }) },
  },
  {
    verb: 'evidence run',
    schema: 'evidence-run',
    name: 'a command stopped by --timeout: exit 124, unproven',
    exit: 124,
    produce: (home) => run(home, plantDraft(home), nodeCmd('setTimeout(() => {}, 60000)'), ['--timeout', '1']),
    expect: (j) => expect([j.receipt.timed_out, j.receipt.exit_code, j.receipt.outcome]).toEqual([true, null, 'unproven']),
    wrong: { 'a timeout with an exit code': (j) => ({ ...j, receipt: { ...j.receipt, exit_code: 2 } }) },
  },
  {
    verb: 'evidence run',
    schema: 'evidence-run',
    name: 'a shell command in a git work tree, output spilled to a blob and recorded as evidence',
    exit: 0,
    produce: (home) => {
      ok(home, ['brief', 'add', 'b1', '--ac', 'AC-1=works', '--json']);
      return run(home, plantDraft(home), ['head -c 5000 /dev/zero | tr "\\0" y'], ['--shell', '--cwd', gitRepo(), '--brief', 'b1', '--ac', 'AC-1']);
    },
    expect: (j) => {
      expect([j.receipt.shell, j.receipt.argv.length, j.receipt.stdout_text, j.receipt.stdout_bytes]).toEqual([true, 1, null, 5000]);
      expect(typeof j.receipt.stdout_path).toBe('string');
      expect(j.receipt.tree_fingerprint).toMatch(/^[0-9a-f]{64}$/);
    },
    wrong: receiptWrongs,
  },
  {
    verb: 'evidence run',
    schema: 'evidence-run',
    name: 'a closed contract: the receipt is kept, the append skipped',
    exit: 0,
    produce: (home) => run(home, closedContract(home), ['true']),
    expect: (j) => expect(j.receipt.outcome).toBe('pass'),
  },
  {
    verb: 'evidence run',
    schema: 'receipt-append-failed',
    name: 'the draft became unreadable while the command ran',
    exit: 4,
    produce: (home) => {
      const id = plantDraft(home);
      return run(home, id, breaksItsDraft(home, id));
    },
    expect: (j) => expect([j.cause, 'codes' in j, 'draft_id' in j]).toEqual(['DRAFT_UNREADABLE', false, false]),
    wrong: { ...appendFailedWrongs, 'validator errors without a rejected cause': (j) => ({ ...j, codes: ['FIELD_TYPE'], errors: [{ code: 'FIELD_TYPE', path: 'x', detail: 'y' }] }) },
  },
  {
    verb: 'evidence run',
    schema: 'receipt-append-failed',
    name: 'the full verdict refused the append',
    exit: 4,
    produce: (home) => run(home, plantDraft(home, 'IN_PROGRESS', (e) => (e.agent_status.agent_id = 'not-an-agent-id')), ['true']),
    expect: (j) => expect([j.cause, j.codes]).toEqual(['rejected', ['AGENT_ID_FORMAT']]),
    wrong: { ...appendFailedWrongs, 'a rejected cause without the codes': ({ codes: _c, ...j }) => j },
  },
  ambiguousCase('evidence run', ['--json', '--', 'true']),
  refusal('evidence run', 'USAGE', 2, (home) => ['--draft-id', plantDraft(home), '--json'], 'no command after --'),

  {
    verb: 'contract verify',
    schema: 'contract-verify',
    name: 'the check passed and was written to the draft',
    exit: 0,
    produce: (home) => verify(home, verifiable(home, 'true')),
    expect: (j) => expect([j.result, j.appended, j.receipt.shell, j.receipt.command]).toEqual(['pass', true, true, 'true']),
    wrong: { ...receiptWrongs, 'a result other than pass': (j) => ({ ...j, result: 'fail' }) },
  },
  {
    verb: 'contract verify',
    schema: 'contract-verify-failed',
    name: 'the check failed',
    exit: 1,
    produce: (home) => verify(home, verifiable(home, 'exit 1')),
    expect: (j) => expect([j.result, j.appended, j.receipt.outcome]).toEqual(['fail', true, 'fail']),
    wrong: {
      'a result that contradicts the receipt': (j) => ({ ...j, result: 'unproven' }),
      'a passing result': (j) => ({ ...j, result: 'pass' }),
    },
  },
  {
    verb: 'contract verify',
    schema: 'contract-verify-failed',
    name: 'the check was unproven (exit 3)',
    exit: 1,
    produce: (home) => verify(home, verifiable(home, 'exit 3')),
    expect: (j) => expect([j.result, j.receipt.exit_code]).toEqual(['unproven', 3]),
  },
  {
    verb: 'contract verify',
    schema: 'receipt-append-failed',
    name: 'a COMPLETE draft cannot take result fail',
    exit: 4,
    produce: (home) => verify(home, verifiable(home, 'exit 1', 'COMPLETE', 'pass')),
    expect: (j) => expect([j.cause, typeof j.draft_id]).toEqual(['rejected', 'string']),
    wrong: appendFailedWrongs,
  },
  ambiguousCase('contract verify', ['--json']),
  refusal('contract verify', 'VERIFY_NO_COMMAND', 1, (home) => ['--draft-id', plantDraft(home), '--json']),

  {
    verb: 'evidence receipts',
    schema: 'evidence-receipts',
    name: 'the receipts of a chain, newest first',
    exit: 0,
    produce: (home) => {
      const id = plantDraft(home);
      ok(home, ['evidence', 'run', '--draft-id', id, '--json', '--', 'true']);
      hf(home, ['evidence', 'run', '--draft-id', id, '--json', '--', 'false']);
      return hf(home, ['evidence', 'receipts', '--draft-id', id, '--json']);
    },
    expect: (j) => expect(j.receipts.map((r: any) => r.outcome)).toEqual(['fail', 'pass']),
    wrong: { 'a receipt without its row digest': (j) => ({ ...j, receipts: j.receipts.map(({ row_sha256: _r, ...r }: any) => r) }) },
  },
  noStoreCase('evidence receipts', 'evidence-receipts', ['--contract-id', mintDraft()]),
  refusal('evidence receipts', 'USAGE', 2, () => ['--draft-id', mintDraft(), '--contract-id', mintDraft(), '--json'], 'both --draft-id and --contract-id'),

  {
    verb: 'evidence show',
    schema: 'receipt-show',
    name: 'a receipt',
    exit: 0,
    produce: (home) => hf(home, ['evidence', 'show', spilledReceipt(home).id, '--json']),
    expect: (j) => expect('verified' in j).toBe(false),
    wrong: { ...receiptWrongs, 'verified false on an ok object': (j) => ({ ...j, verified: false }) },
  },
  {
    verb: 'evidence show',
    schema: 'receipt-show',
    name: 'a receipt, verified',
    exit: 0,
    produce: (home) => hf(home, ['evidence', 'show', spilledReceipt(home).id, '--verify', '--json']),
    expect: (j) => expect(j.verified).toBe(true),
  },
  {
    verb: 'evidence show',
    schema: 'receipt-show-tampered',
    name: 'a receipt whose output blob was altered',
    exit: 1,
    produce: (home) => {
      const { id, path } = spilledReceipt(home);
      writeFileSync(path, 'y'.repeat(5000));
      return hf(home, ['evidence', 'show', id, '--verify', '--json']);
    },
    expect: (j) => expect([j.code, j.verified]).toEqual(['RECEIPT_TAMPERED', false]),
    wrong: { 'verified true': (j) => ({ ...j, verified: true }), 'without the receipt': ({ receipt: _r, ...j }) => j },
  },
  refusal('evidence show', 'RECEIPT_NOT_FOUND', 3, () => ['R-0123456789abcdef', '--json']),
];
