/** Claude Code: `Stop` and `SubagentStop` hooks in `.claude/settings.json`, a JSON-lines transcript. */
import { join } from 'node:path';
import {
  exitTwoAnswer,
  exitTwoDeny,
  hasKey,
  messageOf,
  messageText,
  own,
  type HarnessAdapter,
  type StopRaw,
  type StopInput,
} from './adapter.js';

/** The subagent types that carry contracts, by default (`hooks install --matcher`). */
export const DEFAULT_MATCHER = 'implementer|verifier|investigator';

/** Claude Code's and Codex's stop input (the same keys; Codex adds `turn_id`). */
export function readStopOrSubagent(h: StopRaw): StopInput {
  const subagent = h.hook_event_name === 'SubagentStop';
  const input: StopInput = {
    event: h.hook_event_name!,
    subagent,
    cwd: h.cwd,
    stopHookActive: h.stop_hook_active,
    sessionId: h.session_id,
    stopReason: h.stop_reason,
  };
  if (subagent) {
    input.agentId = h.agent_id;
    input.agentType = h.agent_type;
    input.transcriptPath = h.agent_transcript_path;
  } else input.transcriptPath = h.transcript_path;
  return input;
}

export const claude: HarnessAdapter = {
  title: 'Claude Code',
  stopEvents: ['Stop', 'SubagentStop'],
  recognize: {
    rank: 50,
    test: (v) => v.hook_event_name === 'Stop' || v.hook_event_name === 'SubagentStop',
  },
  read: readStopOrSubagent,
  runIdField: (subagent) => (subagent ? 'agent_id' : 'session_id'),
  // Claude Code keys keep their names (from before other harnesses were served).
  breakerPrefix: '',
  answer: exitTwoAnswer,
  transcript: {
    // `{"type":"user","message":{"content":…}}`
    userText: (line) => (line.type === 'user' ? (messageText(messageOf(line)?.content) ?? '') : undefined),
    // A `system` record with subtype `stop_hook_summary`, or a `user` record carrying `hookText`.
    feedback: (line) =>
      (line.type === 'system' && line.subtype === 'stop_hook_summary') ||
      (line.type === 'user' && (hasKey(line, 'hookText') || hasKey(line.message, 'hookText'))),
    stopReason: true,
  },
  config: {
    layout: 'grouped',
    path: (p) => join(p.scope === 'user' ? p.home : p.root, '.claude', 'settings.json'),
    ownDirs: 1,
    commandKey: 'command',
    entry: (command, timeoutS) => ({ type: 'command', command, timeout: timeoutS }),
    // A subagent's stop blocks without a contract; a top-level stop allows one without.
    stopHooks: (top, o) => [
      {
        event: 'SubagentStop',
        matcher: o.matcher ?? DEFAULT_MATCHER,
        keepMatcher: o.matcher === undefined,
        args: ['--harness', 'claude', ...(o.strict ? ['--on-store-error', 'block', '--on-missing', 'block'] : [])],
      },
      top('Stop'),
    ],
  },
  preTool: {
    event: 'PreToolUse',
    events: ['PreToolUse'],
    recognize: { rank: 50, test: (v) => v.hook_event_name === 'PreToolUse' && !own(v, 'turn_id') },
    answer: exitTwoDeny,
  },
  sampleTranscript: (prompt) => `${JSON.stringify({ type: 'user', message: { role: 'user', content: prompt } })}\n`,
  sampleStop: (p) => ({
    session_id: p.sessionId,
    transcript_path: p.transcriptPath,
    cwd: p.cwd,
    hook_event_name: 'Stop',
    stop_hook_active: false,
  }),
};
