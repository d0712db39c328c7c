/**
 * The receipt checks of finalize step 9b and the stop gate. `checkReceiptsWith` is pure over a
 * receipt lookup and an integrity verdict, so it is tested against an in-memory list; `checkReceiptsIn` feeds it from
 * the store (either backend), the one path finalize and the gate take.
 */
import { tokenMatch } from '../envelope/vocabulary.js';
import { isStale as fingerprintIsStale } from './fingerprint.js';
import { verifyReceiptIn, type IntegrityContext } from './integrity.js';
import type { StoreReads } from '../store/store.js';
import { citedReceipts, claimsCommand, requiredIssue, verificationOf, type CitedReceipt } from './required.js';
import type { ReceiptRow } from './row.js';
import { claimMatchesReceipt } from './split-words.js';
import { argvColumn, readStoredJson } from '../store/stored-json.js';

/** The claim against one receipt: as a string, or as an argv for a receipt that ran one. */
export const matches = (claimed: string, row: ReceiptRow): boolean =>
  claimMatchesReceipt(claimed, {
    command: row.command,
    shell: Number(row.shell) === 1,
    argv: readStoredJson(row.argv_json, argvColumn),
  });

export { citedReceipts } from './required.js';

export type ReceiptCheckCode =
  | 'RECEIPT_NOT_FOUND'
  | 'RECEIPT_FOREIGN'
  | 'RECEIPT_TAMPERED'
  | 'EVIDENCE_PATH_ESCAPE'
  | 'RECEIPT_FAILED'
  | 'RECEIPT_COMMAND_MISMATCH'
  | 'RECEIPT_STALE'
  | 'RECEIPT_REQUIRED'
  | 'VERIFICATION_TYPE_REQUIRED'
  | 'CHECK_NOT_RUN';

export interface ReceiptIssue {
  code: ReceiptCheckCode;
  path: string;
  detail: string;
}

export interface ReceiptCheckOptions {
  /** Every contract_id of the finalized (or gated) contract's continuation chain, the tip included. */
  contractChainIds: Iterable<string>;
  /** The chain's `require_receipt` (false when there is no row). */
  requireReceipt: boolean;
  /** `finalize --allow-stale`: skip RECEIPT_STALE. Ignored in gate mode (the gate never checks staleness). */
  allowStale?: boolean;
  /** `finalize`: all seven checks, RECEIPT_REQUIRED last. `gate`: the time-invariant ones, RECEIPT_REQUIRED first. */
  mode: 'finalize' | 'gate';
  /** Environment for the git calls of the staleness check (default process.env). */
  env?: NodeJS.ProcessEnv;
  /**
   * Finalize: told each cited receipt's freshness once it passed checks 1–3 (`unknown`: recorded without a
   * fingerprint, outside git). The tree is fingerprinted even with `allowStale`, so the row records what was seen.
   */
  onFreshness?: (receiptId: string, freshness: Freshness) => void;
  /** False when --allow-stale cannot excuse a stale receipt (verification policy receipt): the hint leaves it out. */
  staleExcusable?: boolean;
}

export type Freshness = 'fresh' | 'stale' | 'unknown';

export interface CheckSeams {
  /** The row's integrity; `escaped`: outputs whose file lies outside the evidence root (never read). */
  verify: (row: ReceiptRow) => { ok: boolean; failures: string[]; escaped?: string[] };
  isStale?: (row: ReceiptRow) => boolean;
}

const PASS: ReadonlySet<string> = new Set(['pass']);

/** One-line details, by code (guidance only; tests assert codes and paths). */
const DETAIL = {
  notFound: (id: string) => `receipt ${id} does not exist in the store; cite an id printed by \`handoff evidence run\``,
  foreign: (id: string, owner: string) =>
    `receipt ${id} belongs to contract ${owner}, outside this contract's chain; record your own with \`handoff evidence run\``,
  escape: (id: string, what: string[]) =>
    `receipt ${id} names ${what.join(' and ')} outside the evidence root, so it was not read; record a new one with \`handoff evidence run\``,
  tampered: (id: string, what: string[]) =>
    `receipt ${id} no longer matches its digest (${what.join(', ')}); record a new one with \`handoff evidence run\``,
  failed: (row: ReceiptRow) =>
    `verification.result says pass but receipt ${row.receipt_id} has outcome ${row.outcome} (${row.command}); ` +
    'fix the code and record a passing receipt, or report the result honestly',
  mismatch: (claimed: string | undefined, ran: string[]) =>
    `no cited receipt ran verification.command ${JSON.stringify(claimed ?? null)} (cited: ${ran.map((c) => JSON.stringify(c)).join(', ')}); ` +
    'cite the receipt of that command or set the command to what was run',
  stale: (row: ReceiptRow, excusable: boolean) =>
    `the work tree in ${row.cwd} changed since receipt ${row.receipt_id} was recorded; ` +
    (excusable
      ? 're-run the check (`handoff contract verify`) or finalize with --allow-stale'
      : 're-run the check (`handoff contract verify`) and cite the new receipt: under the verification policy receipt a stale receipt cannot close COMPLETE'),
};

type Found = CitedReceipt & { row: ReceiptRow };

export function checkReceiptsWith(
  lookup: (id: string) => ReceiptRow | undefined,
  envelope: unknown,
  opts: ReceiptCheckOptions,
  seams: CheckSeams,
): ReceiptIssue[] {
  const verify = seams.verify;
  const stale = seams.isStale ?? ((row: ReceiptRow) => fingerprintIsStale(row, opts.env));
  const cited = citedReceipts(envelope);
  const chain = new Set(opts.contractChainIds);
  const v = verificationOf(envelope);
  const issues: ReceiptIssue[] = [];
  const issue = (code: ReceiptCheckCode, path: string, detail: string): void => {
    issues.push({ code, path, detail });
  };
  if (opts.mode === 'gate') issues.push(...requiredIssue(envelope, cited, opts.requireReceipt));

  // Checks 1–3: a receipt that fails one takes no part in the later checks.
  const found: Found[] = [];
  for (const c of cited) {
    const row = lookup(c.id);
    if (row === undefined) issue('RECEIPT_NOT_FOUND', c.path, DETAIL.notFound(c.id));
    else found.push({ ...c, row });
  }
  const own = found.filter((c) => chain.has(c.row.contract_id));
  for (const c of found)
    if (!own.includes(c)) issue('RECEIPT_FOREIGN', c.path, DETAIL.foreign(c.id, c.row.contract_id));
  const remaining = own.filter((c) => {
    const r = verify(c.row);
    if (r.escaped !== undefined && r.escaped.length > 0)
      issue('EVIDENCE_PATH_ESCAPE', c.path, DETAIL.escape(c.id, r.escaped));
    else if (!r.ok) issue('RECEIPT_TAMPERED', c.path, DETAIL.tampered(c.id, r.failures));
    return r.ok;
  });

  if (v !== undefined && tokenMatch(v.result, PASS)) {
    for (const c of remaining) if (c.row.outcome !== 'pass') issue('RECEIPT_FAILED', c.path, DETAIL.failed(c.row));
  }
  if (claimsCommand(v) && remaining.length > 0) {
    const claimed = typeof v?.command === 'string' ? v.command.trim() : undefined;
    if (claimed === undefined || !remaining.some((c) => matches(claimed, c.row))) {
      issue(
        'RECEIPT_COMMAND_MISMATCH',
        remaining[0].path,
        DETAIL.mismatch(
          claimed,
          remaining.map((c) => c.row.command),
        ),
      );
    }
  }
  if (opts.mode === 'finalize') {
    const seen = new Map<string, Freshness>();
    for (const c of remaining) {
      let freshness = seen.get(c.id);
      if (freshness === undefined) {
        freshness = stale(c.row) ? 'stale' : c.row.tree_fingerprint === null ? 'unknown' : 'fresh';
        seen.set(c.id, freshness);
        opts.onFreshness?.(c.id, freshness);
      }
      if (freshness === 'stale' && opts.allowStale !== true)
        issue('RECEIPT_STALE', c.path, DETAIL.stale(c.row, opts.staleExcusable !== false));
    }
  }
  if (opts.mode === 'finalize') issues.push(...requiredIssue(envelope, cited, opts.requireReceipt));
  return issues;
}

/**
 * The receipt checks through the Store interface (both backends; a transaction handle or the store), the seam
 * finalize (step 9b) and the gate call: the cited rows and their integrity (store blobs read back from the store,
 * output files only from below the evidence root) are fetched first, then the pure checks run. `reads` null: no store
 * yet, every cited receipt is RECEIPT_NOT_FOUND.
 */
export async function checkReceiptsIn(
  reads: Pick<StoreReads, 'getReceipt' | 'blobs'> | null,
  envelope: unknown,
  opts: ReceiptCheckOptions & IntegrityContext,
): Promise<ReceiptIssue[]> {
  const rows = new Map<string, ReceiptRow>();
  const integrity = new Map<string, { ok: boolean; failures: string[]; escaped: string[] }>();
  for (const c of citedReceipts(envelope)) {
    if (reads === null || rows.has(c.id)) continue;
    const row = await reads.getReceipt(c.id);
    if (row === undefined) continue;
    rows.set(c.id, row);
    integrity.set(c.id, await verifyReceiptIn(reads, row, opts));
  }
  return checkReceiptsWith((id) => rows.get(id), envelope, opts, {
    verify: (row) => integrity.get(row.receipt_id) ?? { ok: false, failures: ['row_sha256'] },
  });
}

/** The repair text of a receipt rejection (step 9b). */
export const RECEIPT_REPAIR =
  'Record the check with `handoff evidence run [--draft-id ID] -- CMD ARG...` (or `handoff contract verify` to re-run ' +
  'verification.command), then cite the printed R-… id in evidence_report.verification.receipt (or .receipts); the ' +
  'receipt must belong to this contract chain, pass, and match verification.command.';
