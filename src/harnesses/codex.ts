/**
 * Codex CLI: `Stop` hooks in `.codex/hooks.json` (or `$CODEX_HOME/hooks.json`), a rollout transcript, and hook trust
 * in its `config.toml` (codex-trust.ts, codex-hooks.ts: loaded only by `hooks`).
 */
import { join } from 'node:path';
import { readStopOrSubagent } from './claude.js';
import { blocksText, exitTwoAnswer, exitTwoDeny, objectOf, own, type HarnessAdapter } from './adapter.js';

/** Codex puts its own context (AGENTS.md, the environment) into user messages ahead of the prompt. */
const codexContext = (t: string): boolean => /^\s*(<[a-z_]+>|# AGENTS\.md)/i.test(t);

export const codex: HarnessAdapter = {
  title: 'Codex CLI',
  stopEvents: ['Stop', 'SubagentStop'],
  recognize: { rank: 30, test: (v) => own(v, 'turn_id') },
  read: (h) => ({ ...readStopOrSubagent(h), turnId: h.turn_id }),
  runIdField: (subagent) => (subagent ? 'agent_id' : 'session_id'),
  breakerPrefix: 'codex:',
  answer: exitTwoAnswer,
  transcript: {
    // `{"type":"event_msg","payload":{"type":"user_message","message":…}}`, or a `response_item` user message that
    // is not Codex's own context.
    userText: (line) => {
      const p = objectOf(line.payload);
      if (line.type === 'event_msg' && p?.type === 'user_message')
        return typeof p.message === 'string' ? p.message : '';
      if (line.type === 'response_item' && p?.type === 'message' && p.role === 'user') {
        const t = blocksText(p.content, ['input_text', 'text']);
        return t === undefined || codexContext(t) ? undefined : t;
      }
      return undefined;
    },
    fallbackUser: (line) => line.type === 'response_item',
    // A rollout user or developer message, a `user_message` or a hook event.
    feedback: (line) => {
      const p = objectOf(line.payload);
      if (line.type === 'response_item') return p?.type === 'message' && (p.role === 'user' || p.role === 'developer');
      return (
        line.type === 'event_msg' && typeof p?.type === 'string' && (p.type === 'user_message' || /hook/i.test(p.type))
      );
    },
  },
  config: {
    layout: 'grouped',
    path: (p) =>
      p.scope === 'user'
        ? join(
            p.env.CODEX_HOME !== undefined && p.env.CODEX_HOME !== '' ? p.env.CODEX_HOME : join(p.home, '.codex'),
            'hooks.json',
          )
        : join(p.root, '.codex', 'hooks.json'),
    ownDirs: 1,
    commandKey: 'command',
    entry: (command, timeoutS) => ({ type: 'command', command, timeout: timeoutS }),
    stopHooks: (top) => [top('Stop')],
  },
  preTool: {
    event: 'PreToolUse',
    events: ['PreToolUse'],
    recognize: { rank: 30, test: (v) => v.hook_event_name === 'PreToolUse' && own(v, 'turn_id') },
    answer: exitTwoDeny,
  },
  trust: async () => (await import('./codex-hooks.js')).codexHookTrust,
  sampleTranscript: (prompt) =>
    `${JSON.stringify({ type: 'event_msg', payload: { type: 'user_message', message: prompt } })}\n`,
  sampleStop: (p) => ({
    session_id: p.sessionId,
    turn_id: 'hooks-test-turn',
    transcript_path: p.transcriptPath,
    cwd: p.cwd,
    hook_event_name: 'Stop',
    model: 'hooks-test',
    permission_mode: 'default',
    stop_hook_active: false,
    last_assistant_message: null,
  }),
};
