/**
 * `approval gate`, the pre-tool hook: a tool call that matches an approval pattern of the run's contract (its block's
 * `require_approval:` line) or of `HANDOFF_APPROVAL_PATTERNS` runs only on an approved, unused approval of the
 * contract's chain whose exact_content is the call's canonical form; the use is recorded in the same transaction, so
 * the approval lets the call run once. A call that matches nothing is allowed without opening the store.
 */
import { canonicalJson } from '../receipts/jcs.js';
import { shellQuote } from '../receipts/quote.js';
import { splitWords } from '../receipts/split-words.js';
import { isHandoffError } from '../errors.js';
import { isDraftId } from '../ids.js';
import { promptText } from '../gate/transcript.js';
import type { Env } from '../paths.js';
import { envPatterns, matches, patternsFromBlockValue, type ApprovalPattern, type NeutralCall } from './patterns.js';
import { neutralCall, repoRelative, type ToolCall } from './pre-tool-input.js';

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
const CONTRACT_LINE_RE = /^contract_id: (\S+)\s*$/m;

/** The patterns and contract id of the contract block in the run's first user message. */
function fromTranscript(call: ToolCall): { patterns: ApprovalPattern[]; contractId?: string } {
  if (call.transcriptPath === undefined) return { patterns: [] };
  const text = promptText(call.transcriptPath, call.harness);
  if (text === undefined) return { patterns: [] };
  const line = BLOCK_LINE_RE.exec(text);
  const id = CONTRACT_LINE_RE.exec(text)?.[1];
  return {
    patterns: line === null ? [] : patternsFromBlockValue(line[1]),
    contractId: id !== undefined && isDraftId(id) ? id : undefined,
  };
}

/**
 * The call's canonical form, the exact_content an approval must hold: a shell command's text (trimmed); any other
 * call the RFC 8785 canonical JSON of {tool, input}, file paths made relative to the repository root.
 */
export function canonicalContent(call: ToolCall, n: NeutralCall, cwd: string): string {
  if (n.cls === 'Bash') return n.command.trim();
  const input: Record<string, unknown> = { ...call.toolInput };
  for (const k of ['file_path', 'path', 'notebook_path', 'filePath'])
    if (typeof input[k] === 'string') input[k] = repoRelative(input[k], cwd);
  const tool = n.cls === 'Write' || n.cls === 'Edit' ? n.cls : call.toolName;
  return canonicalJson({ tool, input });
}

/** Shell text compared as receipts compare commands: trimmed strings equal, or the same argv under POSIX quoting. */
export function sameShellCommand(a: string, b: string): boolean {
  if (a.trim() === b.trim()) return true;
  const wa = splitWords(a);
  const wb = splitWords(b);
  return wa !== undefined && wb !== undefined && wa.length === wb.length && wa.every((w, i) => w === wb[i]);
}

function denyReason(pattern: string, content: string, contractId: string | undefined, why: string): string {
  const draft = contractId === undefined ? '' : ` --draft-id ${contractId}`;
  return [
    `handoff: this tool call needs an approval (it matches the approval pattern ${pattern}): ${why}.`,
    `Request it with exactly: handoff approval request${draft} --content ${shellQuote(content)}`,
    'Then either close this turn in APPROVAL_REQUEST with that approval id, or wait for the decision with ' +
      '`handoff approval wait <approval id> --timeout 10m` and make exactly the same call again (an approval lets it run once).',
  ].join('\n');
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
  const block = fromTranscript(call);
  const pattern = [...block.patterns, ...envPatterns(env)].find((p) => matches(p, n));
  if (pattern === undefined) return { allow: true, why: 'no_match' };
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
