/**
 * Drives the built binary end to end. Every test gets its own HANDOFF_HOME temp dir (tempHome()).
 */
import { spawn, spawnSync, type SpawnSyncReturns } from 'node:child_process';
import { lstatSync, mkdtempSync, readdirSync, readFileSync, readlinkSync, existsSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';

export const REPO = resolve(import.meta.dirname, '..', '..');
export const BIN = join(REPO, 'bin', 'run.js');
/** Test data kept in the repository (the validator's public cases, fixtures). */
export const FIXTURES = join(REPO, 'test', 'fixtures');

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

/** Runs `handoff ...args` synchronously with HANDOFF_HOME=home. */
export function run(home: string | undefined, args: string[], opts: RunOptions = {}): RunResult {
  const r = spawnSync(process.execPath, [BIN, ...args], {
    env: baseEnv(home, opts.env),
    input: opts.input ?? '',
    cwd: opts.cwd ?? home ?? process.cwd(),
    encoding: 'utf8',
    timeout: opts.timeout ?? 60_000,
  });
  return toResult(r);
}

/** Runs `handoff ...args` asynchronously (for concurrency tests). */
export function runAsync(home: string | undefined, args: string[], opts: RunOptions = {}): Promise<RunResult> {
  return new Promise((res) => {
    const child = spawn(process.execPath, [BIN, ...args], {
      env: baseEnv(home, opts.env),
      cwd: opts.cwd ?? home ?? process.cwd(),
    });
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
