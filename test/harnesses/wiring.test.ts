/**
 * The hook tap the harness suite wraps each configured hook command in: the harness sees the command's own stdout,
 * stderr and exit code, and the log holds one line per call, with the size its transcript had at that moment.
 */
import { spawnSync } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { tempHome } from '../helpers/cli.js';
import { readTap, tapped } from './wiring.js';

describe('hook tap', () => {
  it('passes output and exit code through and logs each call with its input', () => {
    const dir = tempHome();
    const log = join(dir, 'calls.jsonl');
    const command = `cat >/dev/null; printf '{"decision":"block"}'; echo "it's a reason" >&2; exit 2`;
    const shell = tapped(command, log);
    const transcript = join(dir, 'transcript.jsonl');
    writeFileSync(transcript, '{"type":"user"}\n');
    const input = JSON.stringify({ hook_event_name: 'Stop', transcript_path: transcript });
    const first = spawnSync('/bin/sh', ['-c', shell], { input, encoding: 'utf8' });
    expect([first.status, first.stdout, first.stderr]).toEqual([2, '{"decision":"block"}', "it's a reason\n"]);
    const second = spawnSync('/bin/sh', ['-c', tapped('exit 0', log)], { input: 'not json', encoding: 'utf8' });
    expect([second.status, second.stdout, second.stderr]).toEqual([0, '', '']);
    expect(readTap(log)).toEqual([
      {
        input: { hook_event_name: 'Stop', transcript_path: transcript },
        exit: 2,
        stdout: '{"decision":"block"}',
        stderr: "it's a reason\n",
        transcript_bytes: 16,
      },
      { input: { unparsed: 'not json' }, exit: 0, stdout: '', stderr: '', transcript_bytes: null },
    ]);
  });

  it('reads no calls from a log that was never written', () => {
    expect(readTap(join(tempHome(), 'none.jsonl'))).toEqual([]);
  });
});
