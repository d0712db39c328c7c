/**
 * Usage lines are generated from each verb's flags and args (src/cli/usage.ts), never written by hand, and enum flags
 * carry their values as oclif `options` in the manifest (help, completion and the parse read the same list).
 */
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { generatedUsage, type UsageSource } from '../../src/cli/usage.js';
import { REPO, run, tempHome } from '../helpers/cli.js';

const manifest = JSON.parse(readFileSync(join(REPO, 'oclif.manifest.json'), 'utf8')) as {
  commands: Record<string, UsageSource & { usage?: string }>;
};

function sources(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const p = join(dir, name);
    return statSync(p).isDirectory() ? sources(p) : p.endsWith('.ts') ? [p] : [];
  });
}

describe('generated usage', () => {
  it('every verb in the manifest has the usage line its flags and args generate', () => {
    const ids = Object.keys(manifest.commands);
    expect(ids.length).toBeGreaterThan(30);
    for (const id of ids) expect(manifest.commands[id].usage, id).toBe(generatedUsage(manifest.commands[id]));
  });

  it('no verb declares a usage string by hand', () => {
    for (const file of sources(join(REPO, 'src', 'commands'))) {
      const text = readFileSync(file, 'utf8');
      expect(text, file).not.toMatch(/static override usage = ['"`]/);
      expect(text, file).not.toMatch(/const USAGE =/);
    }
  });

  it('renders requirement, repetition, exclusive and exactly-one groups', () => {
    expect(manifest.commands['contract:dispatch'].usage).toMatch(
      /^\(--goal TEXT \| --goal-file PATH\) .*\[--can-write SECTION\]\.\.\. /,
    );
    expect(manifest.commands['contract:validate'].usage).toBe(
      '[--draft-id ID | --agent-id ID | --file PATH|-] [--consolidation] [--explain] [--json]',
    );
    expect(manifest.commands['evidence:run'].usage).toMatch(/ -- CMD \[ARG \.\.\.\]$/);
    expect(manifest.commands['hooks:install'].usage).toMatch(
      /^--harness claude\|codex\|gemini\|copilot\|cursor\|opencode\|qwen /,
    );
  });

  it('the usage line ends a USAGE message and heads the help page', () => {
    const r = run(tempHome(), ['contract', 'claim', '--draft-id', 'a0123456789abcdef.0123456789ab']);
    expect(r.stderr).toBe(
      `Error: --harness-id is required. Usage: handoff contract claim ${manifest.commands['contract:claim'].usage} [USAGE]\n`,
    );
    const help = run(tempHome(), ['contract', 'claim', '--help']);
    expect(help.stdout.replace(/\s+/g, ' ')).toContain(
      `$ handoff contract claim ${manifest.commands['contract:claim'].usage}`,
    );
  });
});

describe('enum flags carry options', () => {
  it.each([
    ['contract:gate', 'harness', ['auto', 'claude', 'codex', 'gemini', 'copilot', 'cursor', 'opencode', 'qwen']],
    ['contract:gate', 'on-missing', ['block', 'allow']],
    ['contract:gate', 'on-store-error', ['block', 'allow']],
    ['hooks:install', 'harness', ['claude', 'codex', 'gemini', 'copilot', 'cursor', 'opencode', 'qwen']],
    ['hooks:install', 'scope', ['project', 'user']],
    ['hooks:status', 'harness', ['claude', 'codex', 'gemini', 'copilot', 'cursor', 'opencode', 'qwen']],
    ['approval:list', 'status', ['pending', 'approved', 'rejected', 'revoked', 'expired', 'used']],
    ['approval:decide', 'decision', ['approved', 'rejected', 'revoked', 'expired']],
    ['key:generate', 'type', ['ecdsa-p256', 'ed25519']],
    ['evidence:add', 'type', ['text', 'file', 'command_output', 'url', 'screenshot']],
  ])('%s --%s', (id, flag, options) => {
    const f = (manifest.commands[id].flags as Record<string, { options?: string[] }>)[flag];
    expect(f.options).toEqual(options);
  });

  it('exclusive pairs are declared on the flags', () => {
    const flags = (id: string) => manifest.commands[id].flags as Record<string, { exclusive?: string[] }>;
    expect(flags('contract:claim')['contract-id'].exclusive).toEqual(['draft-id']);
    expect(flags('contract:dispatch')['goal-file'].exclusive).toEqual(['goal']);
    expect(flags('approval:request')['content-file'].exclusive).toEqual(['content']);
    expect(flags('contract:validate').file.exclusive).toEqual(['draft-id', 'agent-id']);
  });
});
