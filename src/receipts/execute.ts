/**
 * Steps 3–5 shared by `evidence run` and `contract verify`: the workspace (and, for `evidence
 * run --brief/--ac`, the brief and AC) checked before anything is spawned; the run, with no lock held; the
 * fingerprint of the tree the command ran in; the receipt recorded. Capture temp files are always removed.
 */
import { storeSigner } from '../attest/signer.js';
import { draftWorkspace } from '../drafts/meta.js';
import { checkDeclaredAc } from '../evidence/deposit.js';
import { briefNotFoundIn, rejectWith, requireBrief } from '../evidence/brief-service.js';
import { withReader } from '../evidence/store-access.js';
import { HandoffError } from '../errors.js';
import { ensureRootFolder, rootFolder, type Env } from '../paths.js';
import { SpillArea } from './capture.js';
import { computeFingerprint, storeFiles } from './fingerprint.js';
import { splitHint } from './options.js';
import { mintReceiptId, recordReceipt, type EvidenceTarget, type Recorded } from './record.js';
import { runChild, signalExit, type ChildRun } from './spawn.js';
import type { ReceiptRow } from './row.js';

export interface Sinks {
  /** Returns 'closed' once the reader is gone (EPIPE): see ChildRequest.onStdout. */
  stdout: (chunk: Buffer) => void | 'closed';
  stderr: (chunk: Buffer) => void | 'closed';
}

export interface Prepared {
  workspace: string;
  evidence?: EvidenceTarget;
}

/**
 * Step 3: the workspace (the contract's recorded one, else the usual resolution: always a safe slug); with --brief/--ac the brief must exist there and declare the AC. The spill folder `<root>/tmp` must not
 * be a symlink (DATA_ROOT_UNSAFE, checked before anything is spawned).
 */
export async function prepareRun(
  env: Env,
  cwd: string,
  contractId: string,
  workspaceFlag: string | undefined,
  brief?: { name: string; ac: string },
): Promise<Prepared> {
  const workspace = draftWorkspace(env, cwd, contractId, workspaceFlag);
  rootFolder(env, 'tmp', cwd);
  if (brief === undefined) return { workspace };
  const absent = (): Promise<EvidenceTarget> => rejectWith(briefNotFoundIn(workspace, brief.name));
  const evidence = await withReader(
    env,
    cwd,
    async (s) => {
      const row = await requireBrief(s, workspace, brief.name);
      await checkDeclaredAc(s, row.id, row.name, brief.ac);
      return { briefId: row.id, briefName: row.name, acId: brief.ac };
    },
    absent,
  );
  return { workspace, evidence };
}

export interface ExecuteRequest {
  env: Env;
  cwd: string;
  contractId: string;
  prepared: Prepared;
  argv: readonly string[];
  shell: boolean;
  runCwd: string;
  timeoutMs: number;
  sinks: Sinks;
  notice: (line: string) => void;
  /** Aborting it kills the child's process group (see ChildRequest.signal). */
  signal?: AbortSignal;
}

/** Steps 4–5: spawn and wait, then record. A store failure here removes this call's blobs and throws (exit 4). */
export async function executeAndRecord(req: ExecuteRequest): Promise<Recorded> {
  // The signing key is checked before the command starts: an unsafe key (KEY_UNSAFE) refuses the run, not its record.
  storeSigner(req.env, req.cwd);
  const receiptId = mintReceiptId();
  const spill = new SpillArea(() => {
    ensureRootFolder(req.env, 'tmp', req.cwd);
    return rootFolder(req.env, 'tmp', req.cwd);
  });
  const run: ChildRun = await runChild({
    argv: req.argv,
    shell: req.shell,
    cwd: req.runCwd,
    timeoutMs: req.timeoutMs,
    env: req.env,
    onStdout: req.sinks.stdout,
    onStderr: req.sinks.stderr,
    spill,
    signal: req.signal,
  });
  try {
    if (run.captureError !== undefined) throw captureFailed(run.captureError);
    if (run.spawnError !== undefined) {
      const hint = splitHint(req.argv, req.shell);
      req.notice(`[NOT STARTED] ${req.argv[0] ?? ''}: ${run.spawnError}${hint === undefined ? '' : `; ${hint}`}`);
    }
    if (run.timedOut)
      req.notice(`[TIMED OUT] after ${Math.round(req.timeoutMs / 1000)} s; the process group was killed`);
    if (run.cancelled === true) req.notice('[CANCELLED] the call was cancelled; the process group was killed');
    const fingerprint = computeFingerprint(req.runCwd, req.env, storeFiles(req.env, req.cwd));
    return await recordReceipt({
      env: req.env,
      cwd: req.cwd,
      receiptId,
      contractId: req.contractId,
      workspace: req.prepared.workspace,
      argv: req.argv,
      shell: req.shell,
      runCwd: req.runCwd,
      run,
      fingerprint,
      evidence: req.prepared.evidence,
    });
  } finally {
    run.discard();
  }
}

/** The output could not be captured; the child's group was stopped and reaped, no receipt. */
const captureFailed = (why: string): HandoffError =>
  new HandoffError(
    'RECEIPT_CAPTURE_FAILED',
    `${why}; the command's process group was stopped and no receipt was recorded`,
    {},
    'Free space under the data root (or make <root>/tmp writable) and run the command again.',
  );

/** The status `evidence run` exits with once a receipt is recorded. */
export function childStatus(row: ReceiptRow): number {
  if (row.exit_code !== null) return row.exit_code;
  if (row.timed_out === 1) return 124;
  if (row.signal !== null) return signalExit(row.signal);
  return 127;
}
