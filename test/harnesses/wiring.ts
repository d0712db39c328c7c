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

/** Where `handoff hooks install --harness H --scope project` writes, per harness. */
export function projectConfigFile(harness: HarnessName, dirs: RunDirs): string {
  switch (harness) {
    case 'claude':
      return join(dirs.project, '.claude', 'settings.json');
    case 'codex':
      return join(dirs.project, '.codex', 'hooks.json');
    case 'gemini':
      return join(dirs.project, '.gemini', 'settings.json');
    case 'copilot':
      return join(dirs.project, '.github', 'hooks', 'handoff.json');
  }
}

/**
 * Wraps every gate command in a harness config (a `command` or `bash` string that runs `contract gate`) in the tap;
 * returns the commands found, unwrapped. Everything else in the file is kept as it was.
 */
export function tapConfig(file: string, log: string): string[] {
  const found: string[] = [];
  const walk = (v: unknown): unknown => {
    if (Array.isArray(v)) return v.map(walk);
    if (!v || typeof v !== 'object') return v;
    const o = { ...(v as Record<string, unknown>) };
    for (const [k, x] of Object.entries(o)) {
      if ((k === 'command' || k === 'bash') && typeof x === 'string' && /\bcontract gate\b/.test(x)) {
        found.push(x);
        o[k] = tapped(x, log);
      } else {
        o[k] = walk(x);
      }
    }
    return o;
  };
  const next = walk(JSON.parse(readFileSync(file, 'utf8')));
  writeJson(file, next);
  return found;
}
