/**
 * Reading stdin (src/cli/stdin.ts): a socket (what a harness written in Node hands its hook), a pipe (a shell's `|`)
 * and a file (`<`) are read whole without `process.stdin`, whose stream loads `net` and costs every stop gate call
 * about 4 ms; a writer that pauses is waited for; a Node without the pipe handle reads through `process.stdin`.
 */
import { spawn, spawnSync } from 'node:child_process';
import { closeSync, openSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { BIN, baseEnv, FIXTURES, RECORDER, recordedBuiltins, run, tempHome } from '../helpers/cli.js';

const D = 'a0123456789abcdef.0123456789ab';
/** A preload that takes process.binding away, as a Node that no longer offers it would. */
const NO_BINDING = join(FIXTURES, 'no-process-binding.cjs');

/** A fill input of about 300 KB (several reads of 64 KiB), with a marker at its end. */
function bigFill(): string {
  const prose = `${'0123456789abcdef'.repeat(300 * 64)}-the-end`;
  return JSON.stringify({ report_prose: prose, work_phase: 'executing' });
}

/** A home with the draft D; the env that runs the binary on it and records the built-ins it loads. */
function setUp(): { home: string; env: NodeJS.ProcessEnv; builtins: () => string[] } {
  const home = tempHome();
  expect(run(home, ['contract', 'init', '--draft-id', D]).code).toBe(0);
  const env = baseEnv(home, {
    RECORD_MODULES_FILE: join(home, 'modules.txt'),
    RECORD_BUILTINS_FILE: join(home, 'builtins.txt'),
  });
  const builtins = () => recordedBuiltins(join(home, 'builtins.txt'));
  return { home, env, builtins };
}

/** The draft's report_prose, read back. */
const proseOf = (home: string): string =>
  (
    JSON.parse(run(home, ['contract', 'view', '--draft-id', D, '--json']).stdout) as {
      envelope: { report_prose: string };
    }
  ).envelope.report_prose;

const FILL = [BIN, 'contract', 'fill', '--draft-id', D, '--json-file', '-'];
/** `args` as one line of a /bin/sh command, each word quoted. */
const shellWords = (args: string[]): string => args.map((a) => `"${a}"`).join(' ');

describe('stdin without process.stdin', () => {
  it('a socket, a pipe and a file are read whole, and none of them loads net or the stream modules', () => {
    const input = bigFill();
    const want = (JSON.parse(input) as { report_prose: string }).report_prose;
    const kinds: [string, (env: NodeJS.ProcessEnv, home: string) => number | null][] = [
      [
        'socket',
        (env, home) => spawnSync(process.execPath, ['--require', RECORDER, ...FILL], { env, cwd: home, input }).status,
      ],
      [
        'pipe',
        (env, home) => {
          writeFileSync(join(home, 'input.json'), input);
          const cmd = `cat input.json | ${shellWords([process.execPath, '--require', RECORDER, ...FILL])}`;
          return spawnSync('/bin/sh', ['-c', cmd], { env, cwd: home }).status;
        },
      ],
      [
        'file',
        (env, home) => {
          writeFileSync(join(home, 'input.json'), input);
          const fd = openSync(join(home, 'input.json'), 'r');
          try {
            return spawnSync(process.execPath, ['--require', RECORDER, ...FILL], {
              env,
              cwd: home,
              stdio: [fd, 'pipe', 'pipe'],
            }).status;
          } finally {
            closeSync(fd);
          }
        },
      ],
    ];
    for (const [kind, fill] of kinds) {
      const { home, env, builtins } = setUp();
      expect(fill(env, home), kind).toBe(0);
      const prose = proseOf(home);
      expect([prose.length, prose.endsWith('-the-end')], kind).toEqual([want.length, true]);
      expect(prose === want, kind).toBe(true);
      expect(
        builtins().filter((b) => ['net', 'stream'].includes(b)),
        kind,
      ).toEqual([]);
    }
  });

  it('the stop gate reads its hook input from a socket without net or the stream modules', () => {
    const { home, env, builtins } = setUp();
    const hook = JSON.stringify({ hook_event_name: 'Stop', session_id: 's1', stop_reason: 'end_turn' });
    const r = spawnSync(
      process.execPath,
      ['--require', RECORDER, BIN, 'contract', 'gate', '--on-missing', 'allow', '--json'],
      { env, cwd: home, input: hook, encoding: 'utf8' },
    );
    expect(r.status, r.stderr).toBe(0);
    // The session id came from the input.
    expect(JSON.parse(r.stdout)).toMatchObject({ decision: 'allow', breaker_key: 'session:s1' });
    expect(builtins().filter((b) => ['net', 'stream'].includes(b))).toEqual([]);
  });

  it.each(['socket', 'pipe'])(
    'a %s whose writer pauses halfway is waited for: the whole input lands',
    async (kind) => {
      const { home, env } = setUp();
      const input = bigFill();
      const child =
        kind === 'socket'
          ? spawn(process.execPath, FILL, { env, cwd: home, stdio: ['pipe', 'pipe', 'pipe'] })
          : // `cat` copies its stdin into a pipe it hands to the CLI.
            spawn('/bin/sh', ['-c', `cat | ${shellWords([process.execPath, ...FILL])}`], {
              env,
              cwd: home,
              stdio: ['pipe', 'pipe', 'pipe'],
            });
      let stderr = '';
      child.stderr.on('data', (c: Buffer) => (stderr += c.toString()));
      const exited = new Promise<number | null>((done) => child.on('exit', (code) => done(code)));
      const half = Math.floor(input.length / 2);
      child.stdin.write(input.slice(0, half));
      // Long enough for the reader to find nothing waiting and to wait at least once.
      await new Promise((done) => setTimeout(done, 300));
      child.stdin.end(input.slice(half));
      expect(await exited, stderr).toBe(0);
      expect(proseOf(home).endsWith('-the-end')).toBe(true);
      expect(proseOf(home).length).toBe((JSON.parse(input) as { report_prose: string }).report_prose.length);
    },
    30_000,
  );

  it('a Node without the pipe handle (no process.binding) reads a socket through process.stdin, as before', () => {
    const { home, env, builtins } = setUp();
    const input = bigFill();
    const r = spawnSync(process.execPath, ['--require', NO_BINDING, '--require', RECORDER, ...FILL], {
      env,
      cwd: home,
      input,
      encoding: 'utf8',
    });
    expect(r.status, r.stderr).toBe(0);
    expect(r.stderr).toBe('');
    expect(proseOf(home).endsWith('-the-end')).toBe(true);
    // The stream was the way in.
    expect(builtins()).toContain('net');
  });

  it('a warning process.binding would raise under --pending-deprecation stays off stderr (a harness reads it)', () => {
    const { home, env } = setUp();
    const r = spawnSync(process.execPath, ['--pending-deprecation', ...FILL], {
      env,
      cwd: home,
      input: bigFill(),
      encoding: 'utf8',
    });
    expect(r.status, r.stderr).toBe(0);
    expect(r.stderr).toBe('');
    expect(proseOf(home).endsWith('-the-end')).toBe(true);
  });
});
