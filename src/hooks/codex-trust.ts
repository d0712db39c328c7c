/**
 * Whether Codex trusts a project: Codex runs a project's `.codex/hooks.json` only when `$CODEX_HOME/config.toml`
 * (default ~/.codex) marks the project `trust_level = "trusted"`. Read line by line (only the `[projects."<path>"]`
 * table matters here); null when there is no config to read.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Env } from '../paths.js';
import { homeOf } from './command.js';

export function codexTrust(env: Env, project: string): boolean | null {
  const home = env.CODEX_HOME !== undefined && env.CODEX_HOME !== '' ? env.CODEX_HOME : join(homeOf(env), '.codex');
  let text: string;
  try {
    text = readFileSync(join(home, 'config.toml'), 'utf8');
  } catch {
    return null;
  }
  let inProject = false;
  for (const raw of text.split('\n')) {
    const line = raw.trim();
    const table = /^\[(.*)\]$/.exec(line);
    if (table) {
      const m = /^projects\.(?:"((?:[^"\\]|\\.)*)"|'([^']*)')$/.exec(table[1].trim());
      inProject = m !== null && (m[1] !== undefined ? m[1].replace(/\\(.)/g, '$1') : m[2]) === project;
      continue;
    }
    const kv = /^trust_level\s*=\s*["']([^"']*)["']/.exec(line);
    if (inProject && kv) return kv[1] === 'trusted';
  }
  return false;
}
