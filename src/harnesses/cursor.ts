/** Cursor: a `stop` hook in `.cursor/hooks.json`; it continues on a `followup_message`. */
import { join } from 'node:path';
import { blocksText, hookInputInvalid, messageOf, nonBlank, objectOf, own, type HarnessAdapter } from './adapter.js';

export const cursor: HarnessAdapter = {
  title: 'Cursor',
  stopEvents: ['stop', undefined],
  recognize: {
    rank: 40,
    test: (v) => own(v, 'loop_count') || (own(v, 'status') && v.hook_event_name === 'stop'),
  },
  read: (h) => ({
    event: 'stop',
    subagent: false,
    cwd: h.cwd,
    stopHookActive: h.loop_count === undefined ? h.stop_hook_active : h.loop_count > 0,
    sessionId: h.conversation_id,
    transcriptPath: h.transcript_path,
    stopReason: h.status,
  }),
  runIdField: () => 'conversation_id',
  // `status`: completed (the agent stopped), aborted (the user stopped it), error (the harness failed).
  stopClasses: { completed: 'violation', aborted: 'abort', error: 'truncation' },
  breakerPrefix: 'cursor:',
  answer: (blocked, reason, systemMessage) =>
    blocked
      ? { exit: 0, stdout: JSON.stringify({ followup_message: reason }) }
      : { exit: 0, stdout: '{}', stderr: systemMessage },
  transcript: {
    // `{"role":"user","message":{"content":…}}`; Cursor writes no record of a hook's feedback.
    userText: (line) =>
      line.role === 'user' || line.type === 'user' ? (blocksText(messageOf(line)?.content, ['text']) ?? '') : undefined,
  },
  config: {
    layout: 'flat',
    path: (p) => join(p.scope === 'user' ? p.home : p.root, '.cursor', 'hooks.json'),
    ownDirs: 1,
    commandKey: 'command',
    entry: (command) => ({ command }),
    stopHooks: (top) => [top('stop')],
  },
  preTool: {
    event: 'beforeShellExecution',
    events: ['beforeShellExecution', 'beforeMCPExecution'],
    recognize: {
      rank: 20,
      test: (v) => v.hook_event_name === 'beforeShellExecution' || v.hook_event_name === 'beforeMCPExecution',
    },
    // A shell call is the `Shell` tool with its `command`; an MCP call is `mcp__<server>__<tool_name>`.
    read: (v, event) => {
      const shell = event === 'beforeShellExecution';
      const command = nonBlank(v.command);
      if (shell && command === undefined) throw hookInputInvalid('a Cursor beforeShellExecution input needs command');
      return {
        event: event!,
        toolName: shell ? 'Shell' : `mcp__${nonBlank(v.server) ?? 'unknown'}__${nonBlank(v.tool_name) ?? 'unknown'}`,
        toolInput: shell ? { command } : (objectOf(v.tool_input) ?? {}),
        toolUseId: nonBlank(v.generation_id),
        sessionId: nonBlank(v.conversation_id),
        transcriptPath: nonBlank(v.transcript_path),
      };
    },
    answer: (allow, reason) => ({
      exit: 0,
      stdout: JSON.stringify(
        allow ? { permission: 'allow' } : { permission: 'deny', userMessage: reason, agentMessage: reason },
      ),
    }),
  },
  sampleTranscript: (prompt) =>
    `${JSON.stringify({ role: 'user', message: { content: [{ type: 'text', text: prompt }] } })}\n`,
  sampleStop: (p) => ({
    conversation_id: p.sessionId,
    generation_id: 'hooks-test',
    transcript_path: p.transcriptPath,
    hook_event_name: 'stop',
    workspace_roots: [p.cwd],
    status: 'completed',
    loop_count: 0,
  }),
};
