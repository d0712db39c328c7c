/**
 * OpenCode: not a command hook but the plugin the package ships (plugins/opencode/handoff-gate.js), which runs the
 * gate on `session.idle` with its own input and prompts the session again with the reason.
 */
import { join } from 'node:path';
import type { HarnessAdapter } from './adapter.js';

export const opencode: HarnessAdapter = {
  title: 'OpenCode',
  // The plugin's own input: never recognized by auto.
  stopEvents: ['session.idle'],
  read: (h) => ({
    event: 'session.idle',
    subagent: false,
    cwd: h.cwd,
    stopHookActive: h.stop_hook_active,
    sessionId: h.session_id,
    prompt: h.prompt,
  }),
  runIdField: () => 'session_id',
  breakerPrefix: 'opencode:',
  answer: (blocked, reason, systemMessage) =>
    blocked ? { exit: 0, stdout: JSON.stringify({ decision: 'block', reason }) } : { exit: 0, stderr: systemMessage },
  config: {
    layout: 'plugin',
    path: (p) =>
      p.scope === 'user'
        ? join(p.home, '.config', 'opencode', 'plugin', 'handoff-gate.js')
        : join(p.root, '.opencode', 'plugin', 'handoff-gate.js'),
    ownDirs: 2,
    commandKey: 'command',
    entry: (command) => ({ command }),
    stopHooks: (top) => [top('session.idle')],
  },
  sampleStop: (p) => ({ hook_event_name: 'session.idle', session_id: p.sessionId, cwd: p.cwd, prompt: p.prompt }),
};
