/**
 * The supported Node range (package.json `engines`): under a Node outside it, `handoff` prints one line naming the
 * range and that a supported Node must be installed, and exits 1, before it loads anything that an older Node might
 * fail on. The check is bin/run.js's (the hot start-up path), by plain number comparisons.
 */
import { spawnSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { describe, expect, it } from 'vitest';
import { BIN, FIXTURES, REPO, baseEnv, tempHome } from '../helpers/cli.js';

const RANGE = '^22.22.2 || ^24.15.0 || >=26';
const bin = createRequire(import.meta.url)(BIN) as {
  supportedNode(v: string): boolean;
  NODE_RANGE: string;
  asciiText(bytes: Uint8Array, length: number): string;
  nodeModulePaths(dir: string, loader?: object): string[];
};
const nodes = (await import(pathToFileURL(join(REPO, 'scripts', 'nodes.mjs')).href)) as {
  ensureNode(major: string): string;
};
/**
 * A Node older than the range: $HANDOFF_TEST_OLD_NODE, else the machine's own /usr/bin/node when it is older (Node 20
 * on the CI machine), else Node 20 from the registry into the cache scripts/nodes.mjs keeps (on a machine whose own
 * Node is supported, `npm test` still has an older one to refuse).
 */
function oldNode(): string {
  if (process.env.HANDOFF_TEST_OLD_NODE) return process.env.HANDOFF_TEST_OLD_NODE;
  const own = '/usr/bin/node';
  if (existsSync(own)) {
    const v = spawnSync(own, ['-p', 'process.versions.node'], { encoding: 'utf8' }).stdout.trim();
    if (/^\d+\.\d+\.\d+$/.test(v) && !bin.supportedNode(v)) return own;
  }
  return join(nodes.ensureNode('20'), 'bin', 'node');
}
const OLD_NODE = oldNode();
/** A hang is a failure (a hang guard, not a speed bar). */
const HANG_MS = 60_000;

const refusal = (version: string): string =>
  `handoff: Node.js ${version} is not supported: install a supported Node.js (${RANGE}) and run handoff with it\n`;

describe('the supported range', () => {
  it('is package.json engines and the lock file root entry, exactly', () => {
    const pkg = JSON.parse(readFileSync(join(REPO, 'package.json'), 'utf8')) as { engines: { node: string } };
    const lock = JSON.parse(readFileSync(join(REPO, 'package-lock.json'), 'utf8')) as {
      packages: Record<string, { engines?: { node: string } }>;
    };
    expect(pkg.engines.node).toBe(RANGE);
    expect(lock.packages[''].engines!.node).toBe(RANGE);
    expect(bin.NODE_RANGE).toBe(RANGE);
  });

  it.each([
    ['22.22.2', true],
    ['22.22.10', true],
    ['22.23.0', true],
    ['24.15.0', true],
    ['24.22.3', true],
    ['26.0.0', true],
    ['27.1.0', true],
    ['30.0.0', true],
    ['22.22.1', false],
    ['22.21.9', false],
    ['22.3.40', false],
    ['23.11.0', false],
    ['24.14.9', false],
    ['24.9.20', false],
    ['25.2.0', false],
    ['20.20.2', false],
    ['18.20.8', false],
  ])('%s: %s', (version, ok) => {
    expect(bin.supportedNode(version)).toBe(ok);
  });

  it('the Node running this suite is in it', () => {
    expect(bin.supportedNode(process.versions.node)).toBe(true);
  });
});

describe('an unsupported Node gets one line and exit 1', () => {
  it(`the machine's older Node (${OLD_NODE}) running bin/run.js`, () => {
    expect(existsSync(OLD_NODE), `${OLD_NODE}: an older Node to run bin/run.js with`).toBe(true);
    const version = spawnSync(OLD_NODE, ['-p', 'process.versions.node'], { encoding: 'utf8' }).stdout.trim();
    expect(bin.supportedNode(version), `${OLD_NODE} is ${version}, inside the range`).toBe(false);
    const home = tempHome();
    for (const args of [['contract', 'init', '--json'], ['contract', 'gate'], ['--version'], []]) {
      const r = spawnSync(OLD_NODE, [BIN, ...args], {
        env: baseEnv(home),
        cwd: home,
        input: '{}',
        encoding: 'utf8',
        timeout: HANG_MS,
      });
      expect({ code: r.status, stdout: r.stdout, stderr: r.stderr }).toEqual({
        code: 1,
        stdout: '',
        stderr: refusal(version),
      });
    }
  });

  it.each(['22.22.1', '23.11.0', '24.14.0', '25.2.1'])('this Node reporting %s', (version) => {
    const home = tempHome();
    const r = spawnSync(process.execPath, ['--require', join(FIXTURES, 'node-version.cjs'), BIN, 'contract', 'init'], {
      env: baseEnv(home, { FAKE_NODE_VERSION: version }),
      cwd: home,
      encoding: 'utf8',
      timeout: HANG_MS,
    });
    expect({ code: r.status, stdout: r.stdout, stderr: r.stderr }).toEqual({
      code: 1,
      stdout: '',
      stderr: refusal(version),
    });
  });
});

// This file is a process-level one, so `npm run test:node -- MAJOR` runs these on every supported major.
describe('the undocumented Node internals bin/run.js uses for speed each have a way out, taken where they are missing', () => {
  it("Buffer's latin1Slice: the bundle's text is the same through TextDecoder", () => {
    const text = readFileSync(join(REPO, 'bin', 'run.js'), 'latin1');
    const bytes = Buffer.from(`${text}trailing bytes past the length`, 'latin1');
    expect(typeof (bytes as unknown as { latin1Slice?: unknown }).latin1Slice).toBe('function');
    expect(bin.asciiText(bytes, text.length)).toBe(text);
    // A Uint8Array has no latin1Slice: the fallback path.
    const plain = new Uint8Array(bytes);
    expect('latin1Slice' in plain).toBe(false);
    expect(bin.asciiText(plain, text.length)).toBe(text);
  });

  it('Module._nodeModulePaths: the list made without it is the same', () => {
    const Module = createRequire(import.meta.url)('node:module') as { _nodeModulePaths(dir: string): string[] };
    for (const dir of [join(REPO, 'dist', 'cli'), join(REPO, 'node_modules', 'pg', 'lib'), '/']) {
      expect(bin.nodeModulePaths(dir)).toEqual(Module._nodeModulePaths(dir));
      expect(bin.nodeModulePaths(dir, {})).toEqual(Module._nodeModulePaths(dir));
    }
  });
});
