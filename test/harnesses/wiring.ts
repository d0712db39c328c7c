/**
 * The stop gate wired into a harness's project configuration by `handoff hooks install`, then every gate command
 * there wrapped in hook-tap.mjs so the suite sees each call the harness made.
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
  /** Bytes in the transcript the input named when the hook was called (null: none named, or no such file yet). */
  transcript_bytes: number | null;
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
      const raw = JSON.parse(l) as Omit<HookCall, 'input'> & { input: string };
      return { ...raw, input: parseInput(raw.input) };
    });
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
