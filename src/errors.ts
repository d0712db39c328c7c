/**
 * One error model for the whole tool. Operational failures throw HandoffError; the CLI layer maps it to the
 * exit-code table. Validation never throws: it returns errors as data.
 */
export const EXIT = {
  OK: 0,
  REJECTED: 1,
  USAGE: 2,
  NOT_FOUND: 3,
  STORE: 4,
  INTERNAL: 70,
} as const;


export class HandoffError extends Error {
  readonly code: string;
  readonly exit: number;
  /** Extra fields merged into the JSON error object (`candidates`, `collisions`, ...). */
  readonly data: Record<string, unknown>;
  /** Optional "what to do next" line, appended to the human message. */
  readonly hint: string | undefined;

  constructor(code: string, exit: number, message: string, data: Record<string, unknown> = {}, hint?: string) {
    super(message);
    this.name = 'HandoffError';
    this.code = code;
    this.exit = exit;
    this.data = data;
    this.hint = hint;
  }

  /** `rejected` for exit 1 (a refusal), `error` for every other exit. */
  get status(): 'rejected' | 'error' {
    return this.exit === EXIT.REJECTED ? 'rejected' : 'error';
  }
}

export const usage = (message: string, data?: Record<string, unknown>): HandoffError =>
  new HandoffError('USAGE', EXIT.USAGE, message, data);

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
