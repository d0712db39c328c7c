/** Flag checks shared by the brief and evidence verbs; all run before any file or DB access (exit 2). */
import { HandoffError, jsonQuote, usage } from '../errors.js';
import { checkSlug } from './slug.js';

export const EVIDENCE_TYPES = ['text', 'file', 'command_output', 'url', 'screenshot'] as const;
export type EvidenceTypeName = (typeof EVIDENCE_TYPES)[number];

export const isEvidenceType = (v: unknown): v is EvidenceTypeName =>
  typeof v === 'string' && (EVIDENCE_TYPES as readonly string[]).includes(v);

export const isBlank = (v: string): boolean => v.trim() === '';

/** A string flag's value (parseArgs gives the last one when repeated without `multiple`). */
export const str = (v: unknown): string | undefined => (typeof v === 'string' ? v : undefined);

/** Optional free text that must not be blank when given. */
export function nonBlankFlag(value: string | undefined, flag: string): string | undefined {
  if (value !== undefined && isBlank(value)) throw usage(`${flag} must not be blank`);
  return value;
}

/** Optional free text where blank means "not given" (stored NULL). */
export const blankToNull = (value: string | undefined): string | null =>
  value === undefined || isBlank(value) ? null : value;

export interface AcSpec {
  ac_id: string;
  description: string;
}

/** `--ac AC_ID=DESCRIPTION` values: split on the first `=`, slug id, non-blank description, no id twice (ignoring case). */
export function parseAcFlags(values: string[]): AcSpec[] {
  const out: AcSpec[] = [];
  for (const v of values) {
    const eq = v.indexOf('=');
    if (eq === -1) throw usage(`--ac ${jsonQuote(v)} must be AC_ID=DESCRIPTION`);
    const acId = checkSlug(v.slice(0, eq), '--ac id');
    const description = v.slice(eq + 1);
    if (isBlank(description)) throw usage(`--ac ${jsonQuote(acId)} needs a non-blank description after "="`);
    const twin = out.find((a) => a.ac_id.toLowerCase() === acId.toLowerCase());
    if (twin !== undefined) {
      throw new HandoffError(
        'DUPLICATE_AC',
        `--ac ${jsonQuote(acId)} is given twice (ac ids are unique ignoring case; first given as ${jsonQuote(twin.ac_id)})`,
        { ac_id: acId },
      );
    }
    out.push({ ac_id: acId, description });
  }
  return out;
}

/** `evidence show ID`: a canonical positive decimal ≤ 2^53−1, or a receipt id `R-` + 16 lowercase hex. */
export type ShowId = { kind: 'evidence'; id: number } | { kind: 'receipt'; id: string };

export const RECEIPT_ID_RE = /^R-[0-9a-f]{16}$/;

export function parseShowId(raw: string): ShowId {
  if (RECEIPT_ID_RE.test(raw)) return { kind: 'receipt', id: raw };
  if (/^[1-9][0-9]*$/.test(raw)) {
    const n = Number(raw);
    if (Number.isSafeInteger(n)) return { kind: 'evidence', id: n };
  }
  throw usage(
    `ID ${jsonQuote(raw)} is neither an evidence id (a positive integer such as 12) nor a receipt id (R- and 16 lowercase hex digits)`,
  );
}
