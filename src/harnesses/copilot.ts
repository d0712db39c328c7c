/** Copilot CLI: an `agentStop` hook in `.github/hooks/handoff.json` (camelCase keys), `events.jsonl`. */
import { join } from 'node:path';
import { usage } from '../errors.js';
import { blocksText, hookInputInvalid, nonBlank, objectOf, own, type HarnessAdapter } from './adapter.js';

/** A Copilot CLI session id as it names its session-state folder (a UUID). */
const SESSION_ID_RE = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

export const copilot: HarnessAdapter = {
  title: 'Copilot CLI',
  stopEvents: ['agentStop', undefined],
  recognize: { rank: 20, test: (v) => own(v, 'sessionId') && own(v, 'stopReason') },
  read: (h) => ({
    event: 'agentStop',
    subagent: false,
    cwd: h.cwd,
    stopHookActive: h.stop_hook_active,
    sessionId: h.sessionId,
    transcriptPath: h.transcriptPath,
    stopReason: h.stopReason,
  }),
  runIdField: () => 'sessionId',
  breakerPrefix: 'copilot:',
  // Copilot ignores exit 2: it reads a JSON answer on stdout.
  answer: (blocked, reason, systemMessage) =>
    blocked ? { exit: 0, stdout: JSON.stringify({ decision: 'block', reason }) } : { exit: 0, stderr: systemMessage },
  transcript: {
    // `{"type":"user.message","data":{"content":…}}`
    userText: (line) =>
      line.type === 'user.message' ? (blocksText(objectOf(line.data)?.content, ['text']) ?? '') : undefined,
    feedback: (line) => line.type === 'hook.end',
  },
  config: {
    layout: 'flat',
    path: (p) => {
      if (p.scope === 'user')
        throw usage('Copilot CLI reads hooks from the project (.github/hooks/*.json): use --scope project');
      return join(p.root, '.github', 'hooks', 'handoff.json');
    },
    ownDirs: 2,
    commandKey: 'bash',
    entry: (command, timeoutS) => ({ type: 'command', bash: command, timeoutSec: timeoutS }),
    stopHooks: (top) => [top('agentStop')],
  },
  preTool: {
    event: 'preToolUse',
    events: ['preToolUse', undefined],
    recognize: { rank: 60, test: (v) => own(v, 'toolName') },
    // `toolName`, and `toolArgs` as a JSON string.
    read: (v) => {
      const toolName = nonBlank(v.toolName);
      if (toolName === undefined) throw hookInputInvalid('a Copilot preToolUse input needs toolName');
      let args: unknown = v.toolArgs;
      if (typeof args === 'string') {
        try {
          args = JSON.parse(args);
        } catch {
          throw hookInputInvalid('Copilot toolArgs is not valid JSON');
        }
      }
      return {
        event: 'preToolUse',
        toolName,
        toolInput: objectOf(args) ?? {},
        sessionId: nonBlank(v.sessionId),
        transcriptPath: nonBlank(v.transcriptPath),
      };
    },
    answer: (allow, reason) =>
      allow
        ? { exit: 0, stdout: '' }
        : { exit: 0, stdout: JSON.stringify({ permissionDecision: 'deny', permissionDecisionReason: reason }) },
    // Its preToolUse input names no transcript: the session's events file, for a session id that is a UUID only (as
    // Copilot CLI names its session-state folders), so nothing else becomes a path.
    sessionTranscript: (sessionId, home) =>
      SESSION_ID_RE.test(sessionId) ? join(home, '.copilot', 'session-state', sessionId, 'events.jsonl') : undefined,
  },
  sampleTranscript: (prompt) => `${JSON.stringify({ type: 'user.message', data: { content: prompt } })}\n`,
  sampleStop: (p) => ({
    sessionId: p.sessionId,
    transcriptPath: p.transcriptPath,
    cwd: p.cwd,
    timestamp: 1767225600000,
    stopReason: 'end_turn',
    stop_hook_active: false,
  }),
};
