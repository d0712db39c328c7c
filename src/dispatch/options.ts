/**
 * `contract dispatch` flag rules and kind rules. Everything here runs before any
 * store access; a failure is exit 2 (the goal file's reader errors included).
 */
import { HandoffError, jsonQuote, usage } from '../errors.js';
import { checkAgentId } from '../ids.js';
import { checkRegularFile, readUtf8File } from '../input/files.js';
import { checkSlug } from '../evidence/slug.js';
import { resolveWorkspace, type Env } from '../paths.js';
import { resolveWorkdir, testGlobs } from './test-base.js';
import { dispatchPatterns } from '../approvals/patterns.js';
import type { VerificationPolicy } from '../store/handoff-row.js';
import { checkList, resolveVerification } from './verification.js';

export const KIND_RE = /^[a-z][a-z0-9_-]{0,31}$/;
export const HARNESS_ID_RE = /^[A-Za-z0-9][A-Za-z0-9._:-]{0,199}$/;
/** C0 controls, DEL and C1 controls. */
const hasControl = (s: string): boolean =>
  [...s].some((ch) => {
    const c = ch.codePointAt(0) as number;
    return c < 0x20 || (c >= 0x7f && c <= 0x9f);
  });
const POSITIVE_INT_RE = /^[1-9][0-9]*$/;

export interface DispatchRequest {
  goal: string;
  kind: string;
  planTaskId?: string;
  parentHandoffId?: number;
  brief?: string;
  consolidation: boolean;
  requireReceipt: boolean;
  verification: VerificationPolicy;
  checks: string[];
  canWrite: string[];
  acceptance: string[];
  agentId?: string;
  harnessId?: string;
  workspace: string;
  /** The test base's work directory (a real path), globs and --protect-tests. */
  tests: { workdir: string; globs: string[]; protect: boolean };
  /** Approval patterns (flags, then HANDOFF_APPROVAL_PATTERNS), checked. */
  requireApproval: string[];
}

export interface DispatchFlags {
  goal?: string;
  goalFile?: string;
  kind?: string;
  planTaskId?: string;
  parentHandoffId?: string;
  brief?: string;
  consolidation?: boolean;
  requireReceipt?: boolean;
  verification?: string;
  checks?: string[];
  canWrite?: string[];
  acceptance?: string[];
  agentId?: string;
  harnessId?: string;
  workspace?: string;
  workdir?: string;
  tests?: string[];
  protectTests?: boolean;
  requireApproval?: string[];
}

/** The plan-task rule shared with finalize and list: opaque, non-blank, at most 200 characters, no controls. */
export function checkPlanTaskId(value: string | undefined, flag = '--plan-task-id'): string | undefined {
  if (value === undefined) return undefined;
  if (value.trim() === '' || value.length > 200 || hasControl(value)) {
    throw usage(`${flag} ${jsonQuote(value)} must be non-blank, at most 200 characters, without control characters`);
  }
  return value;
}

/** A harness run id: `^[A-Za-z0-9][A-Za-z0-9._:-]{0,199}$`. */
export function checkHarnessId(value: string | undefined, flag = '--harness-id'): string | undefined {
  if (value === undefined) return undefined;
  if (!HARNESS_ID_RE.test(value)) {
    throw usage(`${flag} ${jsonQuote(value)} is not a harness run id (pattern ^[A-Za-z0-9][A-Za-z0-9._:-]{0,199}$)`);
  }
  return value;
}

export function checkPositiveInt(value: string | undefined, flag: string): number | undefined {
  if (value === undefined) return undefined;
  const n = Number(value);
  if (!POSITIVE_INT_RE.test(value) || !Number.isSafeInteger(n))
    throw usage(`${flag} ${jsonQuote(value)} is not a positive integer`);
  return n;
}

/** The resulting kind, and the extra rules of `verifier` and `task_execution`. */
export function resolveKind(
  kind: string | undefined,
  planTaskId: string | undefined,
  parentHandoffId: number | undefined,
): string {
  if (kind !== undefined && !KIND_RE.test(kind))
    throw usage(`--kind ${jsonQuote(kind)} must match ^[a-z][a-z0-9_-]{0,31}$`);
  const resolved =
    kind ??
    (planTaskId !== undefined ? 'task_execution' : parentHandoffId !== undefined ? 'verifier' : 'investigation');
  if (resolved === 'verifier') {
    if (parentHandoffId === undefined) {
      throw new HandoffError(
        'VERIFIER_REQUIRES_PARENT',
        'a verifier dispatch needs --parent-handoff-id (the producer row it verifies)',
      );
    }
    if (planTaskId !== undefined) {
      throw new HandoffError(
        'VERIFIER_PLAN_BOUND',
        'a verifier must not be bound to a plan task (a bound verifier could never close COMPLETE); drop --plan-task-id',
      );
    }
  }
  if (resolved === 'task_execution' && planTaskId === undefined) {
    throw new HandoffError('TASK_EXECUTION_REQUIRES_PLAN_TASK', 'a task_execution dispatch needs --plan-task-id');
  }
  return resolved;
}

/** Repeatable `--can-write`: each a safe slug; duplicates dropped, first order kept. */
function canWriteList(values: string[]): string[] {
  const out: string[] = [];
  for (const v of values) {
    checkSlug(v, '--can-write');
    if (!out.includes(v)) out.push(v);
  }
  return out;
}

/** A dispatch goal is at most 64 KiB (UTF-8, as stored); longer goals belong in a brief. */
export const MAX_GOAL_BYTES = 64 * 1024;
/** A goal file larger than this is refused from its size, without being read. */
const MAX_GOAL_FILE_BYTES = 1024 * 1024;

const goalTooLarge = (bytes: number, what: string): HandoffError =>
  new HandoffError(
    'GOAL_TOO_LARGE',
    `${what} is ${bytes} bytes; a goal is at most ${MAX_GOAL_BYTES} bytes (64 KiB), so nothing was dispatched`,
    { bytes, limit: MAX_GOAL_BYTES },
    'Put the long text in a brief (`handoff brief add`) and dispatch with --brief and a short goal.',
  );

function readGoal(flags: DispatchFlags, cwd: string): string {
  if ((flags.goal === undefined) === (flags.goalFile === undefined))
    throw usage('give exactly one of --goal TEXT or --goal-file PATH');
  if (flags.goalFile !== undefined) {
    const size = checkRegularFile(flags.goalFile, cwd);
    if (size > MAX_GOAL_FILE_BYTES) throw goalTooLarge(size, `the goal file ${jsonQuote(flags.goalFile)}`);
  }
  const raw = flags.goal ?? readUtf8File(flags.goalFile as string, cwd);
  if (raw.trim() === '')
    throw usage(`the goal${flags.goalFile !== undefined ? ` in ${jsonQuote(flags.goalFile)}` : ''} is blank`);
  // Trailing whitespace (a file's final newline) would only print as empty goal lines.
  const goal = raw.replace(/\s+$/, '');
  const bytes = Buffer.byteLength(goal, 'utf8');
  if (bytes > MAX_GOAL_BYTES) throw goalTooLarge(bytes, 'the goal');
  return goal;
}

/** Checks every flag and the kind rules; reads the goal file. No store access. */
export function parseDispatchFlags(flags: DispatchFlags, env: Env, cwd: string): DispatchRequest {
  const planTaskId = checkPlanTaskId(flags.planTaskId);
  const parentHandoffId = checkPositiveInt(flags.parentHandoffId, '--parent-handoff-id');
  const brief = flags.brief === undefined ? undefined : checkSlug(flags.brief, '--brief');
  const canWrite = canWriteList(flags.canWrite ?? []);
  const acceptance = flags.acceptance ?? [];
  for (const a of acceptance) if (a.trim() === '') throw usage('--acceptance must be non-blank text');
  const agentId = checkAgentId(flags.agentId);
  const harnessId = checkHarnessId(flags.harnessId);
  // Every workspace is a safe slug: an explicit one as given, the derived one normalized.
  const workspace = resolveWorkspace(flags.workspace, env, cwd);
  const kind = resolveKind(flags.kind, planTaskId, parentHandoffId);
  const requireApproval = dispatchPatterns(flags.requireApproval ?? [], env);
  const verification = resolveVerification(flags.verification, flags.requireReceipt === true, env, kind);
  const checks = checkList(flags.checks ?? []);
  const goal = readGoal(flags, cwd);
  const tests = {
    workdir: resolveWorkdir(flags.workdir, cwd),
    globs: testGlobs(flags.tests ?? [], env),
    protect: flags.protectTests === true,
  };
  return {
    goal,
    kind,
    planTaskId,
    parentHandoffId,
    brief,
    consolidation: flags.consolidation === true,
    requireReceipt: verification === 'receipt',
    verification,
    checks,
    canWrite,
    acceptance,
    agentId,
    harnessId,
    workspace,
    tests,
    requireApproval,
  };
}
