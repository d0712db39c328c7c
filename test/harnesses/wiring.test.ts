/**
 * The tapped handoff the harness suite installs the gate from: each call reaches the real program with the same
 * arguments and stdin, the harness sees that program's own stdout, stderr and exit code, and the log holds one line
 * per call, with the size its transcript had at that moment.
 */
import { spawnSync } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { tempHome } from '../helpers/cli.js';
import { readTap, tapInstall } from './wiring.js';

describe('hook tap', () => {
  it('passes arguments, stdin, output and exit code through and logs each hook call (a gate verb) with its input', () => {
    const dir = tempHome();
    const log = join(dir, 'calls.jsonl');
    // Stands in for bin/run.js: echoes its arguments and stdin's size, writes a reason, exits 2 on "block".
    const real = join(dir, 'real.cjs');
    writeFileSync(
      real,
      `const input = require('node:fs').readFileSync(0, 'utf8');
process.stdout.write(JSON.stringify({ args: process.argv.slice(2), bytes: input.length }));
process.stderr.write("it's a reason\\n");
process.exitCode = process.argv.includes('block') ? 2 : 0;
`,
    );
    const tap = tapInstall(join(dir, 'handoff'), log, real);
    expect(tap).toBe(join(dir, 'handoff', 'bin', 'run.js'));
    const transcript = join(dir, 'transcript.jsonl');
    writeFileSync(transcript, '{"type":"user"}\n');
    const input = JSON.stringify({ hook_event_name: 'Stop', transcript_path: transcript });
    const first = spawnSync('/bin/sh', ['-c', `"${process.execPath}" "${tap}" contract gate block`], {
      input,
      encoding: 'utf8',
    });
    const out = JSON.stringify({ args: ['contract', 'gate', 'block'], bytes: input.length });
    expect([first.status, first.stdout, first.stderr]).toEqual([2, out, "it's a reason\n"]);
    const second = spawnSync(process.execPath, [tap, 'approval', 'gate'], { input: 'not json', encoding: 'utf8' });
    expect(second.status).toBe(0);
    // Not a hook call (the model's own `handoff` command through the same tap): run with the tap's stdio, not logged.
    const third = spawnSync(process.execPath, [tap, 'contract', 'fill', 'block'], { input: 'xyz', encoding: 'utf8' });
    expect([third.status, third.stdout]).toEqual([
      2,
      JSON.stringify({ args: ['contract', 'fill', 'block'], bytes: 3 }),
    ]);
    expect(readTap(log)).toEqual([
      {
        input: { hook_event_name: 'Stop', transcript_path: transcript },
        exit: 2,
        stdout: out,
        stderr: "it's a reason\n",
        transcript_bytes: 16,
      },
      {
        input: { unparsed: 'not json' },
        exit: 0,
        stdout: JSON.stringify({ args: ['approval', 'gate'], bytes: 8 }),
        stderr: "it's a reason\n",
        transcript_bytes: null,
      },
    ]);
  });

  it('reads no calls from a log that was never written', () => {
    expect(readTap(join(tempHome(), 'none.jsonl'))).toEqual([]);
  });
});
