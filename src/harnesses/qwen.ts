/**
 * Qwen Code: a `Stop` hook in `.qwen/settings.json` (a project's loads only in a folder Qwen Code trusts; user hooks
 * always), Claude Code's input keys plus `timestamp`, blocked by exit 2 with the reason on stderr. Its chat
 * recording's format is not read here: the gate finds a Qwen turn's contract by its run id (`dispatch --harness-id`,
 * `contract claim`) or `--draft-id`, and its breaker counts by `stop_hook_active` (L1).
 */
import { join } from 'node:path';
import { exitTwoAnswer, type HarnessAdapter } from './adapter.js';

export const qwen: HarnessAdapter = {
  title: 'Qwen Code',
  stopEvents: ['Stop'],
  // The same keys as Claude Code's Stop: never recognized by auto (the installed hook pins --harness qwen).
  read: (h) => ({
    event: 'Stop',
    subagent: false,
    cwd: h.cwd,
    stopHookActive: h.stop_hook_active,
    sessionId: h.session_id,
    transcriptPath: h.transcript_path,
    stopReason: h.stop_reason,
  }),
  runIdField: () => 'session_id',
  breakerPrefix: 'qwen:',
  answer: exitTwoAnswer,
  config: {
    layout: 'grouped',
    path: (p) => join(p.scope === 'user' ? p.home : p.root, '.qwen', 'settings.json'),
    ownDirs: 1,
    commandKey: 'command',
    // Qwen Code reads a command hook's timeout in seconds.
    entry: (command, timeoutS) => ({ type: 'command', command, timeout: timeoutS }),
    stopHooks: (top) => [top('Stop')],
  },
  sampleStop: (p) => ({
    session_id: p.sessionId,
    transcript_path: p.transcriptPath,
    cwd: p.cwd,
    hook_event_name: 'Stop',
    timestamp: '2026-01-01T00:00:00.000Z',
    permission_mode: 'default',
    stop_hook_active: false,
    last_assistant_message: '',
  }),
};
