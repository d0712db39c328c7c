/**
 * One error model for the whole tool. Operational failures throw HandoffError; the CLI layer maps it to the
 * exit-code table. Validation never throws: it returns errors as data.
 */
import { defaultExit, type Code } from './codes/index.js';

export const EXIT = {
  OK: 0,
  REJECTED: 1,
  USAGE: 2,
  NOT_FOUND: 3,
  STORE: 4,
  INTERNAL: 70,
} as const;

export type ExitCode = (typeof EXIT)[keyof typeof EXIT];

export class HandoffError extends Error {
  readonly code: string;
  /** The code's default exit from the registry (src/codes/); a verb's override is applied where output is made. */
  readonly exit: number;
  /** Extra fields merged into the JSON error object (`candidates`, `collisions`, ...). */
  readonly data: Record<string, unknown>;
  /** Optional "what to do next" line, appended to the human message. */
  readonly hint: string | undefined;

  /** A registered code; its exit comes from the registry. */
  constructor(code: Code, message: string, data?: Record<string, unknown>, hint?: string);
  /** @deprecated The exit is the registry's: write `new HandoffError(code, message, data?, hint?)`. */
  constructor(code: string, exit: number, message: string, data?: Record<string, unknown>, hint?: string);
  constructor(
    code: string,
    ...rest: [string, Record<string, unknown>?, string?] | [number, string, Record<string, unknown>?, string?]
  ) {
    const explicit = typeof rest[0] === 'number';
    const [exit, message, data, hint] = (explicit ? rest : [undefined, ...rest]) as [
      number | undefined,
      string,
      Record<string, unknown>?,
      string?,
    ];
    super(message);
    this.name = 'HandoffError';
    this.code = code;
    this.exit = exit ?? defaultExit(code) ?? EXIT.INTERNAL;
    this.data = data ?? {};
    this.hint = hint;
  }

  /** `rejected` for exit 1 (a refusal), `error` for every other exit. */
  get status(): 'rejected' | 'error' {
    return statusOf(this.exit);
  }
}

/** `rejected` for exit 1 (a refusal), `error` for every other exit. */
export const statusOf = (exit: number): 'rejected' | 'error' => (exit === EXIT.REJECTED ? 'rejected' : 'error');

export const usage = (message: string, data?: Record<string, unknown>): HandoffError =>
  new HandoffError('USAGE', message, data);

export const isHandoffError = (e: unknown): e is HandoffError => e instanceof HandoffError;

/** JSON text of a value for messages, truncated to about 80 characters. */
export function jsonQuote(value: unknown, max = 80): string {
  let text: string;
  try {
    text = value === undefined ? 'undefined' : JSON.stringify(value);
  } catch {
    text = String(value);
  }
  if (text === undefined) text = String(value);
  return text.length > max ? `${text.slice(0, max - 3)}...` : text;
}
