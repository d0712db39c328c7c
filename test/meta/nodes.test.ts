/**
 * scripts/nodes.mjs, the cache of supported Node majors that .ci/run, `npm run test:node` and `npm run bench -- --node`
 * share: which cached version serves a major, and the environment that runs it (its headers for native builds).
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { describe, expect, it } from 'vitest';
import { REPO, tempHome } from '../helpers/cli.js';

const nodes = (await import(pathToFileURL(join(REPO, 'scripts', 'nodes.mjs')).href)) as {
  cachedNodes(major?: string, root?: string): string[];
  nodeEnv(dir: string, env: Record<string, string | undefined>): Record<string, string | undefined>;
};

describe('the Node cache', () => {
  it('lists the complete version folders, newest first (as numbers), of one major when asked', () => {
    const root = tempHome();
    for (const v of ['22.9.0', '22.23.5', '22.22.2', '24.22.3', '26.12.1', '26.2.0']) {
      mkdirSync(join(root, v, 'bin'), { recursive: true });
      writeFileSync(join(root, v, 'bin', 'node'), '');
    }
    // Not a version, a fetch under way, and a version folder without its binary: none of them serves.
    for (const d of ['notes', '.fetch-abc', '20.20.2']) mkdirSync(join(root, d, 'bin'), { recursive: true });
    expect(nodes.cachedNodes(undefined, root)).toEqual([
      '26.12.1',
      '26.2.0',
      '24.22.3',
      '22.23.5',
      '22.22.2',
      '22.9.0',
    ]);
    expect(nodes.cachedNodes('22', root)).toEqual(['22.23.5', '22.22.2', '22.9.0']);
    expect(nodes.cachedNodes('20', root)).toEqual([]);
    expect(nodes.cachedNodes('24', join(root, 'absent'))).toEqual([]);
  });

  it("runs a major's Node first on PATH, native modules built against its headers", () => {
    const env = nodes.nodeEnv('/c/node/26.12.1', { PATH: '/usr/bin:/bin', npm_config_nodedir: '/usr', KEEP: 'x' });
    expect(env).toEqual({
      PATH: '/c/node/26.12.1/bin:/usr/bin:/bin',
      npm_config_nodedir: '/c/node/26.12.1',
      KEEP: 'x',
    });
  });
});
