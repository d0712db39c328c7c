/**
 * Approval patterns (`contract dispatch --require-approval`, `HANDOFF_APPROVAL_PATTERNS`): which tool calls need an
 * approval before they run. A pattern names a neutral class each harness adapter maps to its own tools, written in the
 * harnesses' permission-rule style: `Bash(SPEC)` (every shell tool; SPEC matched against the command text),
 * `Write(GLOB)` / `Edit(GLOB)` (the file-writing tools; GLOB against the path relative to the repository root) and
 * `mcp__SERVER__TOOL` (an MCP tool; `*` globs in either part). Kept free of heavy imports: the pre-tool hook loads it
 * on every tool call.
 */
import { HandoffError, jsonQuote } from '../errors.js';

export type PatternClass = 'Bash' | 'Write' | 'Edit' | 'mcp';

export interface ApprovalPattern {
  /** The pattern as written. */
  text: string;
  cls: PatternClass;
  /** Bash/Write/Edit: the text inside the parentheses; mcp: the whole tool-name glob. */
  spec: string;
}

/** A pattern is at most this many characters. */
const MAX_PATTERN_CHARS = 1000;
/** At most this many patterns on one contract. */
export const MAX_PATTERNS = 64;

const CALL_RE = /^(Bash|Write|Edit)\((.*)\)$/s;
const MCP_RE = /^mcp__[A-Za-z0-9_*.-]+__[A-Za-z0-9_*.-]+$/;
/** C0 controls, DEL and C1 controls. */
const hasControl = (s: string): boolean =>
  [...s].some((ch) => {
    const c = ch.codePointAt(0) as number;
    return c < 0x20 || (c >= 0x7f && c <= 0x9f);
  });

const patternInvalid = (text: string, source: string, why: string): HandoffError =>
  new HandoffError(
    'APPROVAL_PATTERN_INVALID',
    `${source} ${jsonQuote(text)} is not an approval pattern: ${why}; nothing was written`,
    { pattern: text },
    'Write Bash(COMMAND GLOB), Write(PATH GLOB), Edit(PATH GLOB) or mcp__SERVER__TOOL (globs with *), e.g. "Bash(git push *)".',
  );

/** Parses one pattern; APPROVAL_PATTERN_INVALID (exit 2) for an unknown class or a malformed one. */
export function parsePattern(text: string, source = '--require-approval'): ApprovalPattern {
  if (text.trim() === '') throw patternInvalid(text, source, 'it is blank');
  if (text.length > MAX_PATTERN_CHARS)
    throw patternInvalid(text, source, `it is longer than ${MAX_PATTERN_CHARS} characters`);
  if (hasControl(text)) throw patternInvalid(text, source, 'it holds a control character');
  const t = text.trim();
  const call = CALL_RE.exec(t);
  if (call !== null) {
    const spec = call[2].trim();
    if (spec === '') throw patternInvalid(text, source, `${call[1]}() needs a command or path inside the parentheses`);
    return { text: t, cls: call[1] as PatternClass, spec };
  }
  if (t.startsWith('mcp__')) {
    if (!MCP_RE.test(t)) throw patternInvalid(text, source, 'an MCP pattern is mcp__SERVER__TOOL');
    return { text: t, cls: 'mcp', spec: t };
  }
  const cls = /^[A-Za-z_]+/.exec(t)?.[0];
  throw patternInvalid(
    text,
    source,
    cls === undefined ? 'no class' : `unknown class ${jsonQuote(cls)} (known: Bash, Write, Edit, mcp__)`,
  );
}

/**
 * Splits `HANDOFF_APPROVAL_PATTERNS`: patterns separated by `;` or a line break outside parentheses (so
 * `Bash(a; b)` stays one pattern). Blank items are skipped.
 */
export function splitPatternList(value: string): string[] {
  const out: string[] = [];
  let depth = 0;
  let cur = '';
  for (const ch of value) {
    if (ch === '(') depth++;
    else if (ch === ')' && depth > 0) depth--;
    if (depth === 0 && (ch === ';' || ch === '\n' || ch === '\r')) {
      if (cur.trim() !== '') out.push(cur.trim());
      cur = '';
    } else cur += ch;
  }
  if (cur.trim() !== '') out.push(cur.trim());
  return out;
}

/** The project default from `HANDOFF_APPROVAL_PATTERNS`, checked (APPROVAL_PATTERN_INVALID names the variable). */
export function envPatterns(env: Record<string, string | undefined>): ApprovalPattern[] {
  const raw = env.HANDOFF_APPROVAL_PATTERNS;
  if (raw === undefined || raw.trim() === '') return [];
  return splitPatternList(raw).map((p) => parsePattern(p, 'HANDOFF_APPROVAL_PATTERNS item'));
}

/** The dispatch's list: the flags' patterns, then the project default; duplicates dropped, first order kept. */
export function dispatchPatterns(flags: readonly string[], env: Record<string, string | undefined>): string[] {
  const out: string[] = [];
  for (const p of [...flags.map((f) => parsePattern(f)), ...envPatterns(env)])
    if (!out.includes(p.text)) out.push(p.text);
  if (out.length > MAX_PATTERNS)
    throw new HandoffError(
      'APPROVAL_PATTERN_INVALID',
      `${out.length} approval patterns; a contract holds at most ${MAX_PATTERNS}; nothing was written`,
      { patterns: out.length, limit: MAX_PATTERNS },
    );
  return out;
}

/** The contract block's line: `require_approval: P1; P2` (read back by `patternsFromBlockLine`). */
export const blockLine = (patterns: readonly string[]): string => `require_approval: ${patterns.join('; ')}`;

/** The patterns of a `require_approval:` line's value; items that do not parse are dropped. */
export function patternsFromBlockValue(value: string): ApprovalPattern[] {
  const out: ApprovalPattern[] = [];
  for (const item of splitPatternList(value)) {
    try {
      out.push(parsePattern(item));
    } catch {
      // A line the agent or a user edited: an unreadable item is no pattern.
    }
  }
  return out;
}

/** A glob to a RegExp: `**` any text, `*` any text without `/` when `pathLike`, else any text; `?` one character. */
function globRe(glob: string, pathLike: boolean): RegExp {
  let re = '';
  for (let i = 0; i < glob.length; i++) {
    const ch = glob[i];
    if (ch === '*') {
      if (glob[i + 1] === '*') {
        i++;
        if (pathLike && glob[i + 1] === '/') {
          i++;
          re += '(?:.*/)?';
        } else re += '.*';
      } else re += pathLike ? '[^/]*' : '.*';
    } else if (ch === '?') re += pathLike ? '[^/]' : '.';
    else re += ch.replace(/[.+^${}()|[\]\\]/g, '\\$&');
  }
  return new RegExp(`^${re}$`, 's');
}

/** The neutral view of one tool call. */
export type NeutralCall =
  | { cls: 'Bash'; command: string }
  /** `more`: the other files of the same call (a patch touching several), each checked like `path`. */
  | { cls: 'Write' | 'Edit'; path: string; more?: string[] }
  | { cls: 'mcp'; tool: string }
  | { cls: 'other'; tool: string };

/** Whitespace runs outside quotes collapse, so `git  push` and `git push` are one command for a pattern. */
const squash = (s: string): string => s.trim().replace(/\s+/g, ' ');

/** Whether `p` covers `call`. Bash: SPEC against the trimmed command (a trailing `:*` is a prefix rule). */
export function matches(p: ApprovalPattern, call: NeutralCall): boolean {
  if (call.cls === 'other') return false;
  if (p.cls === 'mcp') return call.cls === 'mcp' && globRe(p.spec, false).test(call.tool);
  if (p.cls === 'Bash') {
    if (call.cls !== 'Bash') return false;
    const spec = p.spec.endsWith(':*') ? `${p.spec.slice(0, -2)}*` : p.spec;
    const re = globRe(squash(spec), false);
    // Every line and every `&&`/`;`/`|` segment is checked too: `cd x && git push` needs the approval of `git push *`.
    const whole = squash(call.command);
    if (re.test(whole)) return true;
    return call.command
      .split(/&&|\|\||[;|\n]/)
      .map(squash)
      .some((seg) => seg !== '' && re.test(seg));
  }
  if (call.cls !== 'Write' && call.cls !== 'Edit') return false;
  // Write(…) and Edit(…) each cover every file-writing tool: a guard errs on the side of asking.
  const re = globRe(p.spec, true);
  return [call.path, ...(call.more ?? [])].some((path) => re.test(path));
}
