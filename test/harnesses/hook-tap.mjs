// Stands between a harness and the hook command it was configured with: runs the command through /bin/sh with the
// same stdin and environment, passes its stdout, stderr and exit code through unchanged, and appends one JSON line
// per call to a log (the input, the exit code, both outputs, and the size of the transcript the input names at the
// moment of the call). The harness suite counts hook calls and reads the block form from that log.
//
//   node hook-tap.mjs LOG BASE64_COMMAND
import { spawnSync } from 'node:child_process';
import { appendFileSync, readFileSync, statSync } from 'node:fs';
import process from 'node:process';
import { Buffer } from 'node:buffer';

const [log, encoded] = process.argv.slice(2);
const command = Buffer.from(encoded, 'base64').toString('utf8');
const input = readFileSync(0);
/** Bytes in the transcript the input names when the hook is called (null: none named, or no such file yet). */
function transcriptBytes() {
  try {
    const i = JSON.parse(input.toString('utf8'));
    const path = i.transcript_path ?? i.transcriptPath;
    return typeof path === 'string' ? statSync(path).size : null;
  } catch {
    return null;
  }
}
const transcript = transcriptBytes();
const r = spawnSync('/bin/sh', ['-c', command], { input, env: process.env, maxBuffer: 64 * 1024 * 1024 });
const exit = r.status ?? 128;
appendFileSync(
  log,
  JSON.stringify({
    input: input.toString('utf8'),
    exit,
    stdout: r.stdout.toString('utf8'),
    stderr: r.stderr.toString('utf8'),
    transcript_bytes: transcript,
  }) + '\n',
);
process.stdout.write(r.stdout);
process.stderr.write(r.stderr);
process.exitCode = exit;
