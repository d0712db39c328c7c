/**
 * One verdict, each harness's answer: the form in which that harness continues its turn on a block, and what it
 * accepts on an allow. Claude Code and Codex block on exit 2 with the reason on stderr; Gemini, Copilot and Cursor
 * read stdout as JSON (Copilot ignores exit 2, Gemini logs it as a hook failure), so they get exit 0 and a JSON answer.
 * A stop the gate cannot judge is exit 1 everywhere (the base command prints that one line; stdout stays empty).
 */
import type { Harness } from './hook-input.js';
import type { GateRun } from './service.js';

export interface Answer {
  exit: 0 | 2;
  stdout?: string;
  stderr?: string;
}

const json = (v: object): string => JSON.stringify(v);

export function answerFor(harness: Harness, run: GateRun): Answer {
  const blocked = run.exit === 2;
  const message = run.systemMessage;
  switch (harness) {
    case 'claude':
    case 'codex':
      if (blocked) return { exit: 2, stderr: run.reason };
      return { exit: 0, stdout: message === undefined ? undefined : json({ systemMessage: message }) };
    case 'gemini':
      if (blocked) return { exit: 0, stdout: json({ decision: 'block', reason: run.reason }) };
      return { exit: 0, stdout: json(message === undefined ? {} : { systemMessage: message }) };
    case 'copilot':
    case 'opencode':
      if (blocked) return { exit: 0, stdout: json({ decision: 'block', reason: run.reason }) };
      return { exit: 0, stderr: message };
    case 'cursor':
      if (blocked) return { exit: 0, stdout: json({ followup_message: run.reason }) };
      return { exit: 0, stdout: '{}', stderr: message };
  }
}
