/**
 * Bounded reads of the turn's own transcript, in each harness's format: the first 4 MiB for the prompt's contract
 * block (the prompt lane), the last 1 MiB for the stop-reason fallback. A missing, unreadable, non-regular or
 * malformed transcript yields nothing, never an error: the gate must not trap an agent over a harness file.
 */
import { closeSync, constants, fstatSync, openSync, readSync } from 'node:fs';
import { isDraftId } from '../ids.js';
import type { Harness } from './hook-input.js';

export const HEAD_BYTES = 4 * 1024 * 1024;
export const TAIL_BYTES = 1024 * 1024;

/** `^contract_id: <id>\s*$` on one line of the first user message (the line dispatch prints). */
const CONTRACT_LINE_RE = /^contract_id: (a[0-9a-f]{16,}\.[0-9a-f]{6,})\s*$/;

interface Chunk {
  text: string;
  /** The chunk starts at byte 0 of the file (its first line is whole). */
  fromStart: boolean;
}

/** Reads at most `max` bytes from the head (`tail` false) or the tail of a regular file; undefined on any problem. */
function readBounded(path: string, max: number, tail: boolean): Chunk | undefined {
  let fd: number | undefined;
  try {
    // O_NONBLOCK: a FIFO swapped in for the transcript must never hang the hook.
    fd = openSync(path, constants.O_RDONLY | constants.O_NONBLOCK);
    const st = fstatSync(fd);
    if (!st.isFile()) return undefined;
    const start = tail ? Math.max(0, st.size - max) : 0;
    const length = Math.min(max, st.size - start);
    const buf = Buffer.alloc(length);
    let got = 0;
    while (got < length) {
      const n = readSync(fd, buf, got, length - got, start + got);
      if (n === 0) break;
      got += n;
    }
    return { text: buf.subarray(0, got).toString('utf8'), fromStart: start === 0 };
  } catch {
    return undefined;
  } finally {
    if (fd !== undefined) closeSync(fd);
  }
}

function parseLine(line: string): Record<string, unknown> | undefined {
  if (line.trim() === '') return undefined;
  try {
    const v: unknown = JSON.parse(line);
    return typeof v === 'object' && v !== null && !Array.isArray(v) ? (v as Record<string, unknown>) : undefined;
  } catch {
    return undefined;
  }
}

function messageOf(line: Record<string, unknown>): Record<string, unknown> | undefined {
  const m = line.message;
  return typeof m === 'object' && m !== null && !Array.isArray(m) ? (m as Record<string, unknown>) : undefined;
}

/**
 * A message's text: a string content, or the concatenated text of its text blocks, with no separator: a
 * `contract_id:` line counts only where the prompt itself starts a line.
 */
export function messageText(content: unknown): string | undefined {
  if (typeof content === 'string') return content;
  if (!Array.isArray(content)) return undefined;
  const parts: string[] = [];
  for (const block of content) {
    if (typeof block !== 'object' || block === null) continue;
    const b = block as Record<string, unknown>;
    if (b.type === 'text' && typeof b.text === 'string') parts.push(b.text);
  }
  return parts.length > 0 ? parts.join('') : undefined;
}

/** The distinct contract ids on `contract_id:` lines of a prompt text, in first-seen order. */
export function contractIdsInText(text: string): string[] {
  const ids: string[] = [];
  for (const line of text.split('\n')) {
    const m = CONTRACT_LINE_RE.exec(line);
    if (m && isDraftId(m[1]) && !ids.includes(m[1])) ids.push(m[1]);
  }
  return ids;
}

export interface PromptScan {
  /** The transcript could be read and had a first user message. */
  foundPrompt: boolean;
  ids: string[];
}

const objectOf = (v: unknown): Record<string, unknown> | undefined =>
  typeof v === 'object' && v !== null && !Array.isArray(v) ? (v as Record<string, unknown>) : undefined;

/** Text of a content made of typed blocks (`text` for most, `input_text` for Codex) or untyped parts (Gemini). */
function blocksText(content: unknown, types: readonly (string | undefined)[]): string | undefined {
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

/** Codex puts its own context (AGENTS.md, the environment) into user messages ahead of the prompt. */
const codexContext = (t: string): boolean => /^\s*(<[a-z_]+>|# AGENTS\.md)/i.test(t);

/**
 * A transcript line's user message text, in the harness's own format; undefined when the line is not a user message.
 * Claude Code: `{"type":"user","message":{"content":…}}`; Codex rollout: `{"type":"event_msg","payload":{"type":
 * "user_message","message":…}}` (or a `response_item` user message that is not Codex's own context); Gemini:
 * `{"type":"user","content":…}`; Copilot: `{"type":"user.message","data":{"content":…}}`; Cursor:
 * `{"role":"user","message":{"content":…}}`.
 */
function userText(line: Record<string, unknown>, harness: Harness): string | undefined {
  switch (harness) {
    case 'claude':
      return line.type === 'user' ? (messageText(messageOf(line)?.content) ?? '') : undefined;
    case 'codex': {
      const p = objectOf(line.payload);
      if (line.type === 'event_msg' && p?.type === 'user_message')
        return typeof p.message === 'string' ? p.message : '';
      if (line.type === 'response_item' && p?.type === 'message' && p.role === 'user') {
        const t = blocksText(p.content, ['input_text', 'text']);
        return t === undefined || codexContext(t) ? undefined : t;
      }
      return undefined;
    }
    case 'gemini':
      return line.type === 'user' ? (blocksText(line.content, [undefined, 'text']) ?? '') : undefined;
    case 'copilot':
      return line.type === 'user.message' ? (blocksText(objectOf(line.data)?.content, ['text']) ?? '') : undefined;
    case 'cursor':
      return line.role === 'user' || line.type === 'user'
        ? (blocksText(messageOf(line)?.content, ['text']) ?? '')
        : undefined;
  }
}

/** The first user message of a transcript chunk, or undefined. Codex: a real prompt wins over injected context. */
function firstUserText(text: string, harness: Harness): string | undefined {
  // Gemini's older session files are one JSON object with a messages array.
  if (harness === 'gemini') {
    const whole = parseWhole(text);
    if (whole !== undefined && Array.isArray(whole.messages)) {
      for (const m of whole.messages as unknown[]) {
        const line = objectOf(m);
        const t = line && userText(line, harness);
        if (t !== undefined) return t;
      }
      return undefined;
    }
  }
  let fallback: string | undefined;
  for (const raw of text.split('\n')) {
    const line = parseLine(raw);
    if (line === undefined) continue;
    if (harness === 'codex' && line.type === 'response_item') {
      fallback ??= userText(line, harness);
      continue;
    }
    const t = userText(line, harness);
    if (t !== undefined) return t;
  }
  return fallback;
}

function parseWhole(text: string): Record<string, unknown> | undefined {
  try {
    return objectOf(JSON.parse(text));
  } catch {
    return undefined;
  }
}

/** The first user message's text, from the first `maxBytes` of the transcript; undefined when there is none. */
export function promptText(path: string, harness: Harness, maxBytes = HEAD_BYTES): string | undefined {
  const chunk = readBounded(path, maxBytes, false);
  return chunk === undefined ? undefined : firstUserText(chunk.text, harness);
}

/** Lane 3: the contract ids in the first user message, from the first 4 MiB of the transcript. */
export function promptContractIds(
  path: string | undefined,
  harness: Harness = 'claude',
  maxBytes = HEAD_BYTES,
): PromptScan {
  const none: PromptScan = { foundPrompt: false, ids: [] };
  if (path === undefined) return none;
  const chunk = readBounded(path, maxBytes, false);
  if (chunk === undefined) return none;
  const text = firstUserText(chunk.text, harness);
  return text === undefined ? none : { foundPrompt: true, ids: contractIdsInText(text) };
}

/**
 * Stop-reason fallback: `message.stop_reason` of the last `assistant` line within the last 1 MiB. Only Claude Code
 * transcripts carry one; the other harnesses give theirs in the hook input or not at all.
 */
export function lastAssistantStopReason(
  path: string | undefined,
  harness: Harness = 'claude',
  maxBytes = TAIL_BYTES,
): string | undefined {
  if (path === undefined || harness !== 'claude') return undefined;
  const chunk = readBounded(path, maxBytes, true);
  if (chunk === undefined) return undefined;
  const lines = chunk.text.split('\n');
  // A tail that starts mid-file starts mid-line: that first fragment is not a line.
  const first = chunk.fromStart ? 0 : 1;
  for (let i = lines.length - 1; i >= first; i--) {
    const line = parseLine(lines[i]);
    if (line?.type !== 'assistant') continue;
    const reason = messageOf(line)?.stop_reason;
    return typeof reason === 'string' && reason.trim() !== '' ? reason : undefined;
  }
  return undefined;
}

/** The nonce line every block reason ends with. */
export const NONCE_RE = /handoff gate nonce: ([0-9a-f]{32})/g;

/** The harnesses that write a record of the hook's feedback into their transcript: their breaker holds at L2. */
export const FEEDBACK_HARNESSES: readonly Harness[] = ['claude', 'codex', 'gemini', 'copilot'];

const hasKey = (v: unknown, k: string): boolean =>
  typeof v === 'object' && v !== null && Object.prototype.hasOwnProperty.call(v, k);

/**
 * A line the harness itself writes for a stop hook's feedback (never tool output or assistant text): Claude Code a
 * `system` record with subtype `stop_hook_summary` or a `user` record carrying `hookText`; Codex a rollout user or
 * developer message, a `user_message` or a hook event; Gemini a `user` record; Copilot a `hook.end` event.
 */
function feedbackRecord(line: Record<string, unknown>, harness: Harness): boolean {
  switch (harness) {
    case 'claude':
      return (
        (line.type === 'system' && line.subtype === 'stop_hook_summary') ||
        (line.type === 'user' && (hasKey(line, 'hookText') || hasKey(line.message, 'hookText')))
      );
    case 'codex': {
      const p = objectOf(line.payload);
      if (line.type === 'response_item') return p?.type === 'message' && (p.role === 'user' || p.role === 'developer');
      return (
        line.type === 'event_msg' && typeof p?.type === 'string' && (p.type === 'user_message' || /hook/i.test(p.type))
      );
    }
    case 'gemini':
      return line.type === 'user';
    case 'copilot':
      return line.type === 'hook.end';
    default:
      return false;
  }
}

/**
 * The nonce of the latest block the harness delivered: the last nonce in the transcript's last hook-feedback record
 * (within its last 1 MiB), or undefined when that record holds none, there is no such record, or no transcript.
 */
export function deliveredNonce(path: string | undefined, harness: Harness, maxBytes = TAIL_BYTES): string | undefined {
  if (path === undefined || !FEEDBACK_HARNESSES.includes(harness)) return undefined;
  const chunk = readBounded(path, maxBytes, true);
  if (chunk === undefined) return undefined;
  let records: unknown[];
  const whole = harness === 'gemini' && chunk.fromStart ? parseWhole(chunk.text) : undefined;
  if (whole !== undefined && Array.isArray(whole.messages)) records = whole.messages as unknown[];
  else {
    const lines = chunk.text.split('\n');
    records = (chunk.fromStart ? lines : lines.slice(1)).map(parseLine);
  }
  for (let i = records.length - 1; i >= 0; i--) {
    const line = objectOf(records[i]);
    if (line === undefined || !feedbackRecord(line, harness)) continue;
    const found = [...JSON.stringify(line).matchAll(NONCE_RE)];
    return found.length === 0 ? undefined : found[found.length - 1][1];
  }
  return undefined;
}
