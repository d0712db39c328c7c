/**
 * The lines of an export together, once each was checked on its own (verify.ts): the handoffs walked from genesis
 * with one successor at each step, the head last and matching (the chain it names, the tip, the counts, every line
 * with how it was signed), the chain and tip the caller expects, and the approver policy.
 */
import { IN_FORCE } from './approver.js';
import { SIGNED_MARK, SIGNED_WHEN, type SignedWhen } from './bundle.js';
import { GENESIS, type HeadCounts } from './statement.js';

export type LineKind = 'handoff' | 'receipt' | 'approval' | 'head';

/** How one line was signed, as the signed head states it. */
export interface SignedLine {
  line: number;
  kind: LineKind;
  signed: SignedWhen;
}

export class LineFailure extends Error {
  constructor(
    readonly code: string,
    readonly line: number,
    message: string,
  ) {
    super(message);
  }
}

/** One line, checked on its own. */
export interface Parsed {
  line: number;
  kind: LineKind;
  digest: string;
  /** The `handoffSigned` mark beside the bundle (outside the signature: checked against the head). */
  mark: string;
  /** The statement's first subject name (a head's is `chain:<root>`). */
  subject: string;
  predicate: Record<string, unknown>;
  /** Signed by a key of HANDOFF_APPROVER_KEYS. */
  byApprover: boolean;
}

export const isObject = (v: unknown): v is Record<string, unknown> =>
  typeof v === 'object' && v !== null && !Array.isArray(v);

/** The lines together: one genesis, one successor per step in file order, the head last and matching. */
export function checkWhole(
  parsed: Parsed[],
  total: number,
): { counts: HeadCounts; chain: string; tip: string; statements: SignedLine[] } {
  const fail = (line: number, message: string): never => {
    throw new LineFailure('ATTEST_CHAIN', line, message);
  };
  const handoffs = parsed.filter((p) => p.kind === 'handoff');
  const successor = new Map<string, Parsed>();
  for (const h of handoffs) {
    const prev = String(h.predicate.previous);
    const first = successor.get(prev);
    if (first !== undefined)
      fail(
        h.line,
        `a second successor of ${prev === GENESIS ? 'genesis' : prev} (line ${first.line} is the first): a duplicated or forked handoff line`,
      );
    successor.set(prev, h);
  }
  let expected = GENESIS;
  for (const h of handoffs) {
    if (h.predicate.previous !== expected)
      fail(
        h.line,
        `this handoff does not follow ${expected === GENESIS ? 'genesis' : `the handoff ${expected}`}: a line before it was dropped or moved`,
      );
    expected = h.digest;
  }
  for (const p of parsed)
    if (p.kind === 'head' && p.line !== total) fail(p.line, 'a head statement before the last line');
  const head = parsed[parsed.length - 1];
  if (head === undefined || head.kind !== 'head')
    return fail(total, 'the last line is not the head statement: the file is truncated');
  const counts: HeadCounts = { handoff: handoffs.length, receipt: 0, approval: 0 };
  for (const p of parsed) if (p.kind === 'receipt' || p.kind === 'approval') counts[p.kind]++;
  const stated = isObject(head.predicate.counts) ? head.predicate.counts : {};
  const lines: unknown[] = Array.isArray(head.predicate.lines) ? head.predicate.lines : [];
  const statements: SignedLine[] = [];
  for (let i = 0; i < Math.max(lines.length, parsed.length - 1); i++) {
    const listed = lines[i];
    if (!isObject(listed) || listed.sha256 !== parsed[i]?.digest || i >= parsed.length - 1)
      fail(
        i < parsed.length - 1 ? parsed[i].line : head.line,
        `line ${i + 1} is not the line the head statement lists there: a line was dropped, added or moved`,
      );
    const signed = (listed as Record<string, unknown>).signed;
    if (typeof signed !== 'string' || !SIGNED_WHEN.includes(signed))
      fail(head.line, `the head states no valid "signed" for line ${i + 1}`);
    // The mark outside the signature is only a copy: one that differs from the signed head is a changed file.
    if (parsed[i].mark !== signed)
      fail(
        parsed[i].line,
        `"${SIGNED_MARK}": "${parsed[i].mark}" beside the bundle, but the signed head says "${String(signed)}"`,
      );
    statements.push({ line: parsed[i].line, kind: parsed[i].kind, signed: signed as SignedWhen });
  }
  if (head.mark !== 'at-export') fail(head.line, `the head is signed by the export, not "${head.mark}"`);
  statements.push({ line: head.line, kind: 'head', signed: 'at-export' });
  if (head.predicate.tip !== expected) fail(head.line, 'the head names another tip: the chain was cut');
  const chain = head.subject.startsWith('chain:') ? head.subject.slice('chain:'.length) : '';
  const root = handoffs[0]?.predicate.row;
  if (chain === '' || (isObject(root) && root.contract_id !== chain))
    fail(head.line, `the head names the chain ${JSON.stringify(chain)}, not the chain its first handoff roots`);
  for (const k of ['handoff', 'receipt', 'approval'] as const)
    if (stated[k] !== counts[k])
      fail(head.line, `the head counts ${String(stated[k])} ${k} line(s), the file holds ${counts[k]}`);
  return { counts, chain, tip: expected, statements };
}

/** The file against the chain and tip the caller expects. */
export function checkExpected(
  req: { chain?: string; tip?: string },
  parsed: Parsed[],
  whole: { chain: string; tip: string },
): void {
  const head = parsed[parsed.length - 1].line;
  if (req.chain !== undefined && req.chain !== whole.chain) {
    const held = parsed.some(
      (p) => p.kind === 'handoff' && isObject(p.predicate.row) && p.predicate.row.contract_id === req.chain,
    );
    if (!held)
      throw new LineFailure(
        'ATTEST_CHAIN',
        head,
        `this file is the chain of ${whole.chain}, and ${req.chain} is not in it: a file of another chain`,
      );
  }
  if (req.tip !== undefined && req.tip !== whole.tip)
    throw new LineFailure('ATTEST_CHAIN', head, `the chain's tip is ${whole.tip}, not ${req.tip}`);
}

/**
 * The approver policy over the approval lines: an approval with a decision in force (approved, used) needs a line
 * signed by an approver key, and the last such line must itself be in force over the same content.
 */
export function checkApprovers(parsed: Parsed[]): void {
  const byId = new Map<string, Parsed[]>();
  for (const p of parsed)
    if (p.kind === 'approval')
      byId.set(String(p.predicate.approval_id), [...(byId.get(String(p.predicate.approval_id)) ?? []), p]);
  for (const [id, lines] of byId) {
    const inForce = lines.find((l) => IN_FORCE.has(String(l.predicate.decision)));
    if (inForce === undefined) continue;
    const signed = lines.filter((l) => l.byApprover);
    const last = signed[signed.length - 1];
    if (last === undefined)
      throw new LineFailure(
        'APPROVAL_UNSIGNED',
        inForce.line,
        `approval ${id} is in force but no key of HANDOFF_APPROVER_KEYS signed a decision on it`,
      );
    if (
      !IN_FORCE.has(String(last.predicate.decision)) ||
      last.predicate.fingerprint !== inForce.predicate.fingerprint
    ) {
      throw new LineFailure(
        'APPROVAL_SIGNATURE_INVALID',
        last.line,
        `the approver's latest signed decision on approval ${id} does not put this content in force`,
      );
    }
  }
}
