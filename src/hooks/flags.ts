/** The flags the three hooks verbs share, checked into typed values (a bad value is USAGE, exit 2). */
import { usage } from '../errors.js';
import type { FlagValues } from '../input/flag-values.js';
import type { Scope } from './command.js';
import { HOOK_HARNESSES, type HookHarness } from './targets.js';

export function harnessFlag(flags: FlagValues, required: boolean): HookHarness | undefined {
  const h = flags.harness;
  if (typeof h !== 'string') {
    if (required) throw usage(`--harness is required (one of ${HOOK_HARNESSES.join(', ')})`);
    return undefined;
  }
  if (!(HOOK_HARNESSES as readonly string[]).includes(h)) throw usage(`--harness ${JSON.stringify(h)} must be one of ${HOOK_HARNESSES.join(', ')}`);
  return h as HookHarness;
}

export function scopeFlag(flags: FlagValues): Scope {
  const s = flags.scope ?? 'project';
  if (s !== 'project' && s !== 'user') throw usage(`--scope ${JSON.stringify(s)} must be project or user`);
  return s;
}
