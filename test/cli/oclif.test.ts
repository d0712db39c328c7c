/**
 * The oclif command layer: help pages, parse errors mapped into USAGE, did-you-mean,
 * colour only where it belongs, and examples that actually parse.
 */
import { spawnSync } from 'node:child_process';
import { generateKeyPairSync } from 'node:crypto';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { BIN, REPO, run, tempHome } from '../helpers/cli.js';
import { manifestCommands, verbIds } from '../helpers/commands.js';

const ESC = '\u001b[';
const D = 'a0123456789abcdef.0123456789ab';

describe('help', () => {
  it('handoff help contract set: usage, arguments, flags, description, examples, exit codes', () => {
    const r = run(tempHome(), ['help', 'contract', 'set']);
    expect(r.code).toBe(0);
    expect(r.stderr).toBe('');
    expect(r.stdout).toMatch(/^Set one field of the draft/);
    for (const section of ['USAGE', 'ARGUMENTS', 'FLAGS', 'DESCRIPTION', 'EXAMPLES', 'EXIT CODES'])
      expect(r.stdout).toContain(`\n${section}\n`);
    expect(r.stdout).toContain('$ handoff contract set FIELD VALUE');
    expect(r.stdout).toContain('--draft-id=ID');
    // The same page as --help.
    expect(run(tempHome(), ['contract', 'set', '--help']).stdout).toBe(r.stdout);
  });

  it('handoff help lists every verb, the environment and the exit codes; handoff help contract lists its verbs only', () => {
    const root = run(tempHome(), ['help']);
    expect(root.code).toBe(0);
    for (const id of verbIds()) expect(root.stdout).toContain(`  ${id} `);
    for (const v of ['HANDOFF_HOME', 'HANDOFF_DB', 'HANDOFF_WORKSPACE', 'HANDOFF_DEBUG', 'NO_COLOR'])
      expect(root.stdout).toContain(v);
    expect(root.stdout).toContain('EXIT CODES');
    expect(run(tempHome(), []).stdout).toBe(root.stdout);
    const topic = run(tempHome(), ['help', 'contract']);
    expect(topic.code).toBe(0);
    expect(topic.stdout).toContain('contract finalize');
    expect(topic.stdout).not.toContain('evidence run');
  });

  it('--version prints the name and version', () => {
    const r = run(tempHome(), ['--version']);
    expect(r.code).toBe(0);
    expect(r.stdout).toMatch(/^handoff\/0\.1\.0 \S+ node-v\d+/);
  });

  it.each(verbIds().filter((id) => id !== 'help'))(
    '%s has a description, at least one example, and shows both in --help',
    (id) => {
      const cmd = manifestCommands().find((c) => c.id === id.replace(' ', ':'))!;
      expect(cmd.description?.length ?? 0).toBeGreaterThan(40);
      expect(cmd.examples?.length ?? 0).toBeGreaterThan(0);
      for (const e of cmd.examples!) expect(e.startsWith(`handoff ${id}`)).toBe(true);
      const r = run(tempHome(), [...id.split(' '), '--help']);
      expect(r.code).toBe(0);
      expect(r.stdout).toContain(`$ ${cmd.examples![0]}`);
      expect(r.stdout).toContain(id === 'contract gate' ? 'EXIT CODES (hook protocol)' : 'EXIT CODES\n  0   success');
    },
  );
});

describe('mistakes are USAGE (exit 2, one line) with a suggestion', () => {
  const cases: [string[], RegExp][] = [
    [['contrat', 'finalize'], /unknown command "contrat finalize"\. Did you mean "contract finalize"\?/],
    [['contract', 'finalise'], /unknown command "contract finalise"\. Did you mean "contract finalize"\?/],
    [['evidnce'], /unknown command "evidnce"\. Did you mean "evidence"\?/],
    [['contract', 'set', 'a', 'b', '--drft-id', D], /unknown flag --drft-id\. Did you mean "--draft-id"\?/],
    [['help', 'contract', 'sett'], /unknown command "contract sett"\. Did you mean "contract set"\?/],
  ];
  it.each(cases)('%j', (args, message) => {
    const human = run(tempHome(), args);
    expect(human.code).toBe(2);
    expect(human.stdout).toBe('');
    expect(human.stderr.trimEnd().split('\n')).toHaveLength(1);
    expect(human.stderr).toMatch(message);
    expect(human.stderr).toMatch(/\[USAGE\]\n$/);
    if (args[0] === 'help') return; // help has no --json
    const json = run(tempHome(), [...args, '--json']);
    expect(json.code).toBe(2);
    expect(json.stderr).toBe('');
    expect(json.json).toMatchObject({ status: 'error', code: 'USAGE' });
    expect(json.json.error).toMatch(message);
  });

  it('a name far from every verb gets no suggestion, only the way to help', () => {
    const r = run(tempHome(), ['contract', 'xyzzy']);
    expect(r.code).toBe(2);
    expect(r.stderr).toBe('Error: unknown command "contract xyzzy"; run handoff help [USAGE]\n');
  });

  const parseCases: [string[], RegExp][] = [
    [['contract', 'set', 'work_phase'], /^missing argument VALUE\. Usage: handoff contract set FIELD VALUE/],
    [['contract', 'set', 'a', 'b', 'c'], /^unexpected argument "c"\. Usage: handoff contract set/],
    [['contract', 'set', 'a', 'b', '--draft-id'], /^flag --draft-id needs a value/],
    [['contract', 'set', 'a', 'b', '--draft-id', '--json'], /^flag --draft-id needs a value/],
    [['contract', 'view', '--draft-id', D, '--draft-id', D], /^flag --draft-id is given more than once/],
    [
      ['evidence', 'run', '--draft-id', D, 'touch', 'x'],
      /^unexpected argument "touch"\. The command to run goes after --\. Usage: handoff evidence run/,
    ],
  ];
  it.each(parseCases)("oclif's parse error for %j becomes one USAGE line with the usage", (args, message) => {
    const home = tempHome();
    const r = run(home, [...args, '--json']);
    expect(r.code).toBe(2);
    expect(r.json).toMatchObject({ status: 'error', code: 'USAGE' });
    expect(r.json.error).toMatch(message);
    expect(r.json.error).not.toContain('\n');
    expect(r.json.error).not.toContain('See more help');
  });

  it('the gate turns its own usage errors into exit 1 ("stop not gated"), never the blocking 2', () => {
    const r = run(tempHome(), ['contract', 'gate', '--max-rejections']);
    expect(r.code).toBe(1);
    expect(r.stderr).toMatch(/^handoff contract gate: flag --max-rejections needs a value.*\. Stop not gated\.\n$/);
  });
});

describe('colour (chalk) on a terminal only', () => {
  /** Runs the binary under a pseudo-terminal (util-linux `script`), returning what the terminal showed. */
  function onTty(home: string, args: string[], env: Record<string, string | undefined> = {}): string {
    const quoted = [process.execPath, BIN, ...args].map((a) => `'${a.replaceAll("'", "'\\''")}'`).join(' ');
    const e: NodeJS.ProcessEnv = { ...process.env, HANDOFF_HOME: home, ...env };
    for (const k of ['NO_COLOR', 'FORCE_COLOR', 'HANDOFF_DB', 'HANDOFF_WORKSPACE']) if (!(k in env)) delete e[k];
    for (const [k, v] of Object.entries(env)) if (v === undefined) delete e[k];
    const r = spawnSync('script', ['-qec', quoted, '/dev/null'], { env: e, encoding: 'utf8', cwd: home, input: '' });
    return r.stdout;
  }

  it('codes and Rejected are red, notices yellow, success green, ids cyan; NO_COLOR and --json turn it off', () => {
    const home = tempHome();
    run(home, ['contract', 'init', '--draft-id', D]);
    const rejected = onTty(home, ['contract', 'set', 'agent_status.agent_state', 'COMPLET', '--draft-id', D]);
    expect(rejected).toContain(`${ESC}31m${ESC}1mRejected:`);
    expect(rejected).toContain(`${ESC}31mPLAN_STATUS${ESC}39m [agent_status.agent_state]`);
    const ok = onTty(home, ['contract', 'add', 'evidence_report.files_checked', '{"path":"a.ts"', '--draft-id', D]);
    expect(ok).toContain(`${ESC}33m[NOT JSON]${ESC}39m`);
    expect(ok).toContain(`${ESC}32mOK: draft ${D} updated and valid.`);
    const view = onTty(home, ['contract', 'list', '--agent-id', 'a0123456789abcdef']);
    expect(view).not.toContain(ESC);
    const noColor = onTty(home, ['contract', 'set', 'agent_status.agent_state', 'COMPLET', '--draft-id', D], {
      NO_COLOR: '1',
    });
    expect(noColor).toContain('Rejected:');
    expect(noColor).not.toContain(ESC);
    const json = onTty(home, ['contract', 'set', 'agent_status.agent_state', 'COMPLET', '--draft-id', D, '--json'], {
      FORCE_COLOR: '1',
    });
    expect(json).toContain('"status":"rejected"');
    expect(json).not.toContain(ESC);
  });

  it('a pipe gets no colour; FORCE_COLOR forces it, NO_COLOR wins over FORCE_COLOR', () => {
    const home = tempHome();
    const args = ['contract', 'set', 'work_phase', 'x', '--draft-id', D];
    expect(run(home, args, { env: { NO_COLOR: undefined } }).stderr).not.toContain(ESC);
    expect(run(home, args, { env: { NO_COLOR: undefined, FORCE_COLOR: '1' } }).stderr).toContain(`${ESC}31m`);
    expect(run(home, args, { env: { NO_COLOR: '1', FORCE_COLOR: '1' } }).stderr).not.toContain(ESC);
  });
});

/** Splits an example line the way a POSIX shell would (quotes only; examples use no expansions). */
function shellWords(line: string): string[] {
  const words: string[] = [];
  const re = /"((?:[^"\\]|\\.)*)"|'([^']*)'|(\S+)/g;
  let m: RegExpExecArray | null;
  let current: string | undefined;
  let last = 0;
  while ((m = re.exec(line)) !== null) {
    const part = m[1] !== undefined ? m[1].replace(/\\(.)/g, '$1') : (m[2] ?? m[3]);
    if (current !== undefined && m.index === last) current += part;
    else {
      if (current !== undefined) words.push(current);
      current = part;
    }
    last = re.lastIndex;
  }
  if (current !== undefined) words.push(current);
  return words;
}

describe('every example is a runnable line', () => {
  it('parses: no example is refused as USAGE in a prepared data root', () => {
    const home = tempHome();
    // SHELL is set as a user's login sets it: CI runs without one, and `handoff autocomplete` alone reads it.
    const env = {
      HANDOFF_WORKSPACE: 'payments',
      HANDOFF_SIGNING_KEY: join(home, 'keys', 'handoff.key'),
      SHELL: '/bin/bash',
    };
    expect(run(home, ['contract', 'init', '--draft-id', D], { env }).code).toBe(0);
    expect(run(home, ['brief', 'add', 'payments', '--ac', 'AC-1=x'], { env }).code).toBe(0);
    writeFileSync(join(home, 'envelope.json'), '{}');
    writeFileSync(join(home, 'test-output.log'), 'ok\n');
    writeFileSync(join(home, 'report.json'), '{"report_prose":"from a file"}');
    mkdirSync(join(home, 'work'));
    // attest verify's example reads a public key and an export (an empty one: a verdict, exit 1, not a refusal).
    // attest export's needs a signing key (every example then signs what it writes).
    mkdirSync(join(home, 'keys'));
    const pair = generateKeyPairSync('ed25519');
    writeFileSync(join(home, 'keys', 'handoff.pub'), pair.publicKey.export({ type: 'spki', format: 'pem' }));
    writeFileSync(join(home, 'keys', 'handoff.key'), pair.privateKey.export({ type: 'pkcs8', format: 'pem' }), {
      mode: 0o600,
    });
    writeFileSync(join(home, 'chain.jsonl'), '');
    const failures: string[] = [];
    // `ui` serves until a signal: test/cli/ui.test.ts starts each of its examples and stops it.
    for (const cmd of manifestCommands().filter((c) => c.id !== 'ui')) {
      for (const example of cmd.examples ?? []) {
        const words = shellWords(example);
        expect(words[0]).toBe('handoff');
        const r = run(home, words.slice(1), { env, timeout: 120_000 });
        // The gate's exit 2 is its verdict (block); for every other verb, 2 means the line was refused as written.
        const refused =
          (r.code === 2 && cmd.id !== 'contract:gate') || /\[USAGE\]|"code":"USAGE"/.test(r.stderr + r.stdout);
        if (refused) failures.push(`${example} -> ${r.code} ${r.stderr}${r.stdout}`);
      }
    }
    expect(failures).toEqual([]);
  }, 900_000); // about 90 examples run one after another: a bound for a loaded machine, not a speed claim
});

describe('the design card', () => {
  it('package.json depends on the card packages; src/cli has no argument parser or help renderer of its own', () => {
    const pkg = JSON.parse(readFileSync(join(REPO, 'package.json'), 'utf8'));
    for (const dep of ['@oclif/core', 'zod', 'nanoid', 'chalk', 'json-merge-patch', 'better-sqlite3'])
      expect(pkg.dependencies).toHaveProperty(dep);
    for (const dep of ['ajv', 'vitest']) expect(pkg.devDependencies).toHaveProperty(dep);
    expect(pkg.oclif.commands).toMatchObject({ strategy: 'explicit', identifier: 'COMMANDS' });
    expect(pkg.oclif.topicSeparator).toBe(' ');
    const cliSources = ['base-command', 'main', 'output', 'parse-errors', 'routing', 'help'].map((f) =>
      readFileSync(join(REPO, 'src', 'cli', `${f}.ts`), 'utf8'),
    );
    for (const text of cliSources) {
      expect(text).not.toMatch(/\bparseArgs\b/);
      expect(text).not.toMatch(/from 'node:util'/);
    }
  });
});
