/**
 * `handoff autocomplete bash|zsh|fish`: each script is run in its own shell and asked for completions, as a TAB
 * would (bash: COMP_WORDS and the completion function; zsh: the function with the completion system's compadd
 * stood in for, and a real interactive zsh on a pseudo-terminal; fish: `complete -C`). zsh and fish come from the
 * machine, else from the Debian archive (scripts/shells.mjs).
 */
import { spawnSync } from 'node:child_process';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { beforeAll, describe, expect, it } from 'vitest';
import { KNOWN_VALUES } from '../../src/completion/known-values.js';
import { REPO, run, tempHome } from '../helpers/cli.js';
import { manifestCommands } from '../helpers/commands.js';

type ShellName = 'bash' | 'zsh' | 'fish';
interface Shell {
  command: string;
  env: Record<string, string>;
  prelude: string;
}
const { shells } = (await import(pathToFileURL(join(REPO, 'scripts', 'shells.mjs')).href)) as {
  shells: () => Record<ShellName, Shell>;
};
const DRIVERS = join(REPO, 'test', 'fixtures', 'completion');
const SHELLS: ShellName[] = ['bash', 'zsh', 'fish'];

interface Flag {
  name: string;
  type: 'boolean' | 'option';
  options?: string[];
  helpValue?: string;
}
/** The manifest's commands (the flags with the fields completion reads: oclif options, placeholder). */
const commands: { id: string; flags: Record<string, Flag> }[] = manifestCommands();
const sorted = (list: Iterable<string>): string[] => [...list].sort();
const topicsOf = sorted(new Set(commands.filter((c) => c.id.includes(':')).map((c) => c.id.split(':')[0])));
/** What the first word may be: every topic and every verb without one. */
const FIRST = sorted([...topicsOf, ...commands.filter((c) => !c.id.includes(':')).map((c) => c.id)]);
const verbsOf = (topic: string): string[] =>
  sorted(commands.filter((c) => c.id.startsWith(`${topic}:`)).map((c) => c.id.split(':')[1]));
/** The fixed values of a flag: its oclif options, else the completion's own list. */
const valuesOf = (id: string, flag: Flag): string[] | undefined =>
  flag.options ?? KNOWN_VALUES[`${id} --${flag.name}`]?.slice();
const ENUM_FLAGS = commands.flatMap((c) =>
  Object.values(c.flags)
    .filter((f) => valuesOf(c.id, f) !== undefined)
    .map((f) => ({ id: c.id, words: c.id.split(':'), flag: `--${f.name}`, values: sorted(valuesOf(c.id, f)!) })),
);

let sh: Record<ShellName, Shell>;
const scripts = {} as Record<ShellName, string>;
let work: string;

beforeAll(() => {
  sh = shells();
  work = tempHome('handoff-completion-');
  mkdirSync(join(work, 'home'));
  mkdirSync(join(work, 'files'));
  writeFileSync(join(work, 'files', 'report.json'), '{}');
  mkdirSync(join(work, 'files', 'keys'));
  for (const shell of SHELLS) {
    const r = run(work, ['autocomplete', shell]);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stderr).toBe('');
    scripts[shell] = join(work, `handoff.${shell}`);
    writeFileSync(scripts[shell], r.stdout);
  }
}, 600_000); // the first run on a machine without zsh or fish downloads them: a bound for a slow mirror, not a speed claim

/** Runs `shell` on `args` in the scratch folder `files`, with its own HOME, and returns stdout (exit 0 expected). */
function runShell(shell: ShellName, args: string[], extraEnv: Record<string, string> = {}): string {
  const s = sh[shell];
  const home = join(work, 'home');
  const env = {
    PATH: process.env.PATH ?? '/usr/bin:/bin',
    HOME: home,
    XDG_CONFIG_HOME: join(home, '.config'),
    XDG_DATA_HOME: join(home, '.local', 'share'),
    LANG: 'C.UTF-8',
    ...s.env,
    HZ_PRELUDE: s.prelude,
    HZ_ZSH: s.command,
    ...extraEnv,
  };
  const r = spawnSync(s.command, args, { cwd: join(work, 'files'), env, encoding: 'utf8', timeout: 300_000 });
  expect(r.status, `${shell}: ${r.stderr}`).toBe(0);
  return r.stdout;
}

/**
 * What `shell` offers for each command line (its words, the last one under the cursor), in order; the first entry
 * is the driver's own first line (how bash and zsh registered the function; none for fish).
 */
function complete(shell: ShellName, lines: string[][]): { registered: string; offers: string[][] } {
  const cases = join(work, `cases-${shell}-${Math.random().toString(36).slice(2)}.txt`);
  const text = shell === 'fish' ? lines.map((w) => w.join(' ')) : lines.map((w) => `${w.join('\x1f')}\x1f`);
  writeFileSync(cases, `${text.join('\n')}\n`);
  const flags = shell === 'bash' ? ['--norc', '--noprofile'] : shell === 'zsh' ? ['-f'] : ['--no-config'];
  const driver = join(DRIVERS, { bash: 'bash-driver.sh', zsh: 'zsh-driver.zsh', fish: 'fish-driver.fish' }[shell]);
  const out = runShell(shell, [...flags, driver, scripts[shell], cases]).split('\n');
  const registered = shell === 'fish' ? '' : out.shift()!;
  const offers = out.slice(0, lines.length).map((l) => (l === '' ? [] : sorted(l.split('\x1f'))));
  expect(offers).toHaveLength(lines.length);
  return { registered, offers };
}

describe('handoff autocomplete: the verb', () => {
  it.each([['tcsh'], ['BASH'], []])(
    'a shell other than bash, zsh or fish is USAGE, exit 2, and prints no script: %j',
    (...args) => {
      const r = run(tempHome(), ['autocomplete', ...args], { env: { SHELL: '/bin/tcsh' } });
      expect(r.code).toBe(2);
      expect(r.stdout).toBe('');
      expect(r.stderr).toMatch(/\[USAGE\]\n$/);
    },
  );

  it.each(SHELLS)('without a shell argument, $SHELL naming %s: how to install, exit 0, no script', (shell) => {
    const r = run(tempHome(), ['autocomplete'], { env: { SHELL: `/usr/local/bin/${shell}` } });
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toContain(`Your shell is ${shell}`);
    expect(r.stdout).toContain(`handoff autocomplete ${shell}`);
    expect(r.stdout).not.toBe(readFileSync(scripts[shell], 'utf8'));
  });

  it('without a shell argument and without $SHELL: USAGE naming the shells', () => {
    const r = run(tempHome(), ['autocomplete'], { env: { SHELL: undefined } });
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/\$SHELL is not set.*bash, zsh or fish/);
  });

  it.each(SHELLS)('%s: the script is written as is, never coloured, even with FORCE_COLOR', (shell) => {
    const r = run(tempHome(), ['autocomplete', shell], { env: { FORCE_COLOR: '3' } });
    expect(r.code).toBe(0);
    expect(r.stdout).toBe(readFileSync(scripts[shell], 'utf8'));
    expect(r.stdout).not.toContain('\u001b');
  });

  it("every fixed-value list of the completion names a real option flag, and agrees with the flag's own options", () => {
    for (const [key, values] of Object.entries(KNOWN_VALUES)) {
      const [id, flag] = key.split(' ');
      const command = commands.find((c) => c.id === id);
      const f: Flag | undefined = command?.flags[flag.replace(/^--/, '')];
      expect(f?.type, key).toBe('option');
      if (f?.options !== undefined) expect(sorted(values), key).toEqual(sorted(f.options));
      // A placeholder that spells the values out (block|allow) names no value the list lacks.
      for (const word of f?.helpValue?.includes('|') === true ? f.helpValue.split('|') : [])
        expect(values, key).toContain(word);
    }
  });
});

describe.each(SHELLS)('the %s script, run in its shell', (shell) => {
  it("registers itself for handoff; offers every topic and top-level verb first, then each topic's verbs", () => {
    const lines = [
      ['handoff', ''],
      ...topicsOf.map((t) => ['handoff', t, '']),
      ['handoff', 'contract', 'li'],
      ['handoff', 'nosuch', ''],
    ];
    const { registered, offers: got } = complete(shell, lines);
    if (shell === 'bash') expect(registered).toBe('complete -F _handoff handoff');
    if (shell === 'zsh') expect(registered).toBe('compdef _handoff handoff');
    expect(got[0]).toEqual(FIRST);
    topicsOf.forEach((t, i) => expect(got[i + 1], t).toEqual(verbsOf(t)));
    expect(got.at(-2)).toEqual(['list']);
    expect(got.at(-1)).toEqual([]);
  });

  it("offers each verb's flags, --help included", () => {
    const { offers: got } = complete(
      shell,
      commands.map((c) => ['handoff', ...c.id.split(':'), '--']),
    );
    commands.forEach((c, i) =>
      expect(got[i], c.id).toEqual(sorted([...Object.keys(c.flags).map((f) => `--${f}`), '--help'])),
    );
  });

  it('offers the fixed values of --state, --harness, --decision, --on-missing and every other such flag', () => {
    expect(ENUM_FLAGS.map((e) => `${e.id} ${e.flag}`)).toEqual(
      expect.arrayContaining([
        'contract:list --state',
        'contract:gate --harness',
        'hooks:install --harness',
        'approval:decide --decision',
        'contract:gate --on-missing',
      ]),
    );
    const { offers: got } = complete(
      shell,
      ENUM_FLAGS.map((e) => ['handoff', ...e.words, e.flag, '']),
    );
    ENUM_FLAGS.forEach((e, i) => expect(got[i], `${e.id} ${e.flag}`).toEqual(e.values));
    expect(got[ENUM_FLAGS.findIndex((e) => e.id === 'contract:list')]).toContain('NEEDS_VERIFICATION');
  });

  it("a value typed in part, a value after `=`, flag values skipped, arguments with fixed values, help's words", () => {
    // bash splits `--state=CO` at `=` into three words; zsh and fish keep one (zsh moves `--state=` to IPREFIX).
    const eq = shell === 'bash' ? ['--state', '=', 'CO'] : ['--state=CO'];
    const lines = [
      ['handoff', 'contract', 'list', '--state', 'NEEDS_'],
      ['handoff', 'contract', 'list', ...eq],
      ['handoff', 'contract', 'list', '--limit', '5', '--state', 'D'],
      ['handoff', 'contract', 'gate', '--on-missing', 'allow', '--harness', 'c'],
      ['handoff', 'autocomplete', ''],
      ['handoff', 'help', ''],
      ['handoff', 'help', 'contract', 'fi'],
      ['handoff', 'contract', 'set', ''],
      ['handoff', 'evidence', 'run', '--', 'l'],
    ];
    const got = complete(shell, lines).offers;
    expect(got[0]).toEqual(['NEEDS_INPUT', 'NEEDS_VERIFICATION']);
    expect(got[1]).toEqual([shell === 'fish' ? '--state=COMPLETE' : 'COMPLETE']);
    expect(got[2]).toEqual(['DISPATCHED']);
    expect(got[3]).toEqual(['claude', 'codex', 'copilot', 'cursor']);
    expect(got[4]).toEqual(['bash', 'fish', 'zsh']);
    expect(got[5]).toEqual(FIRST);
    expect(got[6]).toEqual(['fill', 'finalize']);
    expect(got[7]).toEqual([]);
    expect(got[8]).toEqual([]);
  });

  it('a file flag completes file names, a folder flag folders', () => {
    const got = complete(shell, [
      ['handoff', 'contract', 'validate', '--file', 'rep'],
      ['handoff', 'key', 'generate', '--out', 'k'],
    ]).offers;
    // zsh hands paths to the completion system's _files (stood in for here; the pseudo-terminal test runs it).
    expect(got[0]).toEqual([shell === 'zsh' ? '<files>' : 'report.json']);
    expect(got[1]).toEqual([shell === 'zsh' ? '<dirs>' : shell === 'fish' ? 'keys/' : 'keys']);
  });
});

describe('zsh: a real interactive shell with the completion system, the script installed in $fpath', () => {
  it('a TAB completes verbs, flags, values after `=` and paths', () => {
    const fdir = join(work, 'zfunc');
    mkdirSync(fdir, { recursive: true });
    writeFileSync(join(fdir, '_handoff'), readFileSync(scripts.zsh));
    const dir = tempHome('handoff-zpty-');
    const lines = [
      'handoff contract li',
      'handoff contract list --state=DIS',
      'handoff hooks install --harness cl',
      'handoff autocomplete f',
      'handoff contract validate --file rep',
      'handoff contract gate --on-m',
    ];
    runShell('zsh', ['-f', join(DRIVERS, 'zsh-zpty.zsh'), dir, fdir, ...lines]);
    expect(readFileSync(join(dir, 'out'), 'utf8').split('\n')).toEqual([
      'READY',
      'handoff contract list ',
      'handoff contract list --state=DISPATCHED ',
      'handoff hooks install --harness claude ',
      'handoff autocomplete fish ',
      'handoff contract validate --file report.json ',
      'handoff contract gate --on-missing ',
      '',
    ]);
  });
});
