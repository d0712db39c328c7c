/** Gemini CLI: an `AfterAgent` hook in `.gemini/settings.json`; the prompt comes on stdin, a chat session file. */
import { join } from 'node:path';
import { blocksText, exitTwoDeny, type HarnessAdapter } from './adapter.js';

export const gemini: HarnessAdapter = {
  title: 'Gemini CLI',
  stopEvents: ['AfterAgent'],
  recognize: { rank: 10, test: (v) => v.hook_event_name === 'AfterAgent' },
  read: (h) => ({
    event: 'AfterAgent',
    subagent: false,
    cwd: h.cwd,
    stopHookActive: h.stop_hook_active,
    sessionId: h.session_id,
    transcriptPath: h.transcript_path,
    prompt: h.prompt,
  }),
  runIdField: () => 'session_id',
  breakerPrefix: 'gemini:',
  // Gemini logs exit 2 as a hook failure: it reads a JSON answer on stdout.
  answer: (blocked, reason, systemMessage) =>
    blocked
      ? { exit: 0, stdout: JSON.stringify({ decision: 'block', reason }) }
      : { exit: 0, stdout: JSON.stringify(systemMessage === undefined ? {} : { systemMessage }) },
  transcript: {
    // `{"type":"user","content":…}`
    userText: (line) => (line.type === 'user' ? (blocksText(line.content, [undefined, 'text']) ?? '') : undefined),
    wholeFile: true,
    feedback: (line) => line.type === 'user',
  },
  config: {
    layout: 'grouped',
    path: (p) => join(p.scope === 'user' ? p.home : p.root, '.gemini', 'settings.json'),
    ownDirs: 1,
    commandKey: 'command',
    // Gemini's timeout is in milliseconds.
    entry: (command, timeoutS) => ({ type: 'command', command, timeout: timeoutS * 1000 }),
    stopHooks: (top) => [top('AfterAgent')],
  },
  preTool: {
    event: 'BeforeTool',
    events: ['BeforeTool'],
    recognize: { rank: 10, test: (v) => v.hook_event_name === 'BeforeTool' },
    answer: exitTwoDeny,
  },
  sampleTranscript: (prompt) => `${JSON.stringify({ type: 'user', content: [{ text: prompt }] })}\n`,
  sampleStop: (p) => ({
    session_id: p.sessionId,
    transcript_path: p.transcriptPath,
    cwd: p.cwd,
    hook_event_name: 'AfterAgent',
    timestamp: '2026-01-01T00:00:00.000Z',
    prompt: p.prompt,
    prompt_response: '',
    stop_hook_active: false,
  }),
};
