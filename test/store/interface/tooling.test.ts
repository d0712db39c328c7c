/**
 * The driver rule and the server tooling: `pg` is not loaded on the SQLite path (a hot verb of the built CLI, and
 * openStore itself), which a `--require` hook that records every module load shows; the same hook sees it load once a
 * postgres:// URL is set, so it can tell (and that loading it leaves Node's fetch unloaded and no global behind).
 * `npm run postgres` prints a working HANDOFF_STORE_URL and stops cleanly on SIGTERM.
 */
import { spawn, spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, sep } from 'node:path';
import pg from 'pg';
import { describe, expect, it } from 'vitest';
import { freshDatabase, dropDatabase } from '../../helpers/pg.js';
import { dist, REPO } from '../../helpers/store-backends.js';

const HOOK = `
const Module = require('node:module');
const fs = require('node:fs');
const requests = [];
const load = Module._load;
Module._load = function (request, ...rest) {
  requests.push(request);
  return load.call(this, request, ...rest);
};
process.on('exit', () =>
  fs.writeFileSync(
    process.env.LOAD_LOG,
    JSON.stringify({ requests, cache: Object.keys(require.cache), builtins: process.moduleLoadList }),
  ),
);
`;

/** Runs node with the load-recording hook; what it required and what stayed in require.cache. */
function recordLoads(
  args: string[],
  env: NodeJS.ProcessEnv,
): {
  status: number | null;
  stdout: string;
  requests: string[];
  cache: string[];
  pg: boolean;
  sqlite: boolean;
  /** Node's fetch implementation (undici) was loaded. */
  fetch: boolean;
} {
  const dir = mkdtempSync(join(tmpdir(), 'handoff-loads-'));
  const hook = join(dir, 'hook.cjs');
  writeFileSync(hook, HOOK);
  const log = join(dir, 'loads.json');
  const r = spawnSync(process.execPath, ['--require', hook, ...args], {
    env: { ...env, LOAD_LOG: log, NO_COLOR: '1' },
    encoding: 'utf8',
  });
  const seen = JSON.parse(readFileSync(log, 'utf8')) as { requests: string[]; cache: string[]; builtins: string[] };
  const has = (name: string): boolean =>
    seen.requests.includes(name) || seen.cache.some((p) => p.includes(`${sep}node_modules${sep}${name}${sep}`));
  return {
    status: r.status,
    stdout: r.stdout,
    requests: seen.requests,
    cache: seen.cache,
    pg: has('pg'),
    sqlite: has('better-sqlite3'),
    fetch: seen.builtins.some((b) => b.includes('undici')),
  };
}

const baseEnv = (home: string): NodeJS.ProcessEnv => {
  const env: NodeJS.ProcessEnv = { ...process.env, HANDOFF_HOME: home };
  delete env.HANDOFF_STORE_URL;
  delete env.HANDOFF_DB;
  return env;
};

describe('pg loads only when HANDOFF_STORE_URL selects PostgreSQL', () => {
  it('hot verbs of the built CLI (init, set, view, validate) with the URL unset load no pg', () => {
    const home = mkdtempSync(join(tmpdir(), 'handoff-home-'));
    const env = baseEnv(home);
    const bin = join(REPO, 'bin', 'run.js');
    const init = recordLoads([bin, 'contract', 'init', '--agent-id', 'a0123456789abcdef', '--json'], env);
    expect(init.status).toBe(0);
    // bin/run.js compiles the bundle itself (vm.Script with its code cache) and registers it in require.cache.
    expect(init.cache, 'the hook saw the CLI bundle load').toContain(join(REPO, 'dist', 'cli', 'handoff.cjs'));
    const draft = (JSON.parse(init.stdout) as { draft_id: string }).draft_id;
    for (const args of [
      ['contract', 'set', '--draft-id', draft, 'agent_status.next_action', 'write the tests', '--json'],
      ['contract', 'view', '--draft-id', draft, '--json'],
      ['contract', 'validate', '--draft-id', draft, '--json'],
    ]) {
      const r = recordLoads([bin, ...args], env);
      expect(r.status, args.join(' ')).toBe(0);
      expect(r.pg, args.join(' ')).toBe(false);
    }
    expect(init.pg).toBe(false);
  });

  it('openStore on the SQLite path loads no pg; with a postgres:// URL it does (the hook can tell)', async () => {
    const home = mkdtempSync(join(tmpdir(), 'handoff-home-'));
    const script = `
      const { openStore } = await import(${dist('store/open-store.js')});
      const { pgLoaded } = await import(${dist('store/pg-driver.js')});
      const before = typeof globalThis.navigator;
      const s = await openStore(process.env, undefined, process.argv[1], { create: true });
      const navigatorKept = typeof globalThis.navigator === before;
      console.log(JSON.stringify({ kind: s?.kind ?? null, pgLoaded: pgLoaded(), navigatorKept }));
      await s?.close();`;
    for (const mode of ['probe', 'writer']) {
      const lite = recordLoads(['--input-type=module', '-e', script, mode], baseEnv(home));
      expect(lite.status).toBe(0);
      expect(JSON.parse(lite.stdout)).toEqual({
        kind: mode === 'probe' ? null : 'sqlite',
        pgLoaded: false,
        navigatorKept: true,
      });
      expect(lite.pg).toBe(false);
    }
    const url = await freshDatabase();
    try {
      const post = recordLoads(['--input-type=module', '-e', script, 'writer'], {
        ...baseEnv(home),
        HANDOFF_STORE_URL: url,
      });
      expect(post.status).toBe(0);
      expect(JSON.parse(post.stdout)).toEqual({ kind: 'postgres', pgLoaded: true, navigatorKept: true });
      expect(post.pg).toBe(true);
      expect(post.sqlite).toBe(false);
      // pg asks whether it runs in a Cloudflare Worker; answered without building a `Response`, Node's fetch stays
      // unloaded (about 15 ms of every PostgreSQL call on Node 20).
      expect(post.fetch).toBe(false);
    } finally {
      await dropDatabase(url);
    }
  });
});

describe('npm run postgres', () => {
  it('starts a server, prints a HANDOFF_STORE_URL that works, and on SIGTERM stops it and removes its folder', async () => {
    const child = spawn(process.execPath, [join(REPO, 'scripts', 'postgres.mjs')], {
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let out = '';
    let err = '';
    child.stderr.on('data', (c: Buffer) => (err += c.toString()));
    const exited = new Promise<number | null>((done) => child.on('exit', (code) => done(code)));
    await new Promise<void>((done, fail) => {
      child.stdout.on('data', (c: Buffer) => {
        out += c.toString();
        if (/data in .+\n/.test(out)) done();
      });
      void exited.then((code) => fail(new Error(`npm run postgres exited ${code} before printing its URL: ${err}`)));
    });
    const url = /^HANDOFF_STORE_URL=(postgres:\/\/\S+)$/m.exec(out)?.[1];
    const dir = /data in (\S+)/.exec(out)?.[1];
    expect(url).toBeDefined();
    expect(dir !== undefined && existsSync(dir)).toBe(true);
    const client = new pg.Client({ connectionString: url });
    await client.connect();
    expect((await client.query<{ db: string }>('SELECT current_database() AS db')).rows).toEqual([{ db: 'handoff' }]);
    await client.end();
    child.kill('SIGTERM');
    expect(await exited).toBe(0);
    expect(existsSync(dir as string)).toBe(false);
  });
});
