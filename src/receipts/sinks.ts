/**
 * The pass-through of the child's output (receipts.md §1, cli-contract-drafts.md §4.1): raw bytes, unchanged; under
 * --json the child's stdout goes to stderr so stdout carries only the result object. A stream whose reader went
 * away (EPIPE, e.g. `handoff evidence run -- cmd | head`) reports 'closed', and the child's group gets SIGPIPE.
 */
import type { Sinks } from './execute.js';

function sink(stream: NodeJS.WriteStream): (chunk: Buffer) => void | 'closed' {
  let gone = false;
  stream.on('error', (e: NodeJS.ErrnoException) => {
    if (e.code === 'EPIPE') gone = true;
  });
  return (chunk) => {
    if (gone) return 'closed';
    stream.write(chunk);
  };
}

export function passThroughSinks(json: boolean): Sinks {
  const err = sink(process.stderr);
  return { stdout: json ? err : sink(process.stdout), stderr: err };
}
