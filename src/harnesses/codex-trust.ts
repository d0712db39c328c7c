/**
 * Codex's trust in hooks. Codex runs a project's `.codex/hooks.json` only in a project its `config.toml` marks
 * `trust_level = "trusted"` (the user's first-run answer: never written here), and runs any hook only once the hook
 * itself is trusted: `[hooks.state."<key>"] trusted_hash = "<hash>"` in `$CODEX_HOME/config.toml` (default
 * ~/.codex), the key and hash being Codex's own. Both come from Codex itself: `codex app-server` (JSON-RPC on stdio)
 * answers `hooks/list` with each hook's key, `currentHash`, `trustStatus` and `enabled`.
 *
 * `hooks install --harness codex` asks Codex for the hashes of exactly the hooks it wrote (over a scratch layer
 * holding the same hooks.json, so a dry run needs no write; Codex's hash does not depend on the file's place), then
 * appends one marked state table per hook to config.toml (an existing table for that key gets its `trusted_hash`
 * replaced in place; nothing of the user's is moved), and asks Codex again to confirm. Uninstall removes only the
 * marked tables.
 */
import { spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Env } from '../paths.js';
import type { TrustEntry } from './adapter.js';
import { homeOf } from '../hooks/command.js';

export function codexHome(env: Env): string {
  return env.CODEX_HOME !== undefined && env.CODEX_HOME !== '' ? env.CODEX_HOME : join(homeOf(env), '.codex');
}

export const codexConfigPath = (env: Env): string => join(codexHome(env), 'config.toml');

/** Whether Codex trusts a project (`[projects."<path>"] trust_level`); null when there is no config to read. */
export function codexTrust(env: Env, project: string): boolean | null {
  let text: string;
  try {
    text = readFileSync(codexConfigPath(env), 'utf8');
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

/** One hook as `codex app-server` lists it. */
export interface CodexHook {
  key: string;
  command?: string;
  sourcePath: string;
  currentHash: string;
  trustStatus: string;
  enabled: boolean;
}

export interface CodexListing {
  /** Hooks listed per asked working directory, all together. */
  hooks: CodexHook[];
  /** Codex's errors and warnings for those directories (a config it cannot parse). */
  problems: string[];
}

/** Why Codex could not be asked (not on PATH, no app-server, no answer in time). */
export class CodexUnavailable extends Error {}

/** An answer of `codex app-server` is awaited this long: its start takes about a second; a busy machine more. */
const APP_SERVER_BUDGET_MS = 60_000;

/**
 * `hooks/list` for `cwds`, asked of the `codex` on the environment's PATH with the environment's CODEX_HOME (or one
 * given). The server is started, asked, and ended; its stderr is not shown.
 */
export function codexHooksList(env: Env, cwds: string[], home?: string): Promise<CodexListing> {
  const childEnv: NodeJS.ProcessEnv = { ...env };
  if (home !== undefined) childEnv.CODEX_HOME = home;
  return new Promise((resolve, reject) => {
    let settled = false;
    const child = spawn('codex', ['app-server'], { env: childEnv, stdio: ['pipe', 'pipe', 'ignore'] });
    const finish = (e: Error | undefined, v?: CodexListing): void => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      child.stdin.destroy();
      child.kill('SIGTERM');
      if (e) reject(e);
      else resolve(v!);
    };
    const timer = setTimeout(
      () => finish(new CodexUnavailable(`codex app-server did not answer within ${APP_SERVER_BUDGET_MS / 1000} s`)),
      APP_SERVER_BUDGET_MS,
    );
    child.on('error', (e: NodeJS.ErrnoException) =>
      finish(
        new CodexUnavailable(
          e.code === 'ENOENT' ? 'codex is not on PATH' : `codex app-server could not start (${e.message})`,
        ),
      ),
    );
    child.on('close', (code) =>
      finish(new CodexUnavailable(`codex app-server ended (exit ${String(code)}) before answering hooks/list`)),
    );
    child.stdin.on('error', () => undefined);
    const send = (m: object): void => {
      child.stdin.write(`${JSON.stringify({ jsonrpc: '2.0', ...m })}\n`);
    };
    let buffered = '';
    child.stdout.setEncoding('utf8');
    child.stdout.on('data', (chunk: string) => {
      buffered += chunk;
      let nl: number;
      while ((nl = buffered.indexOf('\n')) >= 0) {
        const line = buffered.slice(0, nl);
        buffered = buffered.slice(nl + 1);
        let m: { id?: number; result?: unknown; error?: { message?: string } };
        try {
          m = JSON.parse(line) as typeof m;
        } catch {
          continue; // not a protocol line
        }
        if (m.id === 1) {
          if (m.error) return finish(new CodexUnavailable(`codex app-server refused initialize: ${m.error.message}`));
          send({ method: 'initialized' });
          send({ id: 2, method: 'hooks/list', params: { cwds } });
        } else if (m.id === 2) {
          if (m.error) return finish(new CodexUnavailable(`codex app-server refused hooks/list: ${m.error.message}`));
          return finish(undefined, parseListing(m.result));
        }
      }
    });
    send({ id: 1, method: 'initialize', params: { clientInfo: { name: 'handoff', version: '1' } } });
  });
}

function parseListing(result: unknown): CodexListing {
  const out: CodexListing = { hooks: [], problems: [] };
  const data = (result as { data?: unknown } | null)?.data;
  if (!Array.isArray(data)) throw new CodexUnavailable('codex app-server answered hooks/list without data');
  for (const entry of data as Record<string, unknown>[]) {
    for (const w of Array.isArray(entry.warnings) ? entry.warnings : []) out.problems.push(String(w));
    for (const e of Array.isArray(entry.errors) ? (entry.errors as { message?: unknown }[]) : [])
      out.problems.push(String(e.message));
    for (const h of Array.isArray(entry.hooks) ? (entry.hooks as Record<string, unknown>[]) : []) {
      if (typeof h.key !== 'string' || typeof h.currentHash !== 'string') continue;
      if (out.hooks.some((x) => x.key === h.key)) continue; // the same user hook, listed for each cwd
      out.hooks.push({
        key: h.key,
        command: typeof h.command === 'string' ? h.command : undefined,
        sourcePath: String(h.sourcePath),
        currentHash: h.currentHash,
        trustStatus: String(h.trustStatus),
        enabled: h.enabled !== false,
      });
    }
  }
  return out;
}

/**
 * Codex's key and hash for each hook `hooksText` would hold at `hooksPath` whose command is in `ours`: asked over a
 * scratch CODEX_HOME holding only that file (user layer), the keys mapped back to `hooksPath`.
 */
export async function hashesFor(env: Env, hooksPath: string, hooksText: string, ours: string[]): Promise<TrustEntry[]> {
  const scratch = mkdtempSync(join(tmpdir(), 'handoff-codex-'));
  try {
    const file = join(scratch, 'hooks.json');
    writeFileSync(file, hooksText);
    writeFileSync(join(scratch, 'config.toml'), '');
    const listing = await codexHooksList(env, [scratch], scratch);
    return listing.hooks
      .filter((h) => h.sourcePath === file && h.command !== undefined && ours.includes(h.command))
      .filter((h) => h.key.startsWith(`${file}:`))
      .map((h) => ({ key: `${hooksPath}${h.key.slice(file.length)}`, hash: h.currentHash }));
  } finally {
    rmSync(scratch, { recursive: true, force: true });
  }
}

/** The comment that marks a state table install appended; uninstall removes the table it heads. */
const markFor = (hooksPath: string): string =>
  `# handoff hooks install: trust for the gate it wrote in ${JSON.stringify(hooksPath)}`;

const STATE_HEADER = /^\s*\[\s*hooks\s*\.\s*state\s*\.\s*("(?:[^"\\]|\\.)*"|'[^']*')\s*\]\s*(?:#.*)?$/;
const ANY_HEADER = /^\s*\[/;

function headerKey(line: string): string | undefined {
  const m = STATE_HEADER.exec(line);
  if (!m) return undefined;
  const q = m[1];
  if (q.startsWith("'")) return q.slice(1, -1);
  try {
    return JSON.parse(q) as string;
  } catch {
    return undefined;
  }
}

/**
 * config.toml's text with each entry trusted: a state table that already exists for the key gets its
 * `trusted_hash` line replaced (or one added under its header); any other key gets a marked table appended at the
 * end. Everything else stays byte for byte, in its order.
 */
export function withTrust(text: string | undefined, hooksPath: string, entries: TrustEntry[]): string {
  const lines = text === undefined || text === '' ? [] : text.replace(/\n$/, '').split('\n');
  const appended: string[] = [];
  for (const e of entries) {
    const value = `trusted_hash = ${JSON.stringify(e.hash)}`;
    const at = lines.findIndex((l) => headerKey(l) === e.key);
    if (at < 0) {
      appended.push('', markFor(hooksPath), `[hooks.state.${JSON.stringify(e.key)}]`, value);
      continue;
    }
    let end = at + 1;
    while (end < lines.length && !ANY_HEADER.test(lines[end])) end++;
    const hashAt = lines.slice(at + 1, end).findIndex((l) => /^\s*trusted_hash\s*=/.test(l));
    if (hashAt >= 0) lines[at + 1 + hashAt] = value;
    else lines.splice(at + 1, 0, value);
  }
  if (lines.length === 0 && appended.length > 0) appended.shift();
  const all = [...lines, ...appended];
  return all.length === 0 ? '' : `${all.join('\n')}\n`;
}

/**
 * config.toml's text without the tables install appended for `hooksPath` (each: the blank line before it, the
 * mark, the header and its lines up to the next blank line or table); undefined when nothing else is left.
 */
export function withoutTrust(text: string | undefined, hooksPath: string): string | undefined {
  if (text === undefined) return undefined;
  const mark = markFor(hooksPath);
  const lines = text.split('\n');
  const out: string[] = [];
  for (let i = 0; i < lines.length; i++) {
    if (lines[i] !== mark || headerKey(lines[i + 1] ?? '') === undefined) {
      out.push(lines[i]);
      continue;
    }
    let end = i + 2;
    while (end < lines.length && lines[end].trim() !== '' && !ANY_HEADER.test(lines[end])) end++;
    if (out.length > 0 && out[out.length - 1] === '') out.pop();
    i = end - 1;
  }
  const next = out.join('\n');
  return next.trim() === '' ? undefined : next.endsWith('\n') || !text.endsWith('\n') ? next : `${next}\n`;
}
