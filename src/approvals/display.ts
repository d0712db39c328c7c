/**
 * How approval content reaches a person and the executing turn. A human reads content to approve it, so what a
 * terminal shows must be what the bytes say: control characters (C0 but the line break, DEL, C1) and Unicode format
 * characters (bidi overrides and isolates, zero-width characters, the byte order mark) and the line and paragraph
 * separators are shown as `<U+XXXX>`, never passed to the terminal. `approval show` prints the whole content; other
 * human outputs print at most CUT_LINES lines or CUT_CHARS characters, then where to read the rest. JSON output is
 * always complete and raw.
 */
import { shellQuote } from '../receipts/quote.js';

export const CUT_LINES = 20;
export const CUT_CHARS = 2000;

// eslint-disable-next-line no-control-regex -- matching control characters is the point of this pattern
const HIDDEN = /[\u0000-\u0009\u000b-\u001f\u007f-\u009f\u2028\u2029\p{Cf}]/gu;

const codePoint = (c: string): string => `<U+${c.codePointAt(0)!.toString(16).toUpperCase().padStart(4, '0')}>`;

/** `text` with every character that could hide or repaint what a terminal shows written as `<U+XXXX>`. */
export function escapeForTerminal(text: string): { text: string; escaped: number } {
  let escaped = 0;
  const out = text.replace(HIDDEN, (c) => {
    escaped++;
    return codePoint(c);
  });
  return { text: out, escaped };
}

const FORMAT = /[\u2028\u2029\p{Cf}]/gu;

/** Only the format characters and separators as `<U+XXXX>`: for a table, which escapes control characters itself. */
export const escapeFormatChars = (text: string): string => text.replace(FORMAT, codePoint);

/**
 * The content as lines for a human, each after `prefix`, escaped; `cut` keeps the first CUT_LINES lines and
 * CUT_CHARS characters and then names the size and `handoff approval show ID`.
 */
export function contentBlock(id: string, content: string, opts: { cut: boolean; prefix?: string }): string {
  const prefix = opts.prefix ?? '| ';
  let shown = content;
  let cutDone = false;
  if (opts.cut) {
    const chars = Array.from(content);
    if (chars.length > CUT_CHARS) {
      shown = chars.slice(0, CUT_CHARS).join('');
      cutDone = true;
    }
    const lines = shown.split('\n');
    if (lines.length > CUT_LINES) {
      shown = lines.slice(0, CUT_LINES).join('\n');
      cutDone = true;
    }
  }
  const { text, escaped } = escapeForTerminal(shown);
  const out = text.split('\n').map((l) => `${prefix}${l}`);
  if (escaped > 0) out.push(`(${escaped} control or format character(s) shown as <U+XXXX>)`);
  if (cutDone) out.push(`… (${Buffer.byteLength(content, 'utf8')} bytes; handoff approval show ${id})`);
  return out.join('\n');
}

/** Whether the content is longer than what a cut output shows. */
export const exceedsCut = (content: string): boolean =>
  Array.from(content).length > CUT_CHARS || content.split('\n').length > CUT_LINES;

/**
 * The patch that writes an approval into an envelope: exact_content byte for byte (JSON-escaped, with every character
 * a terminal could hide written as a \u escape, which parses back to the same string) and the approval id. The same
 * input serves the turn that requests the approval and the turn that executes it.
 */
export function fillInput(approvalId: string, content: string): string {
  const json = JSON.stringify({ approval_request: { exact_content: content, approval_id: approvalId } });
  const unit = (u: string): string => `\\u${u.charCodeAt(0).toString(16).padStart(4, '0')}`;
  return json.replace(HIDDEN, (c) => c.split('').map(unit).join(''));
}

/** Where a fill goes: the requesting contract (a closed one opens its continuation), else the agent, else implicit. */
export function fillTarget(addressing: { draftId?: string | null; agentId?: string | null }): string {
  if (typeof addressing.draftId === 'string') return ` --draft-id ${addressing.draftId}`;
  if (typeof addressing.agentId === 'string') return ` --agent-id ${addressing.agentId}`;
  return '';
}

/** `handoff contract fill … --json '<patch>'`, one line for a POSIX shell. */
export const fillJsonLine = (
  approvalId: string,
  content: string,
  addressing: { draftId?: string | null; agentId?: string | null },
): string => `handoff contract fill${fillTarget(addressing)} --json ${shellQuote(fillInput(approvalId, content))}`;

/** `handoff contract fill … --json-file -`: the command that reads `fillInput` on stdin. */
export const fillStdinCommand = (addressing: { draftId?: string | null; agentId?: string | null }): string =>
  `handoff contract fill${fillTarget(addressing)} --json-file -`;

/**
 * The ready-to-run shell text: the stdin command with the input as a quoted here-document. The input is one line of
 * JSON starting with `{`, so it can never be mistaken for the closing delimiter.
 */
export const fillHereDoc = (
  approvalId: string,
  content: string,
  addressing: { draftId?: string | null; agentId?: string | null },
): string =>
  `${fillStdinCommand(addressing)} <<'HANDOFF_APPROVAL'\n${fillInput(approvalId, content)}\nHANDOFF_APPROVAL`;
