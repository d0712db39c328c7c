/**
 * The pre-tool hook's input read into one ToolCall by its harness's adapter (`preTool.read`; the common keys
 * `tool_name`, `tool_input`, `tool_use_id`, `session_id`, `transcript_path` where it has none), then the call's
 * neutral class (patterns.ts) and its canonical form, the text an approval's exact_content must equal. Any problem is
 * HOOK_INPUT_INVALID.
 */
import { isAbsolute, relative, resolve, sep } from 'node:path';
import { HandoffError } from '../errors.js';
import { gitTopLevel } from '../paths.js';
import { commonPreToolRead } from '../harnesses/adapter.js';
import { adapterOf, PRE_TOOL_HARNESSES, recognize, type Harness } from '../harnesses/index.js';
import type { NeutralCall } from './patterns.js';

export { PRE_TOOL_HARNESSES };
/** A harness with a pre-tool hook (its adapter's `preTool`; OpenCode's plugin has no such hook here). */
export type PreToolHarness = Harness;

export interface ToolCall {
  harness: PreToolHarness;
  event: string;
  toolName: string;
  toolInput: Record<string, unknown>;
  toolUseId?: string;
  sessionId?: string;
  transcriptPath?: string;
  cwd?: string;
}

const invalid = (message: string): HandoffError => new HandoffError('HOOK_INPUT_INVALID', message);
const str = (v: unknown): string | undefined => (typeof v === 'string' && v.trim() !== '' ? v : undefined);
const obj = (v: unknown): Record<string, unknown> | undefined =>
  typeof v === 'object' && v !== null && !Array.isArray(v) ? (v as Record<string, unknown>) : undefined;

/** Parses the pre-tool hook JSON of `choice` (auto: recognized from its keys). Throws HOOK_INPUT_INVALID. */
export function parseToolCall(raw: string, choice: PreToolHarness | 'auto' = 'auto'): ToolCall {
  const body = raw.startsWith('\uFEFF') ? raw.slice(1) : raw;
  if (body.trim() === '') throw invalid('no pre-tool hook JSON on stdin');
  let parsed: unknown;
  try {
    parsed = JSON.parse(body);
  } catch (e) {
    throw invalid(`pre-tool hook input on stdin is not valid JSON: ${(e as Error).message}`);
  }
  const v = obj(parsed);
  if (v === undefined) throw invalid('pre-tool hook input on stdin is not a JSON object');
  const harness = choice === 'auto' ? recognize(v, 'preTool') : choice;
  const event = typeof v.hook_event_name === 'string' ? v.hook_event_name : undefined;
  if (harness === undefined)
    throw invalid(
      `unrecognized pre-tool hook input (hook_event_name ${JSON.stringify(event ?? null)}): not ${PRE_TOOL_HARNESSES.map((h) => `${adapterOf(h).title} ${adapterOf(h).preTool?.event ?? ''}`).join(', ')}; pass --harness`,
    );
  if (adapterOf(harness).preTool?.events.includes(event) !== true)
    throw invalid(`unknown hook_event_name ${JSON.stringify(event ?? null)} for --harness ${harness}`);
  const pre = adapterOf(harness).preTool;
  const parts = pre?.read !== undefined ? pre.read(v, event) : commonPreToolRead(v, event);
  return { harness, ...parts, cwd: str(v.cwd) };
}

/** Every harness's shell tools (Claude Code and Codex `Bash`, Gemini `run_shell_command`, Copilot `bash`/`shell`). */
const SHELL_TOOLS = new Set(['Bash', 'Shell', 'shell', 'bash', 'run_shell_command', 'local_shell', 'exec_command']);
/** File-writing tools that replace a file. */
const WRITE_TOOLS = new Set(['Write', 'write_file', 'create', 'write']);
/** File-writing tools that change part of a file. */
const EDIT_TOOLS = new Set(['Edit', 'MultiEdit', 'NotebookEdit', 'replace', 'edit', 'str_replace_editor']);

/** The shell text of a shell tool's input: `command` as a string, or an argv joined by spaces. */
function shellText(input: Record<string, unknown>): string | undefined {
  const c = input.command ?? input.cmd;
  if (typeof c === 'string') return c;
  if (Array.isArray(c) && c.every((w) => typeof w === 'string')) return c.join(' ');
  return undefined;
}

const filePath = (input: Record<string, unknown>): string | undefined =>
  str(input.file_path) ?? str(input.path) ?? str(input.notebook_path) ?? str(input.filePath);

/** A path relative to the repository root of the hook's cwd (else the cwd), with `/` separators. */
export function repoRelative(p: string, cwd: string): string {
  const root = gitTopLevel(cwd) ?? cwd;
  const abs = isAbsolute(p) ? p : resolve(cwd, p);
  const rel = relative(root, abs);
  return (rel === '' ? '.' : rel).split(sep).join('/');
}

/** The text of Codex's `apply_patch` call: its freeform `input`, or `patch`, or `command` (a string, or an argv's last word). */
function patchText(input: Record<string, unknown>): string | undefined {
  for (const v of [input.input, input.patch, input.command]) {
    if (typeof v === 'string') return v;
    if (Array.isArray(v) && typeof v.at(-1) === 'string') return v.at(-1) as string;
  }
  return undefined;
}

const PATCH_HEADER_RE = /^\*\*\* (Add File|Update File|Delete File|Move to): (.+?)\s*$/gm;

/**
 * Codex's `apply_patch`: the files its `*** Add File:`, `*** Update File:`, `*** Delete File:` (and `*** Move to:`)
 * headers name, relative to the repository root; Write when it only adds files, else Edit.
 */
function patchCall(input: Record<string, unknown>, cwd: string): NeutralCall {
  const text = patchText(input);
  const files: { kind: string; path: string }[] = [];
  for (const m of text?.matchAll(PATCH_HEADER_RE) ?? []) files.push({ kind: m[1], path: repoRelative(m[2], cwd) });
  if (files.length === 0) return { cls: 'other', tool: 'apply_patch' };
  const [first, ...rest] = files.map((f) => f.path);
  return {
    cls: files.every((f) => f.kind === 'Add File') ? 'Write' : 'Edit',
    path: first,
    ...(rest.length > 0 ? { more: rest } : {}),
  };
}

/** The call's neutral class. */
export function neutralCall(call: ToolCall, cwd: string): NeutralCall {
  const { toolName, toolInput } = call;
  if (toolName.startsWith('mcp__')) return { cls: 'mcp', tool: toolName };
  if (toolName === 'apply_patch') return patchCall(toolInput, cwd);
  if (SHELL_TOOLS.has(toolName)) {
    const command = shellText(toolInput);
    return command === undefined ? { cls: 'other', tool: toolName } : { cls: 'Bash', command };
  }
  const write = WRITE_TOOLS.has(toolName);
  if (write || EDIT_TOOLS.has(toolName)) {
    const p = filePath(toolInput);
    return p === undefined
      ? { cls: 'other', tool: toolName }
      : { cls: write ? 'Write' : 'Edit', path: repoRelative(p, cwd) };
  }
  return { cls: 'other', tool: toolName };
}
