/**
 * Bounded reads of the turn's own transcript, in each harness's format: the first 4 MiB for the prompt's contract
 * block (the prompt lane), the last 1 MiB for the stop-reason fallback. A missing, unreadable, non-regular or
 * malformed transcript yields nothing, never an error: the gate must not trap an agent over a harness file.
 */
import { closeSync, constants, fstatSync, openSync, readSync } from 'node:fs';
import { isDraftId } from '../ids.js';
import { messageOf, messageText, objectOf } from '../harnesses/adapter.js';
import { adapterOf, HARNESSES } from '../harnesses/index.js';
import type { Harness } from './hook-input.js';

export { messageText };

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

/** A transcript line's user message text, in the harness's own format (its adapter's reader). */
const userText = (line: Record<string, unknown>, harness: Harness): string | undefined =>
  adapterOf(harness).transcript?.userText(line);

/** The first user message of a transcript chunk, or undefined. Codex: a real prompt wins over injected context. */
function firstUserText(text: string, harness: Harness): string | undefined {
  const t = adapterOf(harness).transcript;
  // Gemini's older session files are one JSON object with a messages array.
  if (t?.wholeFile === true) {
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
    if (t?.fallbackUser?.(line) === true) {
      fallback ??= userText(line, harness);
      continue;
    }
    const found = userText(line, harness);
    if (found !== undefined) return found;
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
  if (path === undefined || adapterOf(harness).transcript?.stopReason !== true) return undefined;
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
export const FEEDBACK_HARNESSES: readonly Harness[] = HARNESSES.filter(
  (h) => adapterOf(h).transcript?.feedback !== undefined,
);

/**
 * The nonce of the latest block the harness delivered: the last nonce in the transcript's last hook-feedback record
 * (within its last 1 MiB), or undefined when that record holds none, there is no such record, or no transcript.
 */
export function deliveredNonce(path: string | undefined, harness: Harness, maxBytes = TAIL_BYTES): string | undefined {
  if (path === undefined || !FEEDBACK_HARNESSES.includes(harness)) return undefined;
  const chunk = readBounded(path, maxBytes, true);
  if (chunk === undefined) return undefined;
  let records: unknown[];
  const t = adapterOf(harness).transcript;
  const whole = t?.wholeFile === true && chunk.fromStart ? parseWhole(chunk.text) : undefined;
  if (whole !== undefined && Array.isArray(whole.messages)) records = whole.messages as unknown[];
  else {
    const lines = chunk.text.split('\n');
    records = (chunk.fromStart ? lines : lines.slice(1)).map(parseLine);
  }
  for (let i = records.length - 1; i >= 0; i--) {
    const line = objectOf(records[i]);
    if (line === undefined || t?.feedback?.(line) !== true) continue;
    const found = [...JSON.stringify(line).matchAll(NONCE_RE)];
    return found.length === 0 ? undefined : found[found.length - 1][1];
  }
  return undefined;
}
