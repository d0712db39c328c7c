/**
 * Bounded reads of the turn's own transcript: the first 4 MiB for the prompt's
 * contract block (lane 3), the last 1 MiB for the stop-reason fallback. A missing, unreadable, non-regular or
 * malformed transcript yields nothing, never an error: the gate must not trap an agent over a harness file.
 */
import { closeSync, constants, fstatSync, openSync, readSync } from 'node:fs';
import { isDraftId } from '../ids.js';

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
 * A message's text: a string content, or the concatenated text of its text blocks, with no separator
 *: a `contract_id:` line counts only where the prompt itself starts a line.
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
  /** The transcript could be read and had a first user line. */
  foundPrompt: boolean;
  ids: string[];
}

/** Lane 3: the contract ids in the first `user` line's message, from the first 4 MiB of the transcript. */
export function promptContractIds(path: string | undefined, maxBytes = HEAD_BYTES): PromptScan {
  const none: PromptScan = { foundPrompt: false, ids: [] };
  if (path === undefined) return none;
  const chunk = readBounded(path, maxBytes, false);
  if (chunk === undefined) return none;
  for (const raw of chunk.text.split('\n')) {
    const line = parseLine(raw);
    if (line?.type !== 'user') continue;
    const text = messageText(messageOf(line)?.content);
    return { foundPrompt: true, ids: text === undefined ? [] : contractIdsInText(text) };
  }
  return none;
}

/** Stop-reason fallback: `message.stop_reason` of the last `assistant` line within the last 1 MiB. */
export function lastAssistantStopReason(path: string | undefined, maxBytes = TAIL_BYTES): string | undefined {
  if (path === undefined) return undefined;
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
