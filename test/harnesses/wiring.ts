/**
 * Wires a stop hook into one harness's project configuration, each in the form that harness reads (its event name
 * and file), with every hook command wrapped in hook-tap.mjs so the suite sees each call the harness made.
 */
import { readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { writeJson, type HarnessName, type RunDirs } from './recipes.js';

const TAP = resolve(import.meta.dirname, 'hook-tap.mjs');

export const q = (s: string): string => `'${s.replace(/'/g, `'\\''`)}'`;

/** A shell command that runs `command` through the tap, logging each call to `log`. */
export function tapped(command: string, log: string): string {
  return [process.execPath, TAP, log, Buffer.from(command, 'utf8').toString('base64')].map(q).join(' ');
}

/** One line per hook call, in call order. */
export interface HookCall {
  input: Record<string, unknown>;
  exit: number;
  stdout: string;
  stderr: string;
}

function parseInput(text: string): Record<string, unknown> {
  try {
    return JSON.parse(text) as Record<string, unknown>;
  } catch {
    return { unparsed: text };
  }
}

export function readTap(log: string): HookCall[] {
  let text: string;
  try {
    text = readFileSync(log, 'utf8');
  } catch {
    return [];
  }
  return text
    .split('\n')
    .filter((l) => l !== '')
    .map((l) => {
      const raw = JSON.parse(l) as { input: string; exit: number; stdout: string; stderr: string };
      return { ...raw, input: parseInput(raw.input) };
    });
}

/** Writes the project configuration that makes `harness` run `command` (tapped) when its agent stops. */
export function wireStopHook(harness: HarnessName, dirs: RunDirs, command: string, log: string): string {
  const cmd = tapped(command, log);
  switch (harness) {
    case 'claude': {
      const file = join(dirs.project, '.claude', 'settings.json');
      writeJson(file, { hooks: { Stop: [{ hooks: [{ type: 'command', command: cmd, timeout: 60 }] }] } });
      return file;
    }
    case 'codex': {
      // Read only in a trusted project (the recipe trusts it); the hook itself runs under --dangerously-bypass-hook-trust.
      const file = join(dirs.project, '.codex', 'hooks.json');
      writeJson(file, { hooks: { Stop: [{ hooks: [{ type: 'command', command: cmd, timeout: 60 }] }] } });
      return file;
    }
    case 'gemini': {
      const file = join(dirs.project, '.gemini', 'settings.json');
      writeJson(file, { hooks: { AfterAgent: [{ hooks: [{ type: 'command', command: cmd, timeout: 60_000 }] }] } });
      return file;
    }
    case 'copilot': {
      const file = join(dirs.project, '.github', 'hooks', 'handoff.json');
      writeJson(file, { version: 1, hooks: { agentStop: [{ type: 'command', bash: cmd, timeoutSec: 60 }] } });
      return file;
    }
  }
}
