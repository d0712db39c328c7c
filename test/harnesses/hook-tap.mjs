// The program a tapped handoff's bin/run.js hands each call to (wiring.ts writes that file, with the real
// bin/run.js and the log in globalThis.HANDOFF_TAP): runs the real handoff with the same arguments, stdin and
// environment and passes its stdout, stderr and exit code through unchanged. For a hook call (`contract gate` or
// `approval gate`) it appends one JSON line to the log: the input, the exit code, both outputs, and the size of the
// transcript the input names at the moment of the call. The model's own `handoff` commands, which find the same
// `handoff` on the PATH, run with the tap's own stdio and are not logged. The harness suite counts hook calls and
// reads the block form from that log.
import { spawnSync } from 'node:child_process';
import { appendFileSync, readFileSync, statSync } from 'node:fs';
import process from 'node:process';

const { log, bin } = globalThis.HANDOFF_TAP;
const args = process.argv.slice(2);

if (!(['contract', 'approval'].includes(args[0]) && args[1] === 'gate')) {
  const r = spawnSync(process.execPath, [bin, ...args], { stdio: 'inherit', env: process.env });
  process.exit(r.status ?? 128);
}

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
const r = spawnSync(process.execPath, [bin, ...args], {
  input,
  env: process.env,
  maxBuffer: 64 * 1024 * 1024,
});
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
