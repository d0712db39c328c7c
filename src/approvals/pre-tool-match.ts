/** The canonical forms of a tool call that matched an approval pattern, and the deny reason (pre-tool.ts). */
import { canonicalJson } from '../receipts/jcs.js';
import { shellQuote } from '../receipts/quote.js';
import { splitWords } from '../receipts/split-words.js';
import type { NeutralCall } from './patterns.js';
import { repoRelative, type ToolCall } from './pre-tool-input.js';

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

export function denyReason(pattern: string, content: string, contractId: string | undefined, why: string): string {
  const draft = contractId === undefined ? '' : ` --draft-id ${contractId}`;
  return [
    `handoff: this tool call needs an approval (it matches the approval pattern ${pattern}): ${why}.`,
    `Request it with exactly: handoff approval request${draft} --content ${shellQuote(content)}`,
    'Then either close this turn in APPROVAL_REQUEST with that approval id, or wait for the decision with ' +
      '`handoff approval wait <approval id> --timeout 10m` and make exactly the same call again (an approval lets it run once).',
  ].join('\n');
}
