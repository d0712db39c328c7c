/**
 * Per-error detail texts. Wording is ours; the required content is pinned by tests
 * (`order` in every cross-field detail, `NOTHING`/`strips` for MISPLACED_KEY, the patterns, `[]`, ...).
 * Values are always rendered as bounded JSON text (render.ts).
 */
import {
  AGENT_ID_RE,
  AGENT_STATES,
  OWNERSHIP_ASSESSMENTS,
  PHASES,
  RECEIPT_ID_RE,
  SEVERITIES,
  SYSTEM_ROOT_KEYS,
  type Level,
} from '../envelope/vocabulary.js';
import { article, quote } from './render.js';
import type { ValidationSource } from './types.js';

const STATES_TEXT = AGENT_STATES.join(', ');
const AGENT_ID_PATTERN = AGENT_ID_RE.source;
const RECEIPT_PATTERN = RECEIPT_ID_RE.source;
const ID_ORIGIN =
  'copy it verbatim from the output of `handoff contract init` or from the "your contract" block of your dispatch';
const ORDER_VERIFICATION = 'Build order: write the companion in the same fill as verification.type, or before it.';
/** The fill line of a claim that rests on a receipt; `<cmd>` and `<receipt id>` are the caller's. */
const RECEIPT_VERIFICATION_FILL = `handoff contract fill --json '{"evidence_report":{"verification":{"type":"command","command":"<cmd>","result":"pass","receipt":"<receipt id>"}}}'`;

const SYSTEM_KEYS: ReadonlySet<string> = new Set(SYSTEM_ROOT_KEYS);
const levelName = (level: Level): string => (level === 'root' ? 'the root' : level);
const homePath = (key: string, home: Level): string => (home === 'root' ? key : `${home}.${key}`);

export const details = {
  notAnObject(value: unknown, source: ValidationSource): string {
    const got =
      value === null
        ? 'null'
        : value === undefined
          ? 'nothing'
          : Array.isArray(value)
            ? 'an array'
            : `a ${typeof value}`;
    return source === 'row'
      ? `The stored value is not an object (got ${got}); a stored envelope must be a JSON object.`
      : `The envelope must be a JSON object, got ${got}.`;
  },

  missing(path: string): string {
    switch (path) {
      case 'agent_status':
        return 'agent_status is missing or empty: write agent_state, agent_id, pending_steps and next_action.';
      case 'agent_status.agent_state':
        return `agent_status.agent_state is missing or blank: write one of ${STATES_TEXT}.`;
      case 'agent_status.next_action':
        return 'agent_status.next_action is missing or blank: write a non-empty string (what you do next; "done" to close COMPLETE).';
      case 'agent_status.agent_id':
        return `agent_status.agent_id is missing or blank: ${ID_ORIGIN}.`;
      case 'agent_status.pending_steps':
        return "agent_status.pending_steps is missing: the key must be present; [] (or null) is a valid value (handoff contract set agent_status.pending_steps '[]').";
      case 'evidence_report':
        return 'evidence_report is missing or empty: it needs all seven lists; [] is a valid value for each.';
      default:
        return `${path} is missing: write it; [] is a valid value (handoff contract set ${path} '[]').`;
    }
  },

  planStatus(value: string, normalized: string): string {
    const rowOnly =
      normalized === 'DISPATCHED' ? ' DISPATCHED is a row-only state set by dispatch; an agent never writes it.' : '';
    return `agent_status.agent_state ${quote(value)} is not a valid state; use one of ${STATES_TEXT}.${rowOnly}`;
  },

  agentIdFormat(value: unknown): string {
    return `agent_status.agent_id ${quote(value)} does not match the pattern ${AGENT_ID_PATTERN} ("a" then at least 16 lower-case hex digits, nothing around it): ${ID_ORIGIN}.`;
  },

  fieldType(path: string, expected: string, received: string, value?: unknown): string {
    const base = `${path} must be ${article(expected)}, got ${received}.`;
    // A shell VALUE such as 42 or true parses as JSON; the quoted form keeps it as text.
    if (expected === 'string' && (typeof value === 'number' || typeof value === 'boolean')) {
      const text = JSON.stringify(String(value));
      return `${base} To store it as text, quote it: '${text}' (set ${path} '${text}'; in JSON: ${text}).`;
    }
    return base;
  },

  misplaced(key: string, level: Level, home: Level): string {
    const target = homePath(key, home);
    const where = home === 'root' ? `the root (${target})` : target;
    const fix =
      key === 'agent_state'
        ? "the agent's own state is agent_status.agent_state: write it there"
        : SYSTEM_KEYS.has(key)
          ? 'it is a system key only the tool writes: remove it here'
          : `write the value at ${target} instead`;
    return `${quote(key)} does not belong in ${levelName(level)}; its home is ${where}. The rejected write persisted NOTHING; ${fix}. A copy inherited from an older draft is not kept: the next write strips it.`;
  },

  unknown(key: string, level: Level, nearest: string | undefined, allowed: readonly string[]): string {
    const head = `${quote(key)} is not a key of ${levelName(level)}.`;
    return nearest !== undefined
      ? `${head} Did you mean "${nearest}"?`
      : `${head} Keys you may write here: ${allowed.join(', ')}.`;
  },

  companion(word: string, owed: 'command' | 'requires_human' | 'reviewed'): string {
    const rule = owed === 'requires_human' ? 'a truthy requires_human (e.g. true)' : `a non-empty string ${owed}`;
    return `verification.type folds to ${quote(word)}, which owes ${rule}. ${ORDER_VERIFICATION}`;
  },

  unknownClaim(type: unknown, word: string | null): string {
    const shown = word === null ? quote(type) : quote(word);
    return `verification.type ${shown} is a claim and owes at least one of: a non-empty command, a non-empty reviewed, a truthy requires_human. verification.type "none" claims nothing. ${ORDER_VERIFICATION}`;
  },

  verificationMissing(): string {
    return `COMPLETE needs evidence_report.verification as an object whose result is "pass", with a typed claim saying what was checked. Build order: run the check with \`handoff evidence run -- <cmd>\` (it prints a receipt id), fill the claim, set the state last, e.g. ${RECEIPT_VERIFICATION_FILL} (other claims: semantic with requires_human, self_review with reviewed).`;
  },

  verificationResult(value: unknown): string {
    return `evidence_report.verification.result is ${quote(value)}; COMPLETE requires "pass". A check that did not pass closes another state (e.g. NEEDS_VERIFICATION or BLOCKED). Build order: write the result first, set the state last.`;
  },

  completeNextAction(value: unknown): string {
    return `COMPLETE requires agent_status.next_action "done", got ${quote(value)}: handoff contract set agent_status.next_action done. Build order: fix it before setting COMPLETE.`;
  },

  completePendingSteps(): string {
    return `COMPLETE requires agent_status.pending_steps [] (or null): handoff contract set agent_status.pending_steps '[]'. Build order: fix it before setting COMPLETE.`;
  },

  receiptRef(path: string, value: unknown): string {
    const what = path.endsWith('.receipts')
      ? 'receipts must be a non-empty list of receipt ids'
      : 'must be a receipt id';
    return `${path} is ${quote(value)}: ${what}. receipt is one id and receipts a non-empty list of ids, each matching ${RECEIPT_PATTERN}; ids come from handoff evidence run or handoff contract verify (copy them verbatim). null or absent means no receipt is cited.`;
  },

  approvalBlock(): string {
    return 'APPROVAL_REQUEST needs approval_request as a non-empty object with exact_content: the exact command or content the user approves. Build order: write approval_request first (or in the same fill), set the state last.';
  },

  approvalExactContent(value: unknown): string {
    return `approval_request.exact_content is ${quote(value)}: APPROVAL_REQUEST needs a non-empty string, the exact command or content the user approves. Build order: write it before (or in the same fill as) the state.`;
  },

  consolidation(subField: string | undefined): string {
    const rules: Record<string, string> = {
      ownership_assessment: `must be one of ${OWNERSHIP_ASSESSMENTS.join(', ')}`,
      next_best_agent: 'must be present: null (nobody) or a non-empty string',
    };
    const rule =
      subField === undefined
        ? 'consolidation_report must be a non-empty object (this turn is marked consolidation work)'
        : `consolidation_report.${subField} ${rules[subField] ?? 'must be present and an array ([] is a valid "none")'}`;
    return `${rule}. Write the whole block in one fill --json (ownership_assessment, confirmed_findings, suspected_findings, conflicts, open_gaps, next_best_agent). Build order: before the closing state.`;
  },

  failureReport(subField: string | undefined): string {
    const rules: Record<string, string> = {
      attempted: 'failure_report.attempted must be a non-empty string',
      symptom: 'failure_report.symptom must be a non-empty string',
      evidence: 'failure_report.evidence must be an array with at least one non-empty string',
      severity: `failure_report.severity, when not null, must be one of ${SEVERITIES.join(', ')}`,
    };
    const rule = subField === undefined ? 'failure_report must be an object' : rules[subField];
    return `${rule}. Write the block whole in one fill --json ({"attempted","symptom","evidence":[...]}); omitting it (or null) is always valid.`;
  },

  workPhase(value: unknown): string {
    return `work_phase ${quote(value)} is not a phase: use one of ${PHASES.join(', ')}; null is allowed.`;
  },

  fileReference(path: string, subField: string): string {
    const rule =
      subField === 'path'
        ? 'path must be a non-empty string'
        : subField === 'commit'
          ? 'commit must be a commit hash of 7-64 hex digits'
          : `${quote(subField)} is not allowed: a file reference is {path, commit} only`;
    return `${path}: ${rule}. An object element of a files list is a file reference {"path","commit"} (commit 7-64 hex); a plain string element is always accepted.`;
  },

  /** `id` is the trimmed string id, or the raw value when it is not a string. */
  approvalNotPending(id: unknown, status: string | undefined): string {
    return status === undefined
      ? `approval_request.approval_id ${quote(id)} does not resolve to any approval.`
      : `approval_request.approval_id ${quote(id)} resolves to status ${quote(status)}, not "pending"${status === 'approved' ? ' (an approved approval is cited by the executing turn, in a state other than APPROVAL_REQUEST)' : ''}.`;
  },

  /** The approval belongs to another chain (`owner`: `contract "…"`, `agent "…"`, or that it names neither). */
  approvalForeign(id: unknown, owner: string): string {
    return `approval_request.approval_id ${quote(id)} belongs to ${owner}, not to this contract's continuation chain or agent: request your own approval with \`handoff approval request --draft-id <your contract_id>\`.`;
  },

  /** exact_content is not the content the approval was requested for. */
  approvalContentMismatch(id: unknown): string {
    return `approval_request.exact_content is not the exact content approval ${quote(id)} was requested for (missing, or its sha256 differs from the approval's fingerprint): write the content byte for byte with the fill input printed by \`handoff approval request\` or \`handoff approval show\`.`;
  },

  /** The approval was used by another handoff: an approval authorizes one executing turn. */
  approvalAlreadyUsed(id: unknown, handoffId: number | null): string {
    return `approval_request.approval_id ${quote(id)} was already used${handoffId === null ? '' : ` by handoff ${handoffId}`}: an approval authorizes one executing turn; request a new approval for another run.`;
  },

  /** A closing state other than APPROVAL_REQUEST executes the approved content: a pending approval is not yet that. */
  approvalNotApproved(id: unknown): string {
    return `approval_request.approval_id ${quote(id)} is still pending: a turn closing in a state other than APPROVAL_REQUEST executes approved content. Close APPROVAL_REQUEST and wait for \`handoff approval decide\`, or remove approval_id.`;
  },
};
