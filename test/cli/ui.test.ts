/** `handoff ui` as a process: it prints its URL, serves until SIGINT or SIGTERM and exits 0; refusals before serving. */
import { createServer } from 'node:net';
import { describe, expect, it } from 'vitest';
import { run, tempHome } from '../helpers/cli.js';
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
    expect(r.stdout).toBe('');
    expect(r.stderr).not.toMatch(/\n\s+at /);
  });
});
