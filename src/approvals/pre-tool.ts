/**
 * `approval gate`, the pre-tool hook: a tool call that matches an approval pattern of the run's contract (its block's
 * `require_approval:` line) or of `HANDOFF_APPROVAL_PATTERNS` runs only on an approved, unused approval of the
 * contract's chain whose exact_content is the call's canonical form; the use is recorded in the same transaction, so
 * the approval lets the call run once. A call that matches nothing is allowed without opening the store.
 */
import { homedir } from 'node:os';
import { isHandoffError } from '../errors.js';
import { promptText } from '../gate/transcript.js';
import { adapterOf } from '../harnesses/index.js';
import type { Env } from '../paths.js';
import { envPatterns, matches, patternsFromBlockValue, type ApprovalPattern } from './patterns.js';
import { neutralCall, type ToolCall } from './pre-tool-input.js';

export interface PreToolOptions {
  onStoreError: 'deny' | 'allow';
}

export type PreToolDecision =
  | { allow: true; why: 'no_match' | 'approved' | 'store_error_allowed'; approvalId?: string; pattern?: string }
  | {
      allow: false;
      why: 'not_approved' | 'no_contract' | 'store_error';
      reason: string;
      content: string;
      pattern: string;
    };

const BLOCK_LINE_RE = /^require_approval: (.*)$/m;
/** A contract id as dispatch mints it (checked again with the id rules once a call matched). */
const CONTRACT_LINE_RE = /^contract_id: (a[0-9a-f]{16,}\.[0-9a-f]{6,})\s*$/m;

/**
 * The transcript of the call's session: the path the input names, else the one its harness keeps for the session
 * (the adapter's sessionTranscript: Copilot CLI's events file).
 */
function transcriptOf(call: ToolCall, env: Env): string | undefined {
  if (call.transcriptPath !== undefined) return call.transcriptPath;
  if (call.sessionId === undefined) return undefined;
  const home = env.HOME !== undefined && env.HOME !== '' ? env.HOME : homedir();
  return adapterOf(call.harness).preTool?.sessionTranscript?.(call.sessionId, home);
}

/** The patterns and contract id of the contract block in the run's first user message. */
function fromTranscript(call: ToolCall, env: Env): { patterns: ApprovalPattern[]; contractId?: string } {
  const transcript = transcriptOf(call, env);
  if (transcript === undefined) return { patterns: [] };
  const text = promptText(transcript, call.harness);
  if (text === undefined) return { patterns: [] };
  const line = BLOCK_LINE_RE.exec(text);
  return {
    patterns: line === null ? [] : patternsFromBlockValue(line[1]),
    contractId: CONTRACT_LINE_RE.exec(text)?.[1],
  };
}

/** The decision for one tool call. */
export async function approvalGate(
  call: ToolCall,
  env: Env,
  cwd: string,
  opts: PreToolOptions,
): Promise<PreToolDecision> {
  const here = call.cwd ?? cwd;
  const n = neutralCall(call, here);
  if (n.cls === 'other') return { allow: true, why: 'no_match' };
  const block = fromTranscript(call, env);
  const pattern = [...block.patterns, ...envPatterns(env)].find((p) => matches(p, n));
  if (pattern === undefined) return { allow: true, why: 'no_match' };
  // Only a matching call loads the canonical forms (crypto, RFC 8785) and the store.
  const { canonicalContent, denyReason, sameShellCommand } = await import('./pre-tool-match.js');
  const { isDraftId } = await import('../ids.js');
  if (block.contractId !== undefined && !isDraftId(block.contractId)) block.contractId = undefined;
  const content = canonicalContent(call, n, here);
  const deny = (
    why: 'not_approved' | 'no_contract' | 'store_error',
    text: string,
    contractId?: string,
  ): PreToolDecision => ({
    allow: false,
    why,
    reason: denyReason(pattern.text, content, contractId, text),
    content,
    pattern: pattern.text,
  });
  try {
    const { useApproval } = await import('./pre-tool-store.js');
    const r = await useApproval(env, here, {
      contractId: block.contractId,
      sessionId: call.sessionId,
      matchesContent: (exact) => (n.cls === 'Bash' ? sameShellCommand(exact, content) : exact === content),
      toolUseId: call.toolUseId ?? `${call.harness}:${call.sessionId ?? 'unknown'}:${Date.now()}`,
    });
    if (r.kind === 'no_contract')
      return {
        allow: false,
        why: 'no_contract',
        content,
        pattern: pattern.text,
        reason: `handoff: this tool call needs an approval (it matches the approval pattern ${pattern.text}), and an approval is granted to a contract's chain, but no contract of this run was found (no contract block in its first prompt, no row bound to its session id): run it under a contract (handoff contract dispatch, its block in the prompt; or handoff contract claim), then request the approval.`,
      };
    if (r.kind === 'used') return { allow: true, why: 'approved', approvalId: r.approvalId, pattern: pattern.text };
    return deny(
      'not_approved',
      `no approved, unused approval of contract ${r.contractId}'s chain holds exactly this call${r.note === undefined ? '' : ` (${r.note})`}`,
      r.contractId,
    );
  } catch (e) {
    if (!isHandoffError(e)) throw e;
    if (opts.onStoreError === 'allow') return { allow: true, why: 'store_error_allowed', pattern: pattern.text };
    return deny('store_error', `the store could not be asked (${e.code}: ${e.message})`, block.contractId);
  }
}
