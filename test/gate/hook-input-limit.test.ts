/**
 * The gate reads at most 64 MiB of hook input: past that it stops reading, the rest never read,
 * and answers HOOK_INPUT_TOO_LARGE (exit 1, the stop not gated). Each way stdin is read is held to it: a regular file
 * (readSync to the end), a pipe (the non-blocking pipe handle) and a pipe through `process.stdin` (a Node without
 * process.binding). A writer of 100 MiB is cut off near the limit, and the gate's peak memory stays far below what
 * reading it all took (448 MB).
 */
import { spawnSync } from 'node:child_process';
import { closeSync, openSync, readFileSync, truncateSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { BIN, baseEnv, FIXTURES, tempHome } from '../helpers/cli.js';

const MIB = 1024 * 1024;
const LIMIT = 64 * MIB;
const NO_BINDING = join(FIXTURES, 'no-process-binding.cjs');

/** A home, and a preload that writes the process's peak resident set (KiB) to a file when it exits. */
function setUp(): { home: string; preload: string; peakKiB: () => number } {
  const home = tempHome();
  const preload = join(home, 'peak-rss.cjs');
  const out = join(home, 'peak-rss.txt');
  writeFileSync(
    preload,
    `process.on('exit', () => require('node:fs').writeFileSync(${JSON.stringify(out)}, String(process.resourceUsage().maxRSS)));\n`,
  );
  return { home, preload, peakKiB: () => Number(readFileSync(out, 'utf8')) };
}

const gateArgs = (preloads: string[]): string[] => [
  ...preloads.flatMap((p) => ['--require', p]),
  BIN,
  'contract',
  'gate',
  '--json',
];

/** The gate's answer: exit 1 and the code, as --json prints it when the stop is not gated. */
function expectTooLarge(status: number | null, stdout: string, stderr: string): void {
  expect(status, stderr).toBe(1);
  expect(JSON.parse(stdout)).toMatchObject({ status: 'error', code: 'HOOK_INPUT_TOO_LARGE', limit_bytes: LIMIT });
  expect(stderr).toMatch(/^handoff contract gate: the hook input is over 67108864 bytes .*Stop not gated\.\n$/);
}

describe('hook input over 64 MiB', () => {
  it('a regular file of 100 MiB: HOOK_INPUT_TOO_LARGE, read no further than one byte past the limit', () => {
    const { home, preload, peakKiB } = setUp();
    const file = join(home, 'huge.json');
    writeFileSync(file, '');
    truncateSync(file, 100 * MIB); // sparse: no disk used
    const fd = openSync(file, 'r');
    try {
      const r = spawnSync(process.execPath, gateArgs([preload]), {
        env: baseEnv(home),
        cwd: home,
        stdio: [fd, 'pipe', 'pipe'],
        encoding: 'utf8',
      });
      expectTooLarge(r.status, r.stdout, r.stderr);
      // The child shared this open file: its offset is how far the gate read.
      const pos = Number(/^pos:\s+(\d+)/m.exec(readFileSync(`/proc/self/fdinfo/${fd}`, 'utf8'))![1]);
      expect(pos).toBe(LIMIT + 1);
    } finally {
      closeSync(fd);
    }
    expect(peakKiB() * 1024).toBeLessThan(256 * MIB);
  });

  /** A writer of 100 MiB into a pipe to the gate; how many bytes the gate took before it closed its end. */
  function throughPipe(preloads: string[]): { status: number | null; stdout: string; stderr: string; taken: number } {
    const { home, preload, peakKiB } = setUp();
    const writer = `let n = 0; const b = Buffer.alloc(${MIB}, 0x20); try { for (let i = 0; i < 100; i++) n += require('node:fs').writeSync(1, b); } catch {} require('node:fs').writeFileSync('taken.txt', String(n));`;
    const gate = gateArgs([...preloads, preload])
      .map((a) => `'${a}'`)
      .join(' ');
    const r = spawnSync('/bin/sh', ['-c', `'${process.execPath}' -e "${writer}" | '${process.execPath}' ${gate}`], {
      env: baseEnv(home),
      cwd: home,
      encoding: 'utf8',
    });
    expect(peakKiB() * 1024).toBeLessThan(256 * MIB);
    return {
      status: r.status,
      stdout: r.stdout,
      stderr: r.stderr,
      taken: Number(readFileSync(join(home, 'taken.txt'), 'utf8')),
    };
  }

  it('a pipe (the pipe handle): the writer is cut off near the limit', () => {
    const r = throughPipe([]);
    expectTooLarge(r.status, r.stdout, r.stderr);
    expect(r.taken).toBeGreaterThanOrEqual(LIMIT);
    expect(r.taken).toBeLessThan(LIMIT + 8 * MIB);
  });

  it('a pipe read through process.stdin (no process.binding): the writer is cut off near the limit', () => {
    const r = throughPipe([NO_BINDING]);
    expectTooLarge(r.status, r.stdout, r.stderr);
    expect(r.taken).toBeGreaterThanOrEqual(LIMIT);
    expect(r.taken).toBeLessThan(LIMIT + 8 * MIB);
  });
});
