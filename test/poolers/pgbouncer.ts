/**
 * A stock PgBouncer in front of the suite's PostgreSQL server, without changing the machine: Debian's `pgbouncer`
 * package and the libraries it needs that the machine lacks are fetched with `apt-get download` and unpacked with
 * `dpkg-deb -x` into a cache outside the repository (`$XDG_CACHE_HOME/handoff/pgbouncer/`, by default
 * `~/.cache/handoff/pgbouncer/`), then run from a private copy as an unprivileged user (`nobody` when the suite runs
 * as root: PgBouncer refuses root). Where a step cannot work, the error names the package and the suite fails.
 *
 * The configuration is PgBouncer's defaults but for the port, the pool mode, a pool of 3 server connections per
 * database and user, SCRAM authentication against the server's own user, and the admin console for PAUSE/RESUME.
 * Nothing like `ignore_startup_parameters` is set: a client that sends a start-up parameter PgBouncer does not know
 * is refused, as by a managed pooler.
 */
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import {
  chmodSync,
  chownSync,
  cpSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  renameSync,
  rmSync,
  writeFileSync,
} from 'node:fs';
import { createServer } from 'node:net';
import { homedir, tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';

const PACKAGE = 'pgbouncer';
const LIB_DIR = join('usr', 'lib', 'x86_64-linux-gnu');

export type PoolMode = 'transaction' | 'session';

export interface Bouncer {
  mode: PoolMode;
  port: number;
  /** `dbUrl` (a database of the suite's server) reached through this pooler. */
  via(dbUrl: string): string;
  /** Runs one command on the admin console (PAUSE, RESUME, SHOW POOLS). */
  admin(command: string): Promise<Record<string, unknown>[]>;
  /** Ends the pooler at once (SIGTERM: every client connection dropped) and starts it again on the same port. */
  restart(): Promise<void>;
  stop(): Promise<void>;
}

const fail = (what: string, detail: string): Error =>
  new Error(`the pooler suite needs Debian's ${what} package (apt-get download + dpkg-deb -x): ${detail}`);

function sh(cmd: string, args: string[], cwd?: string): { ok: boolean; out: string } {
  const r = spawnSync(cmd, args, { cwd, encoding: 'utf8' });
  return { ok: r.status === 0, out: `${r.stdout ?? ''}${r.stderr ?? ''}${r.error ? String(r.error) : ''}` };
}

/** `apt-get download PKG` into `dir`; once more after `apt-get update` when the package lists lack it. */
function download(pkg: string, dir: string): void {
  let r = sh('apt-get', ['download', pkg], dir);
  if (!r.ok) {
    sh('apt-get', ['update', '-qq']);
    r = sh('apt-get', ['download', pkg], dir);
  }
  if (!r.ok) throw fail(pkg, r.out.trim());
}

/** The libraries pgbouncer depends on that are not installed here (libc6 is always the machine's own). */
function missingLibraries(): string[] {
  const deps = sh('apt-cache', ['depends', PACKAGE]);
  if (!deps.ok) throw fail(PACKAGE, deps.out.trim());
  const libs = [...deps.out.matchAll(/^ {2}(?:Pre)?Depends: (lib[^\s<>]+)$/gm)].map((m) => m[1]);
  return libs.filter((lib) => {
    if (/^libc6(:|$)/.test(lib)) return false;
    const st = sh('dpkg-query', ['-W', '-f=${db:Status-Status}', lib]);
    return !(st.ok && st.out.trim() === 'installed');
  });
}

const runs = (bin: string, libs: string): boolean =>
  spawnSync(bin, ['--version'], { env: { LD_LIBRARY_PATH: libs }, encoding: 'utf8' }).status === 0;

/** The cached pgbouncer (binary and library folder), fetched first when absent. */
export function obtainPgbouncer(): { bin: string; libs: string } {
  const cache = join(process.env.XDG_CACHE_HOME || join(homedir(), '.cache'), 'handoff', 'pgbouncer');
  const bin = join(cache, 'usr', 'sbin', 'pgbouncer');
  const libs = join(cache, LIB_DIR);
  if (existsSync(join(cache, 'ready')) && runs(bin, libs)) return { bin, libs };
  mkdirSync(join(cache, '..'), { recursive: true });
  const work = mkdtempSync(`${cache}.part-`);
  try {
    const debs = join(work, 'debs');
    const root = join(work, 'root');
    mkdirSync(debs);
    mkdirSync(join(root, LIB_DIR), { recursive: true });
    for (const pkg of [PACKAGE, ...missingLibraries()]) download(pkg, debs);
    for (const deb of readdirSync(debs)) {
      const x = sh('dpkg-deb', ['-x', join(debs, deb), root]);
      if (!x.ok) throw fail(deb.split('_')[0], x.out.trim());
    }
    const ldd = spawnSync('ldd', [join(root, 'usr', 'sbin', 'pgbouncer')], {
      env: { LD_LIBRARY_PATH: join(root, LIB_DIR) },
      encoding: 'utf8',
    });
    const lost = [...(ldd.stdout ?? '').matchAll(/^\s*(\S+) => not found/gm)].map((m) => m[1]);
    if (lost.length > 0) throw fail(PACKAGE, `libraries still not found after unpacking: ${lost.join(', ')}`);
    if (!runs(join(root, 'usr', 'sbin', 'pgbouncer'), join(root, LIB_DIR)))
      throw fail(PACKAGE, 'the unpacked pgbouncer does not run (--version)');
    writeFileSync(join(root, 'ready'), `${readdirSync(debs).join('\n')}\n`);
    rmSync(cache, { recursive: true, force: true });
    renameSync(root, cache);
  } finally {
    rmSync(work, { recursive: true, force: true });
  }
  return { bin, libs };
}

/** uid and gid of `nobody`, from /etc/passwd. */
function nobody(): { uid: number; gid: number } {
  const line = readFileSync('/etc/passwd', 'utf8')
    .split('\n')
    .find((l) => l.startsWith('nobody:'));
  if (line === undefined) throw fail(PACKAGE, 'no user "nobody" to run it as (PgBouncer refuses to run as root)');
  const [, , uid, gid] = line.split(':');
  return { uid: Number(uid), gid: Number(gid) };
}

function freePort(): Promise<number> {
  return new Promise((done, reject) => {
    const s = createServer();
    s.on('error', reject);
    s.listen(0, '127.0.0.1', () => {
      const { port } = s.address() as { port: number };
      s.close(() => done(port));
    });
  });
}

const sleep = (ms: number): Promise<void> => new Promise((done) => setTimeout(done, ms));

/** Starts a PgBouncer in `mode` in front of the server of `serverUrl` (whose user and password it authenticates). */
export async function startBouncer(serverUrl: string, mode: PoolMode): Promise<Bouncer> {
  const { bin, libs } = obtainPgbouncer();
  const server = new URL(serverUrl);
  const user = decodeURIComponent(server.username);
  const password = decodeURIComponent(server.password);
  const asRoot = process.getuid?.() === 0;
  // A folder the unprivileged user can reach: the machine's temp folder, not the suite's private one.
  const dir = mkdtempSync(join(asRoot ? '/tmp' : tmpdir(), 'handoff-pgbouncer-'));
  chmodSync(dir, 0o755);
  cpSync(bin, join(dir, 'pgbouncer'));
  cpSync(libs, join(dir, 'lib'), { recursive: true, verbatimSymlinks: true });
  const port = await freePort();
  writeFileSync(join(dir, 'userlist.txt'), `"${user}" "${password}"\n`, { mode: 0o600 });
  writeFileSync(
    join(dir, 'pgbouncer.ini'),
    [
      '[databases]',
      `* = host=${server.hostname} port=${server.port}`,
      '[pgbouncer]',
      'listen_addr = 127.0.0.1',
      `listen_port = ${port}`,
      'unix_socket_dir =',
      'auth_type = scram-sha-256',
      `auth_file = ${join(dir, 'userlist.txt')}`,
      `pool_mode = ${mode}`,
      'default_pool_size = 3',
      'max_client_conn = 2000',
      `admin_users = ${user}`,
      `logfile = ${join(dir, 'pgbouncer.log')}`,
      '',
    ].join('\n'),
  );
  const owner = asRoot ? nobody() : undefined;
  if (owner !== undefined)
    for (const f of ['.', 'userlist.txt', 'pgbouncer.ini']) chownSync(join(dir, f), owner.uid, owner.gid);

  let child: ChildProcess | undefined;
  let log = '';
  const adminUrl = `postgres://${encodeURIComponent(user)}:${encodeURIComponent(password)}@127.0.0.1:${port}/pgbouncer`;
  const admin = async (command: string): Promise<Record<string, unknown>[]> => {
    const c = new pg.Client({ connectionString: adminUrl });
    await c.connect();
    try {
      return (await c.query(command)).rows as Record<string, unknown>[];
    } finally {
      await c.end();
    }
  };
  const start = async (): Promise<void> => {
    log = '';
    const c = spawn(join(dir, 'pgbouncer'), [join(dir, 'pgbouncer.ini')], {
      env: { LD_LIBRARY_PATH: join(dir, 'lib') },
      stdio: ['ignore', 'pipe', 'pipe'],
      ...(owner ?? {}),
    });
    child = c;
    c.stdout.on('data', (d: Buffer) => (log += d.toString()));
    c.stderr.on('data', (d: Buffer) => (log += d.toString()));
    // Ready once its admin console answers; a pgbouncer that exits fails the suite with its own words.
    for (let tries = 0; ; tries++) {
      if (c.exitCode !== null || c.signalCode !== null)
        throw fail(PACKAGE, `pgbouncer exited (${c.exitCode ?? c.signalCode}): ${log}${readLog()}`);
      try {
        await admin('SHOW VERSION');
        return;
      } catch (e) {
        if (tries > 600) throw fail(PACKAGE, `pgbouncer did not answer within 60 s: ${(e as Error).message} ${log}`);
        await sleep(100);
      }
    }
  };
  const readLog = (): string => {
    try {
      return readFileSync(join(dir, 'pgbouncer.log'), 'utf8').slice(-2000);
    } catch {
      return '';
    }
  };
  const end = async (): Promise<void> => {
    const c = child;
    if (c === undefined || c.exitCode !== null || c.signalCode !== null) return;
    const gone = new Promise<void>((done) => c.once('exit', () => done()));
    c.kill('SIGTERM');
    await gone;
  };
  await start();
  return {
    mode,
    port,
    via(dbUrl) {
      const u = new URL(dbUrl);
      u.hostname = '127.0.0.1';
      u.port = String(port);
      u.search = '';
      return u.toString();
    },
    admin,
    async restart() {
      await end();
      await start();
    },
    async stop() {
      await end();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}
