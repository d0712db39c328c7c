/**
 * Merging the gate's hooks into a parsed config and taking them out again, as pure functions on plain JSON: every
 * other key, hook and order is kept; an entry of ours that is already there is updated in place, so a second install
 * changes nothing; uninstall removes only gate hooks and the containers it leaves empty.
 */
import { isGateCommand } from './command.js';
import type { HookSpec } from '../harnesses/adapter.js';
import type { Harness } from '../harnesses/index.js';
import { commandKey, flatLayout, hookEntry } from './targets.js';

type Json = Record<string, unknown>;
const isObj = (v: unknown): v is Json => typeof v === 'object' && v !== null && !Array.isArray(v);

const ours = (harness: Harness, entry: unknown): boolean => isObj(entry) && isGateCommand(entry[commandKey(harness)]);

function hooksOf(config: Json): Json {
  if (!isObj(config.hooks)) config.hooks = {};
  return config.hooks as Json;
}

/** Adds (or updates in place) one gate hook per spec. `config` is a fresh copy the caller owns. */
export function mergeInstall(
  harness: Harness,
  config: Json,
  specs: HookSpec[],
  commandOf: (spec: HookSpec) => string,
): Json {
  if (flatLayout(harness) && config.version === undefined) config.version = 1;
  const hooks = hooksOf(config);
  for (const spec of specs) {
    const entry = hookEntry(harness, commandOf(spec));
    const list = Array.isArray(hooks[spec.event]) ? (hooks[spec.event] as unknown[]) : [];
    hooks[spec.event] = list;
    if (flatLayout(harness)) {
      const at = list.findIndex((e) => ours(harness, e));
      if (at >= 0) list[at] = { ...(list[at] as Json), ...entry };
      else list.push(entry);
      continue;
    }
    const group = list.find((g) => isObj(g) && Array.isArray(g.hooks) && g.hooks.some((h) => ours(harness, h))) as
      Json | undefined;
    if (group !== undefined) {
      const inner = group.hooks as unknown[];
      const at = inner.findIndex((h) => ours(harness, h));
      inner[at] = { ...(inner[at] as Json), ...entry };
      if (spec.matcher !== undefined && spec.keepMatcher !== true) group.matcher = spec.matcher;
    } else list.push(spec.matcher === undefined ? { hooks: [entry] } : { matcher: spec.matcher, hooks: [entry] });
  }
  return config;
}

/** Removes every gate hook of `harness`, and the groups, lists and `hooks` object that only held them. */
export function mergeUninstall(harness: Harness, config: Json): Json {
  if (!isObj(config.hooks)) return config;
  const hooks = config.hooks;
  for (const [event, value] of Object.entries(hooks)) {
    if (!Array.isArray(value)) continue;
    let list: unknown[];
    if (flatLayout(harness)) list = value.filter((e) => !ours(harness, e));
    else {
      list = [];
      for (const g of value) {
        if (!isObj(g) || !Array.isArray(g.hooks) || !g.hooks.some((h) => ours(harness, h))) {
          list.push(g);
          continue;
        }
        const inner = g.hooks.filter((h) => !ours(harness, h));
        if (inner.length > 0) list.push({ ...g, hooks: inner });
      }
    }
    if (list.length === value.length) continue;
    if (list.length > 0) hooks[event] = list;
    else delete hooks[event];
  }
  if (Object.keys(hooks).length === 0) delete config.hooks;
  return config;
}

/** What install would create from nothing, emptied again: a file that is only this is removed by uninstall. */
export function isSkeleton(harness: Harness, config: Json): boolean {
  const keys = Object.keys(config);
  if (keys.length === 0) return true;
  return flatLayout(harness) && keys.length === 1 && config.version === 1;
}

/** The gate commands of `harness` in a config, per event. */
export function installedCommands(harness: Harness, config: Json): { event: string; command: string }[] {
  const out: { event: string; command: string }[] = [];
  if (!isObj(config.hooks)) return out;
  for (const [event, value] of Object.entries(config.hooks)) {
    if (!Array.isArray(value)) continue;
    const entries: unknown[] = flatLayout(harness)
      ? value
      : value.flatMap((g): unknown[] => (isObj(g) && Array.isArray(g.hooks) ? (g.hooks as unknown[]) : []));
    for (const e of entries)
      if (ours(harness, e)) out.push({ event, command: (e as Json)[commandKey(harness)] as string });
  }
  return out;
}
