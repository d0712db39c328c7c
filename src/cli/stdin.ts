/** Reading all of stdin for a verb (`--file -`, `--json-file -`, hook JSON). */
import { fstatSync } from 'node:fs';
import { HandoffError } from '../errors.js';

export async function readStdin(): Promise<Buffer> {
  // The process.stdin stream reads a directory or a closed descriptor as an empty input, so look at fd 0 first: only
  // a failed or impossible read is UNREADABLE_INPUT. The bytes themselves come from the stream, which (unlike a
  // readFileSync(0) interrupted by EAGAIN on a non-blocking pipe) never drops a chunk.
  let isDirectory: boolean;
  try {
    isDirectory = fstatSync(0).isDirectory();
  } catch (e) {
    throw unreadableStdin(e);
  }
  if (isDirectory) throw unreadableStdin(new Error('stdin is a directory'));
  const chunks: Buffer[] = [];
  try {
    for await (const chunk of process.stdin) chunks.push(chunk as Buffer);
  } catch (e) {
    throw unreadableStdin(e);
  }
  return Buffer.concat(chunks);
}

const unreadableStdin = (e: unknown): HandoffError =>
  new HandoffError('UNREADABLE_INPUT', `cannot read stdin: ${(e as Error).message}`);
