/**
 * The pass-through of the child's output: raw bytes, unchanged; under
 * --json the child's stdout goes to stderr so stdout carries only the result object. A stream whose reader went
 * away (EPIPE, e.g. `handoff evidence run -- cmd | head`) reports 'closed', and the child's group gets SIGPIPE.
 *
 * Our own stderr lines (the notices, `Receipt … recorded`, an error) come "after the child's output, one line"
 *: the stderr sink remembers whether the last byte it wrote was a newline, and `endLine()` emits
 * one when it was not, so our line never runs onto the child's last one. It writes nothing otherwise, so the
 * pass-through stays byte-exact when we print nothing of our own.
 */
import type { Rendered, Writer } from '../render/result.js';
import type { Sinks } from './execute.js';

type Sink = (chunk: Buffer) => void | 'closed';

/** Remembers whether the last byte written to a stream was a newline. */
class LineState {
  private midLine = false;
  constructor(private readonly write: Writer) {}
  wrote(chunk: Buffer): void {
    if (chunk.length > 0) this.midLine = chunk[chunk.length - 1] !== 0x0a;
  }
  end(): void {
    if (!this.midLine) return;
    this.midLine = false;
    this.write('\n');
  }
}

function sink(write: Writer, line: LineState): Sink {
  let gone = false;
  return (chunk) => {
    if (gone) return 'closed';
    if (!write(chunk)) {
      gone = true;
      return 'closed';
    }
    line.wrote(chunk);
  };
}

export interface PassThroughSinks extends Sinks {
  /** Writes a newline to that stream when the pass-through left it mid-line; a no-op otherwise. */
  endLine(stream: 'stdout' | 'stderr'): void;
}

/** The two writers a child's output passes through (the process's stream objects, or a caller's buffers). */
export interface PassThroughWriters {
  stdout: Writer;
  stderr: Writer;
}

export function passThroughSinks(writers: PassThroughWriters, json: boolean): PassThroughSinks {
  const lines = { stdout: new LineState(writers.stdout), stderr: new LineState(writers.stderr) };
  const err = sink(writers.stderr, lines.stderr);
  return {
    stdout: json ? err : sink(writers.stdout, lines.stdout),
    stderr: err,
    endLine: (stream) => lines[stream].end(),
  };
}

/**
 * Wires a verb's output around the pass-through: every notice starts on a fresh stderr line; in human mode so does
 * the line the framework prints on stderr after the run (the recorded line, or an error), and a `text` result (on
 * stdout) starts on a fresh stdout line. Under --json only a notice can add to stderr, and stdout carries only the
 * result object.
 */
export async function withLineDiscipline(
  writers: PassThroughWriters,
  json: boolean,
  notice: (line: string) => void,
  fn: (sinks: PassThroughSinks, notice: (line: string) => void) => Promise<Rendered>,
): Promise<Rendered> {
  const sinks = passThroughSinks(writers, json);
  const fresh = (line: string): void => {
    sinks.endLine('stderr');
    notice(line);
  };
  let result: Rendered | undefined;
  try {
    result = await fn(sinks, fresh);
    return result;
  } finally {
    if (!json) {
      sinks.endLine('stderr');
      if (result?.text !== undefined && result.text !== '') sinks.endLine('stdout');
    }
  }
}
