/**
 * The Codex side of `hooks install|uninstall|status`: trusting exactly the hooks install wrote, taking that trust
 * out again, and asking Codex whether it will run them (codex-trust.ts holds the protocol and the config edits).
 */
import { HandoffError } from '../errors.js';
import type { Env } from '../paths.js';
import {
  CodexUnavailable,
  codexConfigPath,
  codexHooksList,
  codexTrust,
  hashesFor,
  withoutTrust,
  withTrust,
  type CodexHook,
} from './codex-trust.js';
import { homeOf } from '../hooks/command.js';
import { diffLabel, lineDiff, readConfigText, writeConfig } from '../hooks/files.js';
import { projectRoot } from '../hooks/targets.js';
import type { HookTrust, Scope, TrustChange, TrustEntry, TrustRequest } from './adapter.js';

/** config.toml's diff, named relative to the home folder (where `git apply` applies it). */
const tomlDiff = (env: Env, path: string, before: string | undefined, after: string | undefined): string =>
  lineDiff(diffLabel(path, homeOf(env), homeOf(env)), before, after);

const listCwds = (scope: Scope, cwd: string): string[] => [scope === 'project' ? projectRoot(cwd) : cwd];

/** Trusts the hooks install wrote, as Codex's own review would; nothing is written when Codex cannot be asked. */
async function trustInstalled(req: TrustRequest): Promise<TrustChange> {
  const path = codexConfigPath(req.env);
  let entries: TrustEntry[];
  try {
    entries = await hashesFor(req.env, req.hooksPath, req.hooksText, req.commands);
  } catch (e) {
    if (!(e instanceof CodexUnavailable)) throw e;
    return { status: 'unavailable', path, hooks: [], reason: e.message };
  }
  if (entries.length !== req.commands.length)
    return {
      status: 'unavailable',
      path,
      hooks: entries,
      reason: `Codex listed ${entries.length} of the ${req.commands.length} gate hooks in ${req.hooksPath}`,
    };
  const before = readConfigText(path).text;
  const after = withTrust(before, req.hooksPath, entries);
  if (req.dryRun)
    return {
      status: 'would_write',
      path,
      hooks: entries,
      ...(after === before ? {} : { diff: tomlDiff(req.env, path, before, after) }),
    };
  if (after !== before) writeConfig(path, after);
  let listed: CodexHook[];
  let problems: string[];
  try {
    ({ hooks: listed, problems } = await codexHooksList(req.env, listCwds(req.scope, req.cwd)));
  } catch (e) {
    if (after !== before) writeConfig(path, before);
    throw trustFailed(path, (e as Error).message);
  }
  const ours = listed.filter((h) => entries.some((e) => e.key === h.key));
  if (problems.length > 0 || ours.some((h) => h.trustStatus !== 'trusted')) {
    if (after !== before) writeConfig(path, before);
    throw trustFailed(
      path,
      problems.length > 0 ? problems.join('; ') : `Codex reports ${ours.map((h) => h.trustStatus).join(', ')}`,
    );
  }
  if (ours.length === entries.length) return { status: 'trusted', path, hooks: entries };
  return { status: 'written', path, hooks: entries, reason: notListedReason(req.env, req.scope, req.cwd) };
}

function trustFailed(path: string, why: string): HandoffError {
  return new HandoffError(
    'HOOK_TRUST_FAILED',
    `Codex did not take the trust written to ${path} (${why}); the file was put back as it was`,
    { path },
    'Run handoff hooks install --harness codex --no-trust and trust the hook in Codex (/hooks), or repair config.toml.',
  );
}

function notListedReason(env: Env, scope: Scope, cwd: string): string {
  if (scope === 'project' && codexTrust(env, projectRoot(cwd)) !== true)
    return 'the project is not trusted by Codex, which then reads none of its hooks: trust it in Codex (its first-run question)';
  return 'Codex does not list the hook here: are its hooks turned off ([features] hooks = false)?';
}

/** --no-trust: nothing written; Codex's review (/hooks) decides. */
const leftToReview = (env: Env): TrustChange => ({
  status: 'left_to_review',
  path: codexConfigPath(env),
  hooks: [],
});

/** Takes out the trust tables install appended for `hooksPath`; the user's own tables stay. */
function untrustInstalled(env: Env, hooksPath: string, dryRun: boolean): TrustChange {
  const path = codexConfigPath(env);
  const before = readConfigText(path).text;
  const after = withoutTrust(before, hooksPath);
  if (after === before) return { status: 'absent', path, hooks: [] };
  if (dryRun) return { status: 'removed', path, hooks: [], diff: tomlDiff(env, path, before, after) };
  writeConfig(path, after);
  return { status: 'removed', path, hooks: [] };
}

/** Whether Codex will run each of the gate's commands in `hooksPath`, as Codex itself says. */
interface CodexRunState {
  will_run: boolean;
  why_not?: string;
  codex_hooks: { key: string; command: string; trust_status: string; enabled: boolean }[];
}

async function codexRunState(
  env: Env,
  cwd: string,
  scope: Scope,
  hooksPath: string,
  commands: string[],
): Promise<CodexRunState> {
  if (scope === 'project' && codexTrust(env, projectRoot(cwd)) !== true)
    return {
      will_run: false,
      why_not: 'the project is not trusted by Codex: it reads none of the project hooks',
      codex_hooks: [],
    };
  let listed: CodexHook[];
  try {
    listed = (await codexHooksList(env, listCwds(scope, cwd))).hooks;
  } catch (e) {
    return { will_run: false, why_not: `cannot ask Codex: ${(e as Error).message}`, codex_hooks: [] };
  }
  const ours = listed.filter(
    (h) => h.sourcePath === hooksPath && h.command !== undefined && commands.includes(h.command),
  );
  const codex_hooks = ours.map((h) => ({
    key: h.key,
    command: h.command!,
    trust_status: h.trustStatus,
    enabled: h.enabled,
  }));
  const why = (h: CodexRunState['codex_hooks'][number]): string | undefined =>
    !h.enabled
      ? `${h.key} is disabled in Codex`
      : h.trust_status === 'trusted' || h.trust_status === 'managed'
        ? undefined
        : `${h.key} is ${h.trust_status} in Codex (review it in Codex's /hooks, or run hooks install again)`;
  const reasons = codex_hooks.map(why).filter((x): x is string => x !== undefined);
  if (ours.length < commands.length)
    reasons.unshift('Codex does not list the gate hooks: are its hooks turned off ([features] hooks = false)?');
  return reasons.length === 0 ? { will_run: true, codex_hooks } : { will_run: false, why_not: reasons[0], codex_hooks };
}

/** Codex's hook trust, as the adapter's `trust` (loaded only by `hooks`). */
export const codexHookTrust: HookTrust = {
  install: trustInstalled,
  leftToReview,
  uninstall: untrustInstalled,
  runState: codexRunState,
  projectTrusted: codexTrust,
};
