/**
 * Qwen Code: a `Stop` hook in `.qwen/settings.json` (a project's loads only in a folder Qwen Code trusts; user hooks
 * always), Claude Code's input keys plus `timestamp`, blocked by exit 2 with the reason on stderr. Its chat
 * recording (`transcript_path`, JSON lines) holds the prompt as `{"type":"user","message":{"parts":[{"text":…}]}}`,
 * so a contract block in the prompt finds its contract as with the others; no record of a hook's feedback is read,
 * so its breaker counts by `stop_hook_active` (L1).
 */
import { join } from 'node:path';
import { blocksText, exitTwoAnswer, messageOf, type HarnessAdapter } from './adapter.js';

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
  transcript: {
    userText: (line) =>
      line.type === 'user' ? (blocksText(messageOf(line)?.parts, [undefined, 'text']) ?? '') : undefined,
  },
  config: {
    layout: 'grouped',
    path: (p) => join(p.scope === 'user' ? p.home : p.root, '.qwen', 'settings.json'),
    ownDirs: 1,
    commandKey: 'command',
    // Qwen Code reads a command hook's timeout in seconds.
    entry: (command, timeoutS) => ({ type: 'command', command, timeout: timeoutS }),
    stopHooks: (top) => [top('Stop')],
  },
  sampleTranscript: (prompt) =>
    `${JSON.stringify({ type: 'user', message: { role: 'user', parts: [{ text: prompt }] } })}\n`,
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
