/**
 * The OpenCode plugin as installed by `hooks install --harness opencode`, loaded the way OpenCode loads a plugin (an ESM
 * module whose export is called with the client) and driven with session.idle events: the gate runs through the
 * library's stopGate, a block sends its reason back into the session, and the breaker ends the loop.
 */
import { mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { describe, expect, it } from 'vitest';
import { run, tempHome } from '../helpers/cli.js';
import { COMPLETE_PATCH, dispatchJson, finalizeAs } from '../helpers/gate.js';

interface Sent {
  id: string;
  text: string;
}

function fakeClient(prompt: string, sent: Sent[]) {
  return {
    session: {
      messages: () => Promise.resolve({ data: [{ info: { role: 'user' }, parts: [{ type: 'text', text: prompt }] }] }),
      prompt: (req: { path: { id: string }; body: { parts: { text: string }[] } }) => {
        sent.push({ id: req.path.id, text: req.body.parts[0].text });
        return Promise.resolve({});
      },
    },
  };
}

describe('the OpenCode plugin', () => {
  it('re-prompts an unfinished dispatched session with the reason, gives up at the breaker, and lets a finalized one rest', async () => {
    const data = tempHome();
    const project = mkdtempSync(join(tmpdir(), 'opencode-'));
    mkdirSync(join(project, '.git'));
    writeFileSync(join(project, '.git', 'HEAD'), 'ref: refs/heads/main\n'); // a repository, as git judges one
    const installed = run(data, ['hooks', 'install', '--harness', 'opencode', '--json'], {
      cwd: project,
      env: { HOME: project, XDG_CONFIG_HOME: join(project, '.config') },
    });
    expect(installed.code, installed.stderr).toBe(0);
    const d = dispatchJson(data, ['--goal', 'g']);
    const saved = {
      HANDOFF_HOME: process.env.HANDOFF_HOME,
      HANDOFF_DB: process.env.HANDOFF_DB,
      HANDOFF_STORE_URL: process.env.HANDOFF_STORE_URL,
    };
    process.env.HANDOFF_HOME = data;
    delete process.env.HANDOFF_DB;
    delete process.env.HANDOFF_STORE_URL;
    try {
      const mod = await import(pathToFileURL(installed.json.path).href);
      const sent: Sent[] = [];
      const hooks = await mod.HandoffGate({
        client: fakeClient(`Work.\n\n${d.contract_block}`, sent),
        directory: project,
      });
      const idle = () => hooks.event({ event: { type: 'session.idle', properties: { sessionID: 'ses_1' } } });
      await idle();
      await idle();
      await idle();
      expect(sent.map((s) => s.id)).toEqual(['ses_1', 'ses_1']);
      expect(sent[0].text).toMatch(/^\[CONTRACT REJECTED\] .*ROW_NOT_FINALIZED/);
      expect(sent[1].text).toContain('This is block 2 of 2');

      finalizeAs(data, d.contract_id, 'COMPLETE', COMPLETE_PATCH);
      await idle();
      expect(sent).toHaveLength(2);

      // Under `opencode run` (the command is argv[2] in OpenCode's process) the plugin claims and counts nothing: the
      // contract stays DISPATCHED, unbound, and nothing is sent.
      const e = dispatchJson(data, ['--goal', 'g2']);
      const runSent: Sent[] = [];
      const runHooks = await mod.HandoffGate({
        client: fakeClient(`Work.\n\n${e.contract_block}`, runSent),
        directory: project,
      });
      // The worker's argv is put back exactly: a hole left in it (argv[2] = undefined) broke a later file's import
      // of vitest/node in the same worker (it maps process.argv's strings).
      const argv = [...process.argv];
      process.argv[2] = 'run';
      try {
        await runHooks.event({ event: { type: 'session.idle', properties: { sessionID: 'ses_2' } } });
      } finally {
        process.argv.splice(0, process.argv.length, ...argv);
      }
      expect(runSent).toEqual([]);
      const row = run(data, ['contract', 'list', '--contract-id', e.contract_id, '--json']).json.handoffs[0];
      expect([row.agent_state, row.harness_id]).toEqual(['DISPATCHED', null]);
      // The same contract in a served session is gated.
      await runHooks.event({ event: { type: 'session.idle', properties: { sessionID: 'ses_2' } } });
      expect(runSent.map((s) => s.id)).toEqual(['ses_2']);
    } finally {
      for (const [k, v] of Object.entries(saved)) {
        if (v === undefined) delete process.env[k];
        else process.env[k] = v;
      }
    }
  });
});
