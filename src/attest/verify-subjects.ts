/** Every subject digest of a statement recomputed from its own signed predicate (attest verify). */
import { canonicalJson } from '../receipts/jcs.js';
import { envelopeDigest, GENESIS, handoffSubject, sha256Hex } from './statement.js';

type Subj = { name?: unknown; digest?: { sha256?: unknown } };

const HEX = /^[0-9a-f]{64}$/;

function digestOf(s: unknown): string | undefined {
  const d = (s as Subj | null)?.digest?.sha256;
  return typeof d === 'string' && HEX.test(d) ? d : undefined;
}

/** Undefined when every subject matches; else what does not. */
export function subjectFinding(kind: string, subjects: unknown[], p: Record<string, unknown>): string | undefined {
  if (
    subjects.length === 0 ||
    subjects.some((s) => digestOf(s) === undefined || typeof (s as Subj).name !== 'string')
  ) {
    return 'a subject without a name or a sha256 digest';
  }
  const names = subjects.map((s) => (s as Subj).name as string);
  const digests = subjects.map(digestOf) as string[];
  switch (kind) {
    case 'handoff': {
      const row = p.row as Record<string, unknown> | undefined;
      if (typeof row?.contract_id !== 'string' || names[0] !== handoffSubject(row.contract_id))
        return 'the first subject does not name the handoff';
      let digest: string;
      try {
        digest = envelopeDigest(p.envelope);
      } catch {
        return 'the envelope cannot be canonicalized';
      }
      if (digests[0] !== digest) return `the envelope's RFC 8785 digest is ${digest}, the subject says ${digests[0]}`;
      if (typeof p.previous !== 'string' || (p.previous !== GENESIS && !HEX.test(p.previous)))
        return 'the previous link is neither "genesis" nor a digest';
      return undefined;
    }
    case 'receipt': {
      const r = p.receipt as Record<string, unknown> | undefined;
      if (r === undefined) return 'no receipt in the predicate';
      const want = [
        [`receipt:${String(r.receipt_id)}`, r.row_sha256],
        [`receipt:${String(r.receipt_id)}/stdout`, r.stdout_sha256],
        [`receipt:${String(r.receipt_id)}/stderr`, r.stderr_sha256],
      ];
      if (want.length !== names.length || want.some(([n, d], i) => names[i] !== n || digests[i] !== d))
        return "the subjects differ from the receipt's digests";
      const expected = r.outcome === 'pass' ? 'PASSED' : r.outcome === 'fail' ? 'FAILED' : 'WARNED';
      if (p.result !== expected)
        return `the result ${String(p.result)} does not follow the outcome ${String(r.outcome)}`;
      return undefined;
    }
    case 'approval': {
      if (typeof p.exact_content !== 'string') return 'no exact content in the predicate';
      const fp = sha256Hex(Buffer.from(p.exact_content, 'utf8'));
      if (
        names.length !== 1 ||
        names[0] !== `approval:${String(p.approval_id)}` ||
        digests[0] !== fp ||
        p.fingerprint !== fp
      ) {
        return `the content's sha256 is ${fp}; the subject or the fingerprint says otherwise`;
      }
      return undefined;
    }
    default: {
      const tip = p.tip;
      const want = tip === GENESIS ? sha256Hex('') : tip;
      if (names.length !== 1 || digests[0] !== want) return 'the head subject is not its tip';
      return canonicalJson(p.counts ?? null) === undefined ? 'no counts' : undefined;
    }
  }
}
