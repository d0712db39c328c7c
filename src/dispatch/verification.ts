/**
 * `contract dispatch --verification` and `--check`: which evidence a COMPLETE close of the
 * turn needs. Flag and variable checks only (exit 2); no store access. The rules themselves are
 * src/finalize/verification-policy.ts.
 */
import { jsonQuote, usage } from '../errors.js';
import type { Env } from '../paths.js';
import type { VerificationPolicy } from '../store/handoff-row.js';

export const VERIFICATION_POLICIES: readonly VerificationPolicy[] = ['receipt', 'typed', 'any'];
/** The project default for dispatches that name no policy. */
export const VERIFICATION_ENV = 'HANDOFF_DISPATCH_VERIFICATION';
const MAX_CHECKS = 32;
const MAX_CHECK_LENGTH = 4096;

const isPolicy = (v: string): v is VerificationPolicy => (VERIFICATION_POLICIES as readonly string[]).includes(v);

function policyOf(value: string, where: string): VerificationPolicy {
  if (!isPolicy(value))
    throw usage(`${where} ${jsonQuote(value)} is not a verification policy (receipt, typed or any)`, {
      allowed: VERIFICATION_POLICIES,
    });
  return value;
}

/**
 * The policy: `--verification`, else `--require-receipt` (kept as `--verification receipt`), else
 * $HANDOFF_DISPATCH_VERIFICATION, else `typed` for the kind `investigation` and `receipt` for every other kind.
 */
export function resolveVerification(
  flag: string | undefined,
  requireReceipt: boolean,
  env: Env,
  kind: string,
): VerificationPolicy {
  if (flag !== undefined) {
    const policy = policyOf(flag, '--verification');
    if (requireReceipt && policy !== 'receipt')
      throw usage(
        `--require-receipt means --verification receipt; it cannot be combined with --verification ${policy}`,
      );
    return policy;
  }
  if (requireReceipt) return 'receipt';
  const fromEnv = env[VERIFICATION_ENV];
  if (fromEnv !== undefined && fromEnv !== '') return policyOf(fromEnv, `$${VERIFICATION_ENV}`);
  return kind === 'investigation' ? 'typed' : 'receipt';
}

/** Repeatable `--check CMD`: trimmed, non-blank, single-line, duplicates dropped (first order kept). */
export function checkList(values: readonly string[]): string[] {
  const out: string[] = [];
  for (const raw of values) {
    const v = raw.trim();
    // eslint-disable-next-line no-control-regex -- a check is one command line: control characters are refused
    if (v === '' || v.length > MAX_CHECK_LENGTH || /[\u0000-\u001f\u007f]/.test(v))
      throw usage(
        `--check ${jsonQuote(raw)} must be one non-blank command line of at most ${MAX_CHECK_LENGTH} characters`,
      );
    if (!out.includes(v)) out.push(v);
  }
  if (out.length > MAX_CHECKS) throw usage(`at most ${MAX_CHECKS} --check commands`);
  return out;
}

/** The close rules of the policy and the checks (contract block and `close_rules`), for contract `id`. */
export function verificationRules(
  id: string,
  policy: VerificationPolicy,
  checks: readonly string[],
): { id: string; text: string }[] {
  const run = `handoff evidence run --draft-id ${id} -- <command> (or handoff contract verify --draft-id ${id})`;
  const text: Record<VerificationPolicy, string> = {
    receipt:
      `verification policy receipt: COMPLETE needs evidence_report.verification.type command (or code) with its command, ` +
      `result "pass" and, in evidence_report.verification.receipt, the id of a passing receipt of that same command ` +
      `recorded after your last change: run ${run}; a stale receipt cannot close COMPLETE (not even with --allow-stale). ` +
      `A command/code claim in NEEDS_VERIFICATION must cite a receipt too. Without a receipt, close NEEDS_VERIFICATION ` +
      `with another claim type for a verifier`,
    typed:
      'verification policy typed: COMPLETE needs a typed claim in evidence_report.verification: type command or code ' +
      'with command (best with a receipt: ' +
      `${run}), semantic with requires_human, or self_review with reviewed; a pass without a type is refused`,
    any:
      'verification policy any: COMPLETE needs evidence_report.verification.result "pass"; state what was checked ' +
      `with a type and its companion, and cite a receipt for a command (${run})`,
  };
  const rules = [{ id: 'verification', text: text[policy] }];
  if (checks.length > 0) {
    rules.push({
      id: 'checks',
      text:
        `before COMPLETE, each of these commands needs its own passing, fresh receipt in this contract's chain ` +
        `(handoff evidence run --draft-id ${id} -- <command>): ${checks.map((c) => JSON.stringify(c)).join(', ')}`,
    });
  }
  return rules;
}
