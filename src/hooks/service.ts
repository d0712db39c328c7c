/**
 * `handoff hooks install|uninstall|status`: wire the stop gate into each harness's config, take it out again, and
 * show what is wired where. Install and uninstall compute the new text first: --dry-run prints the diff, otherwise the
 * file is written only when its bytes change.
 */
import { existsSync, mkdirSync, readFileSync, realpathSync, rmdirSync, unlinkSync } from 'node:fs';
import { dirname, isAbsolute, join, relative } from 'node:path';
import type { Env } from '../paths.js';
import { dataRoot, dbPath, makeDirs, storeUrl } from '../paths.js';
import { binPath, checkStablePath, commandPaths, gateCommand, homeOf, shellPath, type Scope } from './command.js';
import { diffLabel, formatConfig, lineDiff, parseConfig, readConfigText, writeConfig } from './files.js';
import { forgetInstall, rememberedOriginal, rememberInstall } from './install-record.js';
import { installedCommands, isSkeleton, mergeInstall, mergeUninstall } from './merge.js';
import type { InstallOptions } from '../harnesses/adapter.js';
import { adapterOf, HARNESSES, type Harness } from '../harnesses/index.js';
import { configPath, hookSpecs, projectRoot } from './targets.js';

export interface HooksRequest {
  harness: Harness;
  scope: Scope;
  dryRun: boolean;
  env: Env;
  cwd: string;
  /** The running executable's script (bin/run.js), as the caller's io names it. */
  script: string;
}

export interface HooksChange {
  harness: Harness;
  scope: Scope;
  path: string;
  action: 'created' | 'updated' | 'unchanged' | 'removed' | 'absent';
  dry_run: boolean;
  diff?: string;
  commands: string[];
}

const PLUGIN_MARK = 'handoff hooks install --harness opencode';

/** The folders under the project (or home) that uninstall may remove when it leaves them empty. */
function ownDirs(path: string, harness: Harness): string[] {
  const dir = dirname(path);
  return adapterOf(harness).config.ownDirs === 2 ? [dir, dirname(dir)] : [dir];
}

function apply(
  req: HooksRequest,
  path: string,
  before: string | undefined,
  after: string | undefined,
  commands: string[],
  remember: 'install' | 'uninstall',
): HooksChange {
  const action =
    before === after
      ? before === undefined
        ? 'absent'
        : 'unchanged'
      : after === undefined
        ? 'removed'
        : before === undefined
          ? 'created'
          : 'updated';
  const change: HooksChange = { harness: req.harness, scope: req.scope, path, action, dry_run: req.dryRun, commands };
  if (before !== after) {
    if (req.dryRun) change.diff = lineDiff(diffLabel(path, projectRoot(req.cwd), homeOf(req.env)), before, after);
    else {
      writeConfig(path, after, ownDirs(path, req.harness));
      if (remember === 'install' && after !== undefined) rememberInstall(req.env, path, before, after);
    }
  }
  if (remember === 'uninstall' && !req.dryRun) forgetInstall(req.env, path);
  return change;
}

/**
 * The OpenCode plugin the package ships: in a project's, `handoff` through the PATH; in a user's, the paths of node
 * and of the library filled in.
 */
function pluginText(scope: Scope, env: Env, script: string): string {
  if (scope === 'project') {
    const template = readFileSync(
      join(dirname(dirname(binPath(script))), 'plugins', 'opencode', 'handoff-gate.js'),
      'utf8',
    );
    return template.replace(/^const HANDOFF = .*$/m, () => "const HANDOFF = { command: 'handoff' };");
  }
  const bin = binPath(script);
  checkStablePath(bin);
  const pkg = dirname(dirname(bin));
  const template = readFileSync(join(pkg, 'plugins', 'opencode', 'handoff-gate.js'), 'utf8');
  const paths = `const HANDOFF = { node: ${shellPath(process.execPath, scope, env)}, library: ${shellPath(join(pkg, 'dist', 'index.js'), scope, env)} };`;
  return template.replace(/^const HANDOFF = .*$/m, () => paths);
}

/** What install would write: the file, its text before and after, and the gate commands it holds afterwards. */
export interface InstallPlan {
  path: string;
  before: string | undefined;
  after: string;
  commands: string[];
}

export function planInstall(req: HooksRequest, o: InstallOptions): InstallPlan {
  const path = configPath(req.harness, req.scope, req.env, projectRoot(req.cwd));
  const current = readConfigText(path);
  if (adapterOf(req.harness).config.layout === 'plugin') {
    const text = pluginText(req.scope, req.env, req.script);
    return { path, before: current.text, after: text, commands: [text.match(/^const HANDOFF = .*$/m)?.[0] ?? ''] };
  }
  const config = parseConfig(current);
  const specs = hookSpecs(req.harness, o);
  const next = mergeInstall(req.harness, structuredClone(config), specs, (s) =>
    gateCommand(s.args, req.scope, req.env, req.script, s.verb),
  );
  const unchanged = current.text !== undefined && JSON.stringify(next) === JSON.stringify(config);
  const after = unchanged ? current.text! : formatConfig(next, current.text);
  return { path, before: current.text, after, commands: installedCommands(req.harness, next).map((c) => c.command) };
}

export function installHooks(req: HooksRequest, o: InstallOptions): HooksChange {
  const plan = planInstall(req, o);
  const change = apply(req, plan.path, plan.before, plan.after, plan.commands, 'install');
  if (adapterOf(req.harness).config.layout === 'plugin' && !req.dryRun) {
    seedOpencodeDeps(dirname(dirname(plan.path)));
    // OpenCode also installs into its own config folder (which it makes at first start) and, with a plugin to load,
    // waits for that install before the session starts.
    seedOpencodeDeps(opencodeGlobalDir(req.env));
  }
  return change;
}

const opencodeGlobalDir = (env: Env): string =>
  join(
    env.XDG_CONFIG_HOME !== undefined && env.XDG_CONFIG_HOME !== ''
      ? env.XDG_CONFIG_HOME
      : join(homeOf(env), '.config'),
    'opencode',
  );

/**
 * What OpenCode reads before it installs its plugin package into a config folder (`.opencode/`,
 * `~/.config/opencode/`) at start: an existing `node_modules/` and a `package-lock.json` whose root lists every
 * dependency it wants, `@opencode-ai/plugin` among them. Without them OpenCode fetches that package from the npm
 * registry at every start (over a minute lost offline); the gate's plugin imports nothing from it. Written only into a
 * folder that has none of package.json, package-lock.json and node_modules (one the user manages is left to OpenCode),
 * and removed by uninstall while unchanged.
 */
const OPENCODE_LOCK = `${JSON.stringify({ name: 'opencode-config', lockfileVersion: 3, requires: true, packages: { '': { dependencies: { '@opencode-ai/plugin': '*' } } } }, null, 2)}\n`;

function seedOpencodeDeps(dir: string): void {
  makeDirs(dir);
  if (['package.json', 'package-lock.json', 'node_modules'].some((f) => existsSync(join(dir, f)))) return;
  mkdirSync(join(dir, 'node_modules'));
  writeConfig(join(dir, 'package-lock.json'), OPENCODE_LOCK);
}

function unseedOpencodeDeps(dir: string): void {
  const lock = join(dir, 'package-lock.json');
  if (readConfigText(lock).text !== OPENCODE_LOCK) return;
  try {
    rmdirSync(join(dir, 'node_modules')); // only while empty
  } catch {
    return;
  }
  unlinkSync(lock);
}

export function uninstallHooks(req: HooksRequest): HooksChange {
  const path = configPath(req.harness, req.scope, req.env, projectRoot(req.cwd));
  const current = readConfigText(path);
  if (adapterOf(req.harness).config.layout === 'plugin') {
    const ours = current.text !== undefined && current.text.includes(PLUGIN_MARK);
    if (ours && !req.dryRun) unseedOpencodeDeps(dirname(dirname(path)));
    return apply(req, path, current.text, ours ? undefined : current.text, [], 'uninstall');
  }
  if (current.text === undefined) return apply(req, path, undefined, undefined, [], 'uninstall');
  // The file exactly as install left it: its bytes from before install (none: install created it).
  const original = rememberedOriginal(req.env, path, current.text);
  if (original !== undefined) return apply(req, path, current.text, original ?? undefined, [], 'uninstall');
  // Changed since (or installed elsewhere): handoff's entries out, the user's kept.
  const config = parseConfig(current);
  const next = mergeUninstall(req.harness, structuredClone(config));
  const unchanged = JSON.stringify(next) === JSON.stringify(config);
  const after = unchanged ? current.text : isSkeleton(req.harness, next) ? undefined : formatConfig(next, current.text);
  return apply(req, path, current.text, after, [], 'uninstall');
}

export interface HarnessStatus {
  harness: Harness;
  scope: Scope;
  path: string;
  installed: boolean;
  commands: { event: string; command: string; resolves: boolean }[];
  error?: string;
  codex_project_trusted?: boolean | null;
  /** Installed only: whether the harness will run the gate (every command resolves; Codex: and Codex says so). */
  will_run?: boolean;
  why_not?: string;
  codex_hooks?: { key: string; command: string; trust_status: string; enabled: boolean }[];
}

/**
 * Why a project's hook must not run what it names (undefined: it may): the file it resolves to lies inside the
 * workspace, where an agent working there could replace it (node_modules/.bin, a checkout's bin/run.js).
 */
function insideWorkspace(commands: { command: string }[], env: Env, cwd: string): string | undefined {
  const root = projectRoot(cwd);
  for (const c of commands)
    for (const p of commandPaths(c.command, env)) {
      let real = p;
      try {
        real = realpathSync(p);
      } catch {
        // as written
      }
      const rel = relative(root, real);
      if (p !== '' && rel !== '' && !rel.startsWith('..') && !isAbsolute(rel))
        return `the hook runs ${real}, inside the workspace ${root}, which an agent working there could replace: put handoff on the PATH outside the workspace (npm install -g handoff) and run hooks install again`;
    }
  return undefined;
}

/**
 * Fills `will_run` (and `why_not`) for each installed entry: its commands resolve and, for Codex, Codex itself lists
 * them trusted and enabled. True when every installed entry will run.
 */
export async function addRunStates(entries: HarnessStatus[], env: Env, cwd: string): Promise<boolean> {
  let all = true;
  for (const s of entries) {
    if (!s.installed) continue;
    const broken = s.commands.find((c) => !c.resolves);
    const inside = s.scope === 'project' ? insideWorkspace(s.commands, env, cwd) : undefined;
    if (s.error !== undefined || broken !== undefined) {
      s.will_run = false;
      s.why_not =
        s.error ??
        (broken!.command.startsWith('handoff ')
          ? `${broken!.command} does not resolve: handoff is not on the PATH (npm install -g handoff)`
          : `${broken!.command} does not resolve`);
    } else if (inside !== undefined) {
      s.will_run = false;
      s.why_not = inside;
    } else if (adapterOf(s.harness).trust !== undefined) {
      const state = await (
        await adapterOf(s.harness).trust!()
      ).runState(
        env,
        cwd,
        s.scope,
        s.path,
        s.commands.map((c) => c.command),
      );
      Object.assign(s, state);
    } else s.will_run = true;
    if (s.will_run !== true) all = false;
  }
  return all;
}

async function statusOf(harness: Harness, scope: Scope, env: Env, cwd: string): Promise<HarnessStatus | undefined> {
  let path: string;
  try {
    path = configPath(harness, scope, env, projectRoot(cwd));
  } catch {
    return undefined; // this harness has no such scope
  }
  const s: HarnessStatus = { harness, scope, path, installed: false, commands: [] };
  try {
    const c = readConfigText(path);
    if (adapterOf(harness).config.layout === 'plugin') {
      const line = c.text?.includes(PLUGIN_MARK)
        ? c.text.match(/^const HANDOFF = \{ node: (.*), library: (.*) \};$/m)
        : null;
      if (c.text?.includes(PLUGIN_MARK) === true && /^const HANDOFF = \{ command: 'handoff' \};$/m.test(c.text)) {
        const command = 'handoff contract gate --harness opencode';
        s.commands.push({ event: 'session.idle', command, resolves: existsSync(commandPaths(command, env)[0]) });
      } else if (line)
        s.commands.push({
          event: 'session.idle',
          command: `${line[1]} ${line[2]}`,
          resolves: commandPaths(`${line[1]} ${line[2]}`, env).every((p) => existsSync(p)),
        });
    } else {
      for (const e of installedCommands(harness, parseConfig(c)))
        s.commands.push({ ...e, resolves: commandPaths(e.command, env).every((p) => existsSync(p)) });
    }
  } catch (e) {
    s.error = (e as Error).message;
  }
  s.installed = s.commands.length > 0;
  // A harness that trusts hooks reads a project's only once it trusts the project (the field keeps Codex's name).
  const trust = adapterOf(harness).trust;
  if (trust !== undefined && scope === 'project')
    s.codex_project_trusted = (await trust()).projectTrusted(env, projectRoot(cwd));
  return s;
}

export async function hooksStatus(env: Env, cwd: string, only?: Harness): Promise<Record<string, unknown>> {
  const harnesses = only === undefined ? [...HARNESSES] : [only];
  const entries: HarnessStatus[] = [];
  for (const h of harnesses)
    for (const scope of ['project', 'user'] as const) {
      const s = await statusOf(h, scope, env, cwd);
      if (s !== undefined) entries.push(s);
    }
  const url = storeUrl(env);
  const store =
    url === undefined
      ? { kind: 'sqlite', path: dbPath(env, cwd), exists: existsSync(dbPath(env, cwd)) }
      : { kind: 'postgres', url: url.replace(/\/\/[^@/]*@/, '//***@') };
  const root = dataRoot(env, cwd);
  return {
    status: 'ok',
    project: projectRoot(cwd),
    home: homeOf(env),
    data_root: root,
    data_root_exists: existsSync(root),
    store,
    hooks: entries,
  };
}
