/** `handoff ui` as a process: it prints its URL, serves until SIGINT or SIGTERM and exits 0; refusals before serving. */
import { spawnSync } from 'node:child_process';
import { chmodSync, copyFileSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { hotVerbCalls, RECORDER, recordedBuiltins, REPO, run, tempHome } from '../helpers/cli.js';
import { manifestCommands } from '../helpers/commands.js';
import { request, startUi, uiEnv } from '../helpers/ui.js';

describe('handoff ui (process)', () => {
  it.each(['SIGTERM', 'SIGINT'] as const)('serves the page until %s, then exits 0', async (signal) => {
    const home = tempHome();
    const ui = await startUi(home);
    const page = await request(ui.url);
    expect(page.status).toBe(200);
    expect(page.text).toContain('<script src="app.js" defer></script>');
    expect((await request(`${ui.url}api/chains`)).json).toEqual({ workspace: 'ws', chains: [] });
    ui.child.kill(signal);
    const end = await ui.ended;
    expect({ code: end.code, signal: end.signal }).toEqual({ code: 0, signal: null });
    expect(end.stderr).not.toMatch(/\n\s+at /);
  });

  it('--port takes the given port; a port in use is UI_PORT_IN_USE (exit 2), and nothing is served', async () => {
    const home = tempHome();
    const taken = createServer();
    await new Promise<void>((resolve) => taken.listen(0, '127.0.0.1', resolve));
    const port = (taken.address() as { port: number }).port;
    try {
      const r = run(home, ['ui', '--port', String(port)], { process: true, env: uiEnv(home) });
      expect({ code: r.code, err: r.stderr }).toMatchObject({
        code: 2,
        err: expect.stringContaining('UI_PORT_IN_USE'),
      });
      expect(r.stdout).toBe('');
    } finally {
      await new Promise((resolve) => taken.close(resolve));
    }
    const ui = await startUi(home, ['--port', String(port)]);
    expect(ui.url).toContain(`http://127.0.0.1:${port}/`);
    ui.child.kill('SIGTERM');
    expect((await ui.ended).code).toBe(0);
  });

  it('an unreadable --key is refused before anything is served', () => {
    const home = tempHome();
    const r = run(home, ['ui', '--key', `${home}/missing.key`], { process: true, env: uiEnv(home) });
    expect(r.code).toBe(2);
    expect(r.stderr).toContain('[UNREADABLE_INPUT]');
    expect(r.stdout).toBe('');
    expect(r.stderr).not.toMatch(/\n\s+at /);
  });
});

describe('handoff ui examples', () => {
  it('each example of its help starts, serves the page and stops on SIGTERM with exit 0', async () => {
    const home = tempHome();
    const key = run(home, ['key', 'generate', '--out', join(home, 'generated'), '--json']).json.private_key as string;
    mkdirSync(join(home, 'keys'));
    copyFileSync(key, join(home, 'keys', 'handoff.key'));
    chmodSync(join(home, 'keys', 'handoff.key'), 0o600);
    const examples = manifestCommands().find((c) => c.id === 'ui')?.examples ?? [];
    expect(examples).toHaveLength(2);
    for (const example of examples) {
      const words = example.split(' ');
      expect(words.slice(0, 2)).toEqual(['handoff', 'ui']);
      const ui = await startUi(home, words.slice(2));
      expect((await request(ui.url)).status, example).toBe(200);
      ui.child.kill('SIGTERM');
      expect((await ui.ended).code, example).toBe(0);
    }
  });
});

describe('handoff ui loads only for itself', () => {
  /** The public built-ins `handoff …args` loaded (test/fixtures/record-modules.cjs). */
  function builtinsOf(home: string, args: string[]): string[] {
    const file = join(home, `builtins-${args.join('-').replace(/[^a-z0-9-]/gi, '_')}.txt`);
    const r = spawnSync(process.execPath, ['--require', RECORDER, join(REPO, 'bin', 'run.js'), ...args], {
      env: { ...uiEnv(home), RECORD_MODULES_FILE: join(home, 'modules.txt'), RECORD_BUILTINS_FILE: file },
      cwd: home,
      encoding: 'utf8',
    });
    expect([0, 1], `${args.join(' ')}: ${r.stderr}`).toContain(r.status);
    return recordedBuiltins(file);
  }

  it('no other verb loads its HTTP server: the hot verbs, contract list and approval list load no http', () => {
    const home = tempHome();
    writeFileSync(join(home, 'envelope.json'), '{}');
    const calls = [
      ...hotVerbCalls('a0123456789abcdef.0123456789ab', join(home, 'envelope.json')),
      ['contract', 'list'],
      ['approval', 'list'],
    ];
    for (const args of calls) expect(builtinsOf(home, args), args.join(' ')).not.toContain('http');
  });

  it('the recorder sees it where it is used: `handoff ui` loads http', async () => {
    const home = tempHome();
    const file = join(home, 'builtins-ui.txt');
    const ui = await startUi(home, [], ['--require', RECORDER], {
      RECORD_MODULES_FILE: join(home, 'modules.txt'),
      RECORD_BUILTINS_FILE: file,
    });
    ui.child.kill('SIGTERM');
    expect((await ui.ended).code).toBe(0);
    expect(recordedBuiltins(file)).toContain('http');
  });

  it("the page's code is in the full bundle only, and its files ship in the package", () => {
    const bundle = (name: string): string => readFileSync(join(REPO, 'dist', 'cli', name), 'latin1');
    expect(bundle('handoff.cjs')).toContain("frame-ancestors 'none'");
    for (const name of ['handoff-hot.cjs', 'handoff-stop.cjs'])
      expect(bundle(name), name).not.toContain("frame-ancestors 'none'");
    const pkg = JSON.parse(readFileSync(join(REPO, 'package.json'), 'utf8')) as { files: string[] };
    expect(pkg.files).toContain('ui');
  });
});
