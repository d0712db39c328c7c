/**
 * `attest export`: one chain as JSON Lines of Sigstore bundles. Order: the finalized handoffs root first (each the
 * stored statement whose `previous` is the line before it, else a statement built and signed now), the receipts of
 * the chain's contracts (oldest first), the decisions on the approvals the chain cites, then the head. Read-only on the store; the
 * file is written whole to a temporary name and renamed, so a failed export leaves no partial file.
 */
import { closeSync, fsyncSync, openSync, renameSync, writeSync } from 'node:fs';
import { resolve } from 'node:path';
import { HandoffError } from '../errors.js';
import type { Env } from '../paths.js';
import type { AttestationRow } from '../store/attestations.js';
import type { HandoffRow } from '../store/handoff-row.js';
import type { StoreReads } from '../store/store.js';
import { unlinkQuiet } from '../fs-util.js';
import { citedApprovalKey } from '../validator/index.js';
import type { SigningKey } from '../keys/key-file.js';
import { bundleOfSigned, bundleSignedNow, lineText, type SignedWhen } from './bundle.js';
import { storeSigner } from './signer.js';
import {
  approvalStatement,
  GENESIS,
  handoffStatement,
  headStatement,
  payloadOf,
  receiptStatement,
  sha256Hex,
  type HeadCounts,
  type Statement,
} from './statement.js';

export interface ExportRequest {
  id: string;
  /** true: the whole chain; false: root up to `id`. */
  whole: boolean;
  out: string;
}

export interface ExportReport {
  out: string;
  lines: number;
  counts: HeadCounts;
  signedNow: number;
  tip: string;
  keyId: string;
}

export interface Line {
  payload: Buffer;
  digest: string;
  /** Stored signature (base64) and its key, when signed at write time. */
  stored?: { signature: string; keyId: string };
}

const rowNotFound = (id: string): HandoffError =>
  new HandoffError('ROW_NOT_FOUND', `no handoff row for ${id}; only a finalized chain can be exported`, {
    contract_id: id,
  });

export const keyRequired = (): HandoffError =>
  new HandoffError(
    'KEY_REQUIRED',
    'attest export signs its head statement (and whatever was never signed): set HANDOFF_SIGNING_KEY to a private key file; nothing was written',
    {},
    'Generate one with `handoff key generate` and export HANDOFF_SIGNING_KEY=<its .key file>.',
  );

const fromStored = (a: AttestationRow): Line => ({
  payload: Buffer.from(a.payload, 'utf8'),
  digest: a.payload_sha256,
  ...(a.signature !== null && a.key_id !== null ? { stored: { signature: a.signature, keyId: a.key_id } } : {}),
});

const fresh = (s: Statement): Line => {
  const payload = payloadOf(s);
  return { payload, digest: sha256Hex(payload) };
};

const predicateOf = (a: AttestationRow): Record<string, unknown> => {
  try {
    return (JSON.parse(a.payload) as { predicate?: Record<string, unknown> }).predicate ?? {};
  } catch {
    return {};
  }
};

export async function handoffLines(
  s: StoreReads,
  rows: readonly HandoffRow[],
): Promise<{ lines: Line[]; tip: string }> {
  const lines: Line[] = [];
  let previous = GENESIS;
  for (const row of rows) {
    if (row.finalized_at === null) continue;
    const stored = (await s.listAttestations('handoff', row.contract_id))
      .filter((a) => predicateOf(a).previous === previous)
      .pop();
    const line =
      stored !== undefined
        ? fromStored(stored)
        : fresh(handoffStatement(row, await s.citedBlobs(Number(row.id)), previous));
    lines.push(line);
    previous = line.digest;
  }
  return { lines, tip: previous };
}

async function receiptLines(s: StoreReads, contractIds: string[]): Promise<Line[]> {
  const receipts = (await s.listReceiptsByContracts(contractIds)).reverse();
  const lines: Line[] = [];
  for (const r of receipts) {
    const stored = await s.latestAttestation('receipt', r.receipt_id);
    lines.push(stored !== undefined ? fromStored(stored) : fresh(receiptStatement(r)));
  }
  return lines;
}

async function approvalLines(s: StoreReads, rows: readonly HandoffRow[]): Promise<Line[]> {
  const ids: string[] = [];
  for (const row of rows) {
    if (row.finalized_at === null) continue;
    let envelope: unknown;
    try {
      envelope = JSON.parse(row.raw_handoff_json);
    } catch {
      continue;
    }
    const key = citedApprovalKey(envelope);
    if (key !== undefined && !ids.includes(key)) ids.push(key);
  }
  const lines: Line[] = [];
  for (const id of ids) {
    const row = await s.getApproval(id);
    if (row === undefined) continue;
    // Every stored decision, as signed (an approver's signature stays the approver's; the use is the store's), then
    // the row as it is now when no stored statement states it.
    const stored = await s.listAttestations('approval', id);
    for (const a of stored) lines.push(fromStored(a));
    const p = stored.length === 0 ? undefined : predicateOf(stored[stored.length - 1]);
    if (p === undefined || p.decision !== row.status || p.fingerprint !== row.fingerprint)
      lines.push(fresh(approvalStatement(row)));
  }
  return lines;
}

async function toText(line: Line, key: SigningKey): Promise<{ text: string; now: boolean }> {
  const when: SignedWhen = line.stored !== undefined ? 'at-write' : 'at-export';
  const bundle =
    line.stored !== undefined
      ? await bundleOfSigned(line.payload, line.stored.signature, line.stored.keyId)
      : await bundleSignedNow(line.payload, key);
  return { text: lineText(bundle, when), now: when === 'at-export' };
}

export async function exportChain(env: Env, cwd: string, req: ExportRequest): Promise<ExportReport> {
  const out = resolve(cwd, req.out);
  const { withStore } = await import('../store/open-store.js');
  const collected = await withStore(
    env,
    cwd,
    'reader',
    async (s) => {
      const row = await s.getHandoffByContractId(req.id);
      if (row === undefined) throw rowNotFound(req.id);
      // The key is read once the chain is known, before anything is signed or written.
      if (storeSigner(env, cwd) === undefined) throw keyRequired();
      const chain = req.whole ? await s.wholeChain(row) : (await s.walkBack(row)).reverse();
      const h = await handoffLines(s, chain);
      const receipts = await receiptLines(
        s,
        chain.map((r) => r.contract_id),
      );
      const approvals = await approvalLines(s, chain);
      return { root: chain[0].contract_id, ...h, receipts, approvals };
    },
    () => {
      throw rowNotFound(req.id);
    },
  );
  const signer = storeSigner(env, cwd)!;
  const assembled = await assembleExport(collected, signer.key);
  writeWhole(out, assembled.text);
  return {
    out,
    lines: assembled.lines,
    counts: assembled.counts,
    signedNow: assembled.signedNow,
    tip: collected.tip,
    keyId: signer.key.keyId,
  };
}

export interface Collected {
  root: string;
  tip: string;
  lines: Line[];
  receipts: Line[];
  approvals: Line[];
}

/** The file's text from the collected lines: each as a bundle (stored signature, else signed now), the head last. */
export async function assembleExport(
  collected: Collected,
  key: SigningKey,
): Promise<{ text: string; lines: number; counts: HeadCounts; signedNow: number }> {
  const body = [...collected.lines, ...collected.receipts, ...collected.approvals];
  const counts: HeadCounts = {
    handoff: collected.lines.length,
    receipt: collected.receipts.length,
    approval: collected.approvals.length,
  };
  const head = fresh(
    headStatement(
      collected.root,
      collected.tip,
      counts,
      body.map((l) => ({ sha256: l.digest, signed: l.stored !== undefined ? 'at-write' : 'at-export' })),
    ),
  );
  const texts: string[] = [];
  let signedNow = 0;
  for (const line of [...body, head]) {
    const t = await toText(line, key);
    texts.push(t.text);
    if (t.now) signedNow++;
  }
  return { text: `${texts.join('\n')}\n`, lines: texts.length, counts, signedNow };
}

export function writeWhole(path: string, text: string): void {
  const tmp = `${path}.tmp-${process.pid}`;
  let fd: number | undefined;
  try {
    fd = openSync(tmp, 'wx', 0o644);
    writeSync(fd, text);
    fsyncSync(fd);
    closeSync(fd);
    fd = undefined;
    renameSync(tmp, path);
  } catch (e) {
    if (fd !== undefined) closeSync(fd);
    unlinkQuiet(tmp);
    throw new HandoffError(
      'UNREADABLE_INPUT',
      `cannot write ${JSON.stringify(path)}: ${(e as NodeJS.ErrnoException).code ?? (e as Error).message}; nothing was written`,
      { path },
    );
  }
}
