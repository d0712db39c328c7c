/**
 * A name users can install: the package is `handoff-cli` and its command `handoff`. The test packs the package
 * (`npm pack`, what the registry would receive), installs it globally into a temporary prefix with npm itself, and
 * runs `handoff --version` and the README quickstart's first call from that prefix's bin.
 *
 * Offline: a registry install needs the dependencies' metadata, which the machine's npm cache need not hold (an
 * `--offline` install of the tarball fails with ENOTCACHED). So the packed tarball is unpacked as npm would unpack it,
 * its dependencies are the repository's installed node_modules (the same versions the lock file pins), and
 * `npm install -g --prefix P <folder> --offline` puts it in the prefix: npm itself writes the `bin` link, which is
 * what puts `handoff` on a user's PATH.
 */
import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, symlinkSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { REPO } from '../helpers/cli.js';

/** npm as the user has it on the PATH. */
const NPM = process.platform === 'win32' ? 'npm.cmd' : 'npm';

function sh(cmd: string, args: string[], opts: { cwd?: string; env?: NodeJS.ProcessEnv } = {}) {
  const r = spawnSync(cmd, args, { encoding: 'utf8', timeout: 180_000, ...opts });
  expect(r.status, `${cmd} ${args.join(' ')}\n${r.error?.message}\n${r.stdout}\n${r.stderr}`).toBe(0);
  return r.stdout;
}

describe('the package users install', () => {
  it('is handoff-cli; packed and installed globally it puts handoff on the PATH, which runs', () => {
    const pkg = JSON.parse(readFileSync(join(REPO, 'package.json'), 'utf8'));
    expect(pkg.name).toBe('handoff-cli');
    expect(pkg.bin).toEqual({ handoff: 'bin/run.js' });
    const lock = JSON.parse(readFileSync(join(REPO, 'package-lock.json'), 'utf8'));
    expect([lock.name, lock.packages[''].name]).toEqual(['handoff-cli', 'handoff-cli']);
    expect(readFileSync(join(REPO, 'README.md'), 'utf8')).toMatch(/npm i -g handoff-cli[^]*npx handoff-cli/);

    const work = mkdtempSync(join(tmpdir(), 'handoff-pack-'));
    const env = { ...process.env, npm_config_update_notifier: 'false', npm_config_fund: 'false' };
    const packed = JSON.parse(
      sh(NPM, ['pack', '--json', '--ignore-scripts', '--pack-destination', work], { cwd: REPO, env }),
    );
    const tarball = join(work, packed[0].filename as string);
    expect(packed[0].name).toBe('handoff-cli');
    const unpacked = join(work, 'unpacked');
    mkdirSync(unpacked);
    sh('tar', ['-xzf', tarball, '-C', unpacked]);
    const root = join(unpacked, 'package');
    symlinkSync(join(REPO, 'node_modules'), join(root, 'node_modules'), 'dir');
    const prefix = join(work, 'prefix');
    sh(
      NPM,
      [
        'install',
        '-g',
        '--prefix',
        prefix,
        root,
        '--offline',
        '--no-audit',
        '--ignore-scripts',
        '--install-links=false',
      ],
      {
        cwd: work,
        env,
      },
    );
    const bin = join(prefix, 'bin', 'handoff');
    expect(existsSync(bin)).toBe(true);

    const home = mkdtempSync(join(tmpdir(), 'handoff-home-'));
    const run = { cwd: home, env: { ...process.env, HANDOFF_HOME: home, NO_COLOR: '1' } };
    expect(sh(bin, ['--version'], run)).toMatch(/^handoff\/0\.\d+\.\d+ \S+ node-v\d+/);
    const init = JSON.parse(sh(bin, ['contract', 'init', '--json'], run));
    expect(init).toMatchObject({ status: 'ok' });
    expect(existsSync(join(home, 'drafts', `${init.draft_id as string}.json`))).toBe(true);
  });
});
