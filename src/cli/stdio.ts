/**
 * The CLI's standard streams without Node's stream objects (docs/decisions.md, "Fast start"). The first touch of
 * `process.stdout` builds a stream for the descriptor (for a pipe a net.Socket, which loads net, stream and tty):
 * several milliseconds of every call that prints one line. A verb's output is written with `fs.writeSync` instead;
 * the stream objects are built only on the rare paths that need them (a non-blocking descriptor, a child's output
 * passed through).
 */
import { fstatSync, writeSync } from 'node:fs';
import { isatty } from 'node:tty';

export type StdName = 'stdout' | 'stderr';
const FD: Record<StdName, 1 | 2> = { stdout: 1, stderr: 2 };

const guarded = new Set<StdName>();
/** Streams whose reader went away (an EPIPE reported by the stream object). */
const gone = new Set<StdName>();

/** `process.stdout` or `process.stderr`, with a closed reader (EPIPE) ignored rather than thrown. */
export function stdStream(name: StdName): NodeJS.WriteStream {
  const stream = process[name];
  if (!guarded.has(name)) {
    guarded.add(name);
    stream.on('error', (err: NodeJS.ErrnoException) => {
      if (err.code !== 'EPIPE') throw err;
      gone.add(name);
    });
  }
  return stream;
}

/**
 * Writes all of `chunk` to stdout or stderr, synchronously. A reader that went away (EPIPE) is not an error of the
 * verb: the rest is dropped and false returned (a pass-through then stops). A non-blocking descriptor that is full
 * (EAGAIN) hands the rest to the stream, which queues it and drains it before the process exits. Once the stream
 * exists (help, mcp, a descriptor that was full), everything goes through it, so nothing overtakes what it still
 * holds.
 */
export function writeStd(name: StdName, chunk: string | Uint8Array): boolean {
  if (gone.has(name)) return false;
  if (chunk.length === 0) return true;
  if (guarded.has(name)) {
    stdStream(name).write(chunk);
    return !gone.has(name);
  }
  const bytes = typeof chunk === 'string' ? Buffer.from(chunk, 'utf8') : chunk;
  let off = 0;
  while (off < bytes.length) {
    try {
      off += writeSync(FD[name], bytes, off, bytes.length - off);
    } catch (e) {
      const code = (e as NodeJS.ErrnoException).code;
      if (code === 'EPIPE') {
        gone.add(name);
        return false;
      }
      if (code === 'EAGAIN') {
        stdStream(name).write(bytes.subarray(off));
        return true;
      }
      throw e;
    }
  }
  return true;
}

const terminal: (boolean | undefined)[] = [];

/**
 * Whether descriptor `fd` is a terminal (asked once per descriptor: a verb asks for every notice it prints). Only a
 * character device can be one, and an fstat costs far less than loading the tty module, so a pipe, a file or
 * /dev/null (how agents and tests run the CLI) never loads it.
 */
export function isTerminal(fd: 0 | 1 | 2): boolean {
  return (terminal[fd] ??= askTerminal(fd));
}

function askTerminal(fd: 0 | 1 | 2): boolean {
  try {
    const st = fstatSync(fd);
    if (!st.isCharacterDevice()) return false;
    // Linux's memory devices (/dev/null, /dev/zero, ...) have major number 1; no terminal does.
    if (process.platform === 'linux' && ((st.rdev >>> 8) & 0xfff) === 1 && st.rdev < 2 ** 20) return false;
  } catch {
    return false;
  }
  return isatty(fd);
}
