/**
 * What the project knows about one harness, behind one interface: how its stop hook's input is recognized and read,
 * the answer form it continues on, how its transcript holds the prompt and the record of a hook's feedback, the
 * breaker's key, where its hook config lives and what an entry looks like, and its pre-tool hook. One module per
 * harness implements it; the registry (index.ts) is the only list of harnesses. Adapters are plain data and small
 * pure functions: the gate loads them on its hot path.
 */
import { HandoffError } from '../errors.js';
import type { Env } from '../paths.js';

export type Scope = 'project' | 'user';

/** The stop input's fields the gate reads, as the zod/mini schema gives them (blank or mistyped reads as absent). */
export interface StopRaw {
  hook_event_name?: string;
  session_id?: string;
  sessionId?: string;
  conversation_id?: string;
  turn_id?: string;
  agent_id?: string;
  agent_type?: string;
  agent_transcript_path?: string;
  transcript_path?: string;
  transcriptPath?: string;
  prompt?: string;
  stop_reason?: string;
  stopReason?: string;
  status?: string;
  stop_hook_active?: boolean;
  loop_count?: number;
  cwd?: string;
}

/** One stop, read into the gate's terms (the harness is added by the caller). */
export interface StopInput {
  /** The event as the harness names it (`Stop`, `SubagentStop`, `AfterAgent`, `agentStop`, `stop`). */
  event: string;
  /** A subagent's stop (Claude Code or Codex `SubagentStop`): its own run id and transcript. */
  subagent: boolean;
  sessionId?: string;
  /** A subagent's run id. */
  agentId?: string;
  /** A label for messages only. */
  agentType?: string;
  /** Codex: the turn being stopped (the breaker's key). */
  turnId?: string;
  /** The turn's own transcript (a subagent's own, never its parent's). */
  transcriptPath?: string;
  /** Gemini: the turn's prompt, given on stdin. */
  prompt?: string;
  /** The harness's own stop reason (Copilot `stopReason`, Cursor `status`, or `stop_reason`). */
  stopReason?: string;
  /** The harness is continuing because a stop hook blocked (Cursor: `loop_count` above 0). */
  stopHookActive?: boolean;
  cwd?: string;
}

/** What a hook process gives back: its exit and its output streams. */
/** A pre-tool input's parts, whatever the harness's keys. */
export interface PreToolRead {
  event: string;
  toolName: string;
  toolInput: Line;
  toolUseId?: string;
  sessionId?: string;
  transcriptPath?: string;
}

export interface HookAnswer {
  exit: 0 | 2;
  stdout?: string;
  stderr?: string;
}

/** One hook the install writes: its event, optional matcher, and the gate's flags. */
export interface HookSpec {
  event: string;
  matcher?: string;
  /** The matcher was not given: an existing group keeps the matcher its owner may have edited. */
  keepMatcher?: boolean;
  args: string[];
  /** The verb the hook runs: the stop gate (default) or the pre-tool approval gate. */
  verb?: 'approval gate';
}

export interface InstallOptions {
  strict: boolean;
  /** Claude Code SubagentStop: the agent types that carry contracts (default DEFAULT_MATCHER). */
  matcher?: string;
  /** Also wire the pre-tool approval gate (`approval gate`) where the harness has a pre-tool hook. */
  approvals?: boolean;
}

/** Where a config file lives: the user's home (with the environment) and the project's root. */
export interface ConfigPlace {
  scope: Scope;
  env: Env;
  home: string;
  root: string;
}

type Line = Record<string, unknown>;

/** One hook install trusts: the harness's key for it (in the real file) and its hash. */
export interface TrustEntry {
  key: string;
  hash: string;
}

/** What install or uninstall did to the harness's trust in the gate's hooks (`trust` in their JSON). */
export interface TrustChange {
  /**
   * trusted: written and confirmed by the harness; written: written, the harness does not list the hooks here yet
   * (an untrusted project, hooks turned off); would_write: --dry-run; left_to_review: --no-trust; unavailable: the
   * harness could not be asked, nothing written; removed / absent: uninstall.
   */
  status: 'trusted' | 'written' | 'would_write' | 'left_to_review' | 'unavailable' | 'removed' | 'absent';
  /** The file that keeps the trust. */
  path: string;
  hooks: TrustEntry[];
  reason?: string;
  diff?: string;
}

export interface TrustRequest {
  env: Env;
  cwd: string;
  scope: Scope;
  dryRun: boolean;
  /** The hooks file install wrote (or would write) and its text. */
  hooksPath: string;
  hooksText: string;
  /** The gate commands in it: the hooks to trust. */
  commands: string[];
}

/** A harness that runs a hook only once it is trusted: install trusts exactly the hooks it wrote. */
export interface HookTrust {
  install(req: TrustRequest): Promise<TrustChange>;
  /** --no-trust: nothing written; the harness's own review decides. */
  leftToReview(env: Env): TrustChange;
  /** Takes out the trust install wrote for `hooksPath`. */
  uninstall(env: Env, hooksPath: string, dryRun: boolean): TrustChange;
  /** Whether the harness will run the gate's commands in `hooksPath`, as it says itself. */
  runState(
    env: Env,
    cwd: string,
    scope: Scope,
    hooksPath: string,
    commands: string[],
  ): Promise<{ will_run: boolean; why_not?: string }>;
  /** Whether the harness trusts the project at all (it reads no project hooks otherwise); null: unknown. */
  projectTrusted(env: Env, root: string): boolean | null;
}

export interface HarnessAdapter {
  /** The product's name, for messages and docs. */
  readonly title: string;
  /** The stop input's events this harness may send (undefined: an input without `hook_event_name`). */
  readonly stopEvents: readonly (string | undefined)[];
  /**
   * `--harness auto`: whether this harness wrote the input, from its keys, and in which order adapters are asked
   * (lower first: a narrower shape before a wider one). Absent: never recognized by auto.
   */
  readonly recognize?: { rank: number; test(v: Line): boolean };
  /** The stop input in the gate's terms. */
  read(raw: StopRaw): StopInput;
  /** The input field that carries the run id, for messages. */
  runIdField(subagent: boolean): string;
  /** The breaker key's prefix: two harnesses never share a key. */
  readonly breakerPrefix: string;
  /** Its own stop vocabulary, when it is not the common one (`max_tokens`, `end_turn`, …), as stop classes. */
  readonly stopClasses?: Readonly<Record<string, 'truncation' | 'violation' | 'abort'>>;
  /** The verdict in the form this harness continues on (blocked: the reason is delivered). */
  answer(blocked: boolean, reason: string | undefined, systemMessage: string | undefined): HookAnswer;
  /** How its transcript holds the turn; absent: it has none the gate reads. */
  readonly transcript?: {
    /** A line's user message text; undefined when the line is not a user message. */
    userText(line: Line): string | undefined;
    /** A user message that counts only when no other comes first (Codex: a `response_item`). */
    fallbackUser?(line: Line): boolean;
    /** The file may be one JSON object with a `messages` array (Gemini's older session files). */
    wholeFile?: boolean;
    /** The record the harness itself writes for a hook's feedback; absent: its breaker holds at L1 only. */
    feedback?(line: Line): boolean;
    /** Its transcript carries the last assistant message's `stop_reason` (Claude Code). */
    stopReason?: boolean;
  };
  /** Its hook config: the file, its layout, and the entries install writes. */
  readonly config: {
    /** grouped: `hooks.<Event>[]` of matcher groups holding `hooks[]`; flat: `{"version":1,"hooks":{…}}`; plugin. */
    readonly layout: 'grouped' | 'flat' | 'plugin';
    /** The config file at this place (throws a usage error when the harness has no such scope). */
    path(p: ConfigPlace): string;
    /** Folders above the file that uninstall may remove when it leaves them empty (1: its own folder). */
    readonly ownDirs: 1 | 2;
    /** The key of the entry that holds the command. */
    readonly commandKey: string;
    /** The entry as the harness writes it, with its timeout. */
    entry(command: string, timeoutS: number): Line;
    /** The stop hooks install writes; `top(event)` is a top-level stop's spec. */
    stopHooks(top: (event: string) => HookSpec, o: InstallOptions): HookSpec[];
  };
  /** Its pre-tool hook, which the approval gate answers; absent: none. */
  readonly preTool?: {
    /** The event install wires. */
    readonly event: string;
    /** The events its pre-tool input may carry. */
    readonly events: readonly (string | undefined)[];
    /** Whether this harness wrote a pre-tool input, from its keys (ranked like `recognize`). */
    readonly recognize: { rank: number; test(v: Line): boolean };
    /**
     * Its pre-tool input read into the call's parts (throws HOOK_INPUT_INVALID); absent: the common keys (`tool_name`,
     * `tool_input`, `tool_use_id`, `session_id`, `transcript_path`), as Claude Code, Codex and Gemini send them.
     */
    read?(v: Line, event: string | undefined): PreToolRead;
    /** The approval gate's decision in this harness's form. */
    answer(allow: boolean, reason: string): HookAnswer;
    /**
     * The session's transcript when its pre-tool input names none (Copilot CLI: its session's events file under
     * `home`); undefined for a session id that cannot name one. Absent: only the input's own path is read.
     */
    sessionTranscript?(sessionId: string, home: string): string | undefined;
  };
  /** Its hook trust, loaded only when `hooks` needs it; absent: it runs every hook in its config. */
  readonly trust?: () => Promise<HookTrust>;
  /** A sample stop input as this harness sends it (`hooks test`, docs); `prompt`: the turn's first user message. */
  sampleStop(p: { sessionId: string; cwd: string; transcriptPath: string; prompt: string }): Line;
  /** A transcript holding `prompt` as the turn's first user message, in this harness's format; absent: it has none. */
  sampleTranscript?(prompt: string): string;
}

/** Shared by the adapters that read JSON-lines transcripts. */
export const objectOf = (v: unknown): Line | undefined =>
  typeof v === 'object' && v !== null && !Array.isArray(v) ? (v as Line) : undefined;

export const hasKey = (v: unknown, k: string): boolean =>
  typeof v === 'object' && v !== null && Object.prototype.hasOwnProperty.call(v, k);

/** Text of a content made of typed blocks (`text` for most, `input_text` for Codex) or untyped parts (Gemini). */
export function blocksText(content: unknown, types: readonly (string | undefined)[]): string | undefined {
  if (typeof content === 'string') return content;
  const parts = Array.isArray(content) ? content : objectOf(content) ? [content] : [];
  const texts: string[] = [];
  for (const block of parts) {
    const b = objectOf(block);
    if (
      b !== undefined &&
      typeof b.text === 'string' &&
      types.includes(typeof b.type === 'string' ? b.type : undefined)
    )
      texts.push(b.text);
  }
  return texts.length > 0 ? texts.join('') : undefined;
}

export const messageOf = (line: Line): Line | undefined => objectOf(line.message);

/**
 * A message's text: a string content, or the concatenated text of its text blocks, with no separator: a
 * `contract_id:` line counts only where the prompt itself starts a line.
 */
export function messageText(content: unknown): string | undefined {
  if (typeof content === 'string') return content;
  if (!Array.isArray(content)) return undefined;
  const parts: string[] = [];
  for (const block of content) {
    const b = objectOf(block);
    if (b?.type === 'text' && typeof b.text === 'string') parts.push(b.text);
  }
  return parts.length > 0 ? parts.join('') : undefined;
}

/** The answer of Claude Code and Codex: a block is exit 2 with the reason on stderr. */
export function exitTwoAnswer(
  blocked: boolean,
  reason: string | undefined,
  systemMessage: string | undefined,
): HookAnswer {
  if (blocked) return { exit: 2, stderr: reason };
  return { exit: 0, stdout: systemMessage === undefined ? undefined : JSON.stringify({ systemMessage }) };
}

/** The pre-tool answer of the harnesses that deny on exit 2 with the reason on stderr. */
export const exitTwoDeny = (allow: boolean, reason: string): HookAnswer =>
  allow ? { exit: 0, stdout: '' } : { exit: 2, stdout: '', stderr: reason };

export const own = (v: Line, k: string): boolean => Object.prototype.hasOwnProperty.call(v, k);

/** A bad hook input: HOOK_INPUT_INVALID. */
export const hookInputInvalid = (message: string): HandoffError => new HandoffError('HOOK_INPUT_INVALID', message);

/** A non-blank string, else undefined. */
export const nonBlank = (v: unknown): string | undefined => (typeof v === 'string' && v.trim() !== '' ? v : undefined);

/** The common pre-tool keys (Claude Code, Codex, Gemini). */
export function commonPreToolRead(v: Line, event: string | undefined): PreToolRead {
  const toolName = nonBlank(v.tool_name);
  if (toolName === undefined) throw hookInputInvalid(`a ${event} input needs tool_name`);
  return {
    event: event!,
    toolName,
    toolInput: objectOf(v.tool_input) ?? {},
    toolUseId: nonBlank(v.tool_use_id),
    sessionId: nonBlank(v.session_id),
    transcriptPath: nonBlank(v.transcript_path),
  };
}
