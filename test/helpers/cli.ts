/**
 * Drives the built binary end to end. Every test gets its own HANDOFF_HOME temp dir (tempHome()).
 */
import { spawn, spawnSync, type SpawnSyncReturns } from 'node:child_process';
import { MessageChannel, receiveMessageOnPort, Worker } from 'node:worker_threads';
import { lstatSync, mkdtempSync, readdirSync, readFileSync, readlinkSync, existsSync, writeFileSync } from 'node:fs';
import { setPriority, tmpdir } from 'node:os';
import { delimiter, join, resolve } from 'node:path';

export const REPO = resolve(import.meta.dirname, '..', '..');
export const BIN = join(REPO, 'bin', 'run.js');

/**
 * `handoff` on the PATH, as a user who installed it has it: a project-scope hook names `handoff` through the PATH
 * only, so the hooks the tests install and run find this checkout's bin/run.js through a one-line shim in a temp
 * folder outside every test's workspace, put first on this process's PATH (children and in-process runs inherit it).
 */
export const HANDOFF_BIN_DIR = mkdtempSync(join(tmpdir(), 'handoff-path-'));
writeFileSync(join(HANDOFF_BIN_DIR, 'handoff'), `#!/bin/sh\nexec "${process.execPath}" "${BIN}" "$@"\n`, {
  mode: 0o755,
});
process.env.PATH = `${HANDOFF_BIN_DIR}${delimiter}${process.env.PATH ?? ''}`;
/** Test data kept in the repository (the validator's public cases, fixtures). */
export const FIXTURES = join(REPO, 'test', 'fixtures');
/** Preloaded with `node --require`: records the modules a process loaded (test/fixtures/record-modules.cjs). */
export const RECORDER = join(FIXTURES, 'record-modules.cjs');

/** The public built-ins (`NativeModule x`, not internal/...) the recorder wrote to `file` ($RECORD_BUILTINS_FILE). */
export function recordedBuiltins(file: string): string[] {
  return readFileSync(file, 'utf8')
    .split('\n')
    .filter((l) => l.startsWith('NativeModule ') && !l.includes('internal/'))
    .map((l) => l.slice(13));
}

export interface RunResult {
  code: number;
  stdout: string;
  stderr: string;
  /** stdout parsed as JSON when it is exactly one JSON object line, else undefined. */
  json: any;
}

export interface RunOptions {
  env?: Record<string, string | undefined>;
  input?: string | Buffer;
  cwd?: string;
  timeout?: number;
  /**
   * Start the real binary instead of running the verb in-process. What needs a process says so: start-up, signals
   * and timeouts, locks across processes, the stop gate as a hook, a long-running server. `contract gate` and `mcp`
   * always run as a process.
   */
  process?: boolean;
  /**
   * `runAsync` only: the process at the lowest CPU priority. For a test that starts a flood of processes to show
   * they all land: at normal priority a hundred of them starve the other workers' tests of the CPU, and a test with
   * a time budget there (the gate's) runs out of it. Only the order in which the kernel hands out CPU changes.
   */
  background?: boolean;
}

/** A fresh data root; pass it as HANDOFF_HOME. */
/**
 * One call of each hot verb (init, set, add, fill, view, validate) on draft `draftId`, the first creating it; the
 * start-up tests record what these load. `envelopeFile` is a file for `validate --file`.
 */
export function hotVerbCalls(draftId: string, envelopeFile: string): string[][] {
  return [
    ['contract', 'init', '--draft-id', draftId, '--json'],
    ['contract', 'set', 'work_phase', 'executing', '--draft-id', draftId],
    ['contract', 'add', 'evidence_report.commands_run', 'npm test', '--draft-id', draftId],
    ['contract', 'fill', '--draft-id', draftId, '--json', '{"report_prose":"p"}'],
    ['contract', 'view', '--draft-id', draftId],
    ['contract', 'validate', '--draft-id', draftId],
    ['contract', 'validate', '--file', envelopeFile],
  ];
}

export function tempHome(prefix = 'handoff-test-'): string {
  return mkdtempSync(join(tmpdir(), prefix));
}

export function baseEnv(home: string | undefined, extra: Record<string, string | undefined> = {}): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = { ...process.env, NO_COLOR: '1' };
  delete env.HANDOFF_DB;
  delete env.HANDOFF_WORKSPACE;
  delete env.HANDOFF_DEBUG;
  // An outer HANDOFF_STORE_URL must never turn a SQLite test into a PostgreSQL one: a test sets it explicitly.
  delete env.HANDOFF_STORE_URL;
  if (home !== undefined) env.HANDOFF_HOME = home;
  for (const [k, v] of Object.entries(extra)) {
    if (v === undefined) delete env[k];
    else env[k] = v;
  }
  return env;
}

function toResult(r: SpawnSyncReturns<string>): RunResult {
  let json: unknown;
  const out = r.stdout ?? '';
  if (out.endsWith('\n') && out.indexOf('\n') === out.length - 1) {
    try {
      json = JSON.parse(out);
    } catch {
      json = undefined;
    }
  }
  return { code: r.status ?? (r.signal ? 128 : -1), stdout: out, stderr: r.stderr ?? '', json };
}

/**
 * Runs `handoff ...args` synchronously with HANDOFF_HOME=home: in-process (the shipped bundle's `execute`, in a worker
 * thread of this process) unless the verb needs a process (RunOptions.process, the gate, mcp).
 */
export function run(home: string | undefined, args: string[], opts: RunOptions = {}): RunResult {
  return needsProcess(args, opts) ? runProcess(home, args, opts) : runInProcess(home, args, opts);
}

/**
 * The verbs that always run as a process: the MCP server, and the stop gate with a `--timeout` (the tests of its
 * budget: only a process has the watchdog thread and the process-wide end). The gate without one runs in-process,
 * where its default budget counts from the call's start.
 */
function needsProcess(args: string[], opts: RunOptions): boolean {
  const gate = args[0] === 'contract' && args[1] === 'gate';
  return opts.process === true || (gate && args.includes('--timeout')) || args[0] === 'mcp';
}

/**
 * Refuses to start the binary from a file of the in-process project: a file that needs a process is listed in the
 * process project (vitest.config.ts), so the split stays true.
 */
export function assertProcessProject(what: string): void {
  if (process.env.HANDOFF_TEST_PROJECT === 'in-process') {
    throw new Error(`${what} starts the real binary: list this test file in PROCESS (vitest.config.ts)`);
  }
}

/** Runs `handoff ...args` as a process (bin/run.js), synchronously. */
export function runProcess(home: string | undefined, args: string[], opts: RunOptions = {}): RunResult {
  assertProcessProject(`handoff ${args.slice(0, 2).join(' ')}`);
  const r = spawnSync(process.execPath, [BIN, ...args], {
    env: baseEnv(home, opts.env),
    input: opts.input ?? '',
    cwd: opts.cwd ?? home ?? process.cwd(),
    encoding: 'utf8',
    timeout: opts.timeout ?? 60_000,
  });
  return toResult(r);
}

let inProcessWorker: Worker | undefined;

/** The worker thread that holds the loaded bundle (one per test file's process, made on first use). */
function bundleWorker(): Worker {
  if (inProcessWorker === undefined) {
    inProcessWorker = new Worker(join(REPO, 'test', 'helpers', 'inproc-worker.cjs'), { workerData: { bin: BIN } });
    inProcessWorker.unref();
  }
  return inProcessWorker;
}

/** The verb through the bundle's `execute(argv, io)`: env, cwd and stdin handed over, stdout and stderr collected. */
export function runInProcess(home: string | undefined, args: string[], opts: RunOptions = {}): RunResult {
  const worker = bundleWorker();
  const { port1, port2 } = new MessageChannel();
  const flag = new Int32Array(new SharedArrayBuffer(4));
  const input = opts.input ?? '';
  const stdin = typeof input === 'string' ? input : new Uint8Array(input);
  worker.postMessage(
    { argv: args, env: baseEnv(home, opts.env), cwd: opts.cwd ?? home ?? process.cwd(), stdin, flag, port: port2 },
    [port2],
  );
  // A budget for a hang, as spawnSync's timeout: the worker is then dropped and the next call makes a new one.
  if (Atomics.wait(flag, 0, 0, opts.timeout ?? 60_000) === 'timed-out') {
    port1.close();
    void worker.terminate();
    inProcessWorker = undefined;
    return { code: 128, stdout: '', stderr: `in-process run of ${args.join(' ')} timed out\n`, json: undefined };
  }
  const got = receiveMessageOnPort(port1)?.message as { exit: number; stdout: string; stderr: string };
  port1.close();
  return toResult({
    status: got.exit,
    signal: null,
    stdout: got.stdout,
    stderr: got.stderr,
  } as unknown as SpawnSyncReturns<string>);
}

/** Runs `handoff ...args` asynchronously (for concurrency tests). */
export function runAsync(home: string | undefined, args: string[], opts: RunOptions = {}): Promise<RunResult> {
  assertProcessProject(`handoff ${args.slice(0, 2).join(' ')}`);
  return new Promise((res) => {
    const child = spawn(process.execPath, [BIN, ...args], {
      env: baseEnv(home, opts.env),
      cwd: opts.cwd ?? home ?? process.cwd(),
    });
    if (opts.background === true && child.pid !== undefined) {
      try {
        setPriority(child.pid, 19);
      } catch {
        // Already ended: nothing left to lower.
      }
    }
    let stdout = '';
    let stderr = '';
    child.stdout.setEncoding('utf8').on('data', (d: string) => (stdout += d));
    child.stderr.setEncoding('utf8').on('data', (d: string) => (stderr += d));
    child.stdin.end(opts.input ?? '');
    child.on('close', (code, signal) => {
      res(toResult({ status: code, signal, stdout, stderr } as SpawnSyncReturns<string>));
    });
  });
}

/**
 * Every entry below `dir` (relative paths), with size and mtimeMs: a snapshot to prove nothing was written. Links are
 * recorded as links (their target), never followed, so a dangling or planted link is part of the snapshot too.
 * SQLite's `-shm` index and an empty `-wal` hold no data: they exist while a connection is open (a live MCP server
 * keeps one), so they are left out; a `-wal` holding writes is recorded like any file.
 */
export function snapshot(dir: string): Record<string, { size: number; mtimeMs: number; content: string }> {
  const out: Record<string, { size: number; mtimeMs: number; content: string }> = {};
  if (!existsSync(dir)) return out;
  const walk = (d: string, rel: string): void => {
    for (const name of readdirSync(d)) {
      const p = join(d, name);
      const r = rel ? `${rel}/${name}` : name;
      const st = lstatSync(p);
      if (st.isFile() && (name.endsWith('.db-shm') || (name.endsWith('.db-wal') && st.size === 0))) continue;
      if (st.isSymbolicLink()) {
        out[`${r}@`] = { size: 0, mtimeMs: st.mtimeMs, content: readlinkSync(p) };
      } else if (st.isDirectory()) {
        out[`${r}/`] = { size: 0, mtimeMs: 0, content: '' };
        walk(p, r);
      } else if (!st.isFile()) out[`${r}|`] = { size: 0, mtimeMs: st.mtimeMs, content: 'special' };
      else out[r] = { size: st.size, mtimeMs: st.mtimeMs, content: readFileSync(p).toString('base64') };
    }
  };
  walk(dir, '');
  return out;
}

/** Loads a JSONL case file from test/fixtures. */
export function loadCases<T = any>(name: string): T[] {
  return readFileSync(join(FIXTURES, name), 'utf8')
    .split('\n')
    .filter((l) => l.trim() !== '')
    .map((l) => JSON.parse(l) as T);
}
