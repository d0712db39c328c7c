/**
 * Where strict JSON text goes wrong, as a line and a column. Node's own JSON.parse message
 * quotes the input (`Unexpected token 'x', "secret..." is not valid JSON`), so it is never passed on: a message about
 * an input file must not carry the file's content. This scanner runs only after JSON.parse failed; it is iterative
 * (no input depth reaches the stack) and linear.
 */

export interface JsonErrorAt {
  /** 1-based line (lines end at `\n`). */
  line: number;
  /** 1-based column, in UTF-16 code units from the start of the line. */
  column: number;
  /** What was found there, in words; never the text itself. */
  problem: string;
}

const WS = new Set([0x20, 0x09, 0x0a, 0x0d]);
const ESCAPES = new Set(['"', '\\', '/', 'b', 'f', 'n', 'r', 't']);
const HEX = /^[0-9a-fA-F]{4}$/;
const NUMBER = /-?(?:0|[1-9][0-9]*)(?:\.[0-9]+)?(?:[eE][+-]?[0-9]+)?/y;

type Expect = 'value' | 'value-or-close' | 'key' | 'key-or-close' | 'colon' | 'comma-or-close' | 'end';

class Failure {
  constructor(
    readonly offset: number,
    readonly problem: string,
  ) {}
}

/** The offset and kind of the first syntax error of `text`, or undefined when it is valid JSON. */
function scan(text: string): Failure | undefined {
  const stack: ('{' | '[')[] = [];
  let expect: Expect = 'value';
  let i = 0;
  const unexpected = (): Failure =>
    i >= text.length ? new Failure(i, 'unexpected end of input') : new Failure(i, 'unexpected character');
  const afterValue = (): Expect => (stack.length === 0 ? 'end' : 'comma-or-close');
  for (;;) {
    while (i < text.length && WS.has(text.charCodeAt(i))) i++;
    if (i >= text.length) return expect === 'end' ? undefined : unexpected();
    const c = text[i];
    switch (expect) {
      case 'end':
        return unexpected();
      case 'colon':
        if (c !== ':') return unexpected();
        i++;
        expect = 'value';
        continue;
      case 'comma-or-close': {
        const top = stack[stack.length - 1];
        if (c === ',') {
          i++;
          expect = top === '{' ? 'key' : 'value';
          continue;
        }
        if ((top === '{' && c === '}') || (top === '[' && c === ']')) {
          i++;
          stack.pop();
          expect = afterValue();
          continue;
        }
        return unexpected();
      }
      case 'key':
      case 'key-or-close':
        if (c === '}' && expect === 'key-or-close') {
          i++;
          stack.pop();
          expect = afterValue();
          continue;
        }
        if (c !== '"') return unexpected();
        {
          const end = scanString(text, i);
          if (end instanceof Failure) return end;
          i = end;
        }
        expect = 'colon';
        continue;
      default: {
        // 'value' or 'value-or-close'
        if (c === ']' && expect === 'value-or-close') {
          i++;
          stack.pop();
          expect = afterValue();
          continue;
        }
        if (c === '{' || c === '[') {
          stack.push(c);
          i++;
          expect = c === '{' ? 'key-or-close' : 'value-or-close';
          continue;
        }
        const end = scanScalar(text, i);
        if (end instanceof Failure) return end;
        i = end;
        expect = afterValue();
      }
    }
  }
}

/** A string starting at `start` (a `"`): the offset after its closing quote, or the failure. */
function scanString(text: string, start: number): number | Failure {
  let i = start + 1;
  while (i < text.length) {
    const code = text.charCodeAt(i);
    if (code === 0x22) return i + 1;
    if (code < 0x20) return new Failure(i, 'a control character inside a string (escape it)');
    if (code === 0x5c) {
      const e = text[i + 1];
      if (e === undefined) return new Failure(i + 1, 'unexpected end of input inside a string');
      if (e === 'u') {
        if (!HEX.test(text.slice(i + 2, i + 6))) return new Failure(i, 'an invalid \\u escape inside a string');
        i += 6;
        continue;
      }
      if (!ESCAPES.has(e)) return new Failure(i, 'an invalid escape inside a string');
      i += 2;
      continue;
    }
    i++;
  }
  return new Failure(i, 'unexpected end of input inside a string');
}

/** A string, number or literal starting at `start`: the offset after it, or the failure. */
function scanScalar(text: string, start: number): number | Failure {
  const c = text[start];
  if (c === '"') return scanString(text, start);
  for (const word of ['true', 'false', 'null']) {
    if (text.startsWith(word, start)) return start + word.length;
  }
  NUMBER.lastIndex = start;
  const m = NUMBER.exec(text);
  if (m !== null && m[0] !== '' && m[0] !== '-') return start + m[0].length;
  return new Failure(start, start >= text.length ? 'unexpected end of input' : 'unexpected character');
}

function lineAndColumn(text: string, offset: number): { line: number; column: number } {
  let line = 1;
  let lineStart = 0;
  for (let i = text.indexOf('\n'); i !== -1 && i < offset; i = text.indexOf('\n', i + 1)) {
    line++;
    lineStart = i + 1;
  }
  return { line, column: offset - lineStart + 1 };
}

/** Where `text` (which JSON.parse refused) goes wrong; the position of the end of input when nothing else is found. */
export function locateJsonError(text: string): JsonErrorAt {
  const failure = scan(text) ?? new Failure(text.length, 'not valid JSON');
  return { ...lineAndColumn(text, failure.offset), problem: failure.problem };
}

/** The one-line description used in every message: `<problem> at line L, column C`. */
export function describeJsonError(text: string): string {
  const at = locateJsonError(text);
  return `${at.problem} at line ${at.line}, column ${at.column}`;
}
