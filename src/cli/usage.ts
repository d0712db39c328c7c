/**
 * A verb's usage line, generated from its oclif flags and args (never written by hand): what help shows after `$ handoff`
 * and what ends every USAGE message. Required flags bare, optional ones in brackets, a repeatable one with `...`, a
 * group of which exactly one is needed in parentheses (`oneOf`), flags that exclude each other joined with `|`.
 */
interface FlagLike {
  type?: string;
  hidden?: boolean;
  required?: boolean;
  multiple?: boolean;
  helpValue?: string | string[];
  options?: readonly string[];
  exclusive?: string[];
}

interface ArgLike {
  required?: boolean;
  hidden?: boolean;
}

export interface UsageSource {
  flags?: Record<string, FlagLike>;
  args?: Record<string, ArgLike>;
  /** Groups of flags of which exactly one must be given, e.g. `[['goal', 'goal-file']]`. */
  oneOf?: readonly (readonly string[])[];
  /** Takes a command after `--`. */
  passthrough?: boolean;
}

const one = (name: string, f: FlagLike): string => {
  if (f.type === 'boolean') return `--${name}`;
  const value = Array.isArray(f.helpValue) ? f.helpValue.join(' ') : (f.helpValue ?? f.options?.join('|') ?? 'VALUE');
  return `--${name} ${value}`;
};

/** The usage line after `handoff VERB` (oclif's help and the USAGE message add those): `[--agent-id ID] ... [--json]`. */
export function generatedUsage(cmd: UsageSource): string {
  const flags = Object.entries(cmd.flags ?? {}).filter(([, f]) => !f.hidden);
  const groups: string[][] = (cmd.oneOf ?? []).map((g) => [...g]);
  // Flags that exclude each other form one group (in declaration order), unless a oneOf group holds them already.
  for (const [name, f] of flags) {
    if (f.exclusive === undefined || groups.some((g) => g.includes(name))) continue;
    const members = flags.map(([n]) => n).filter((n) => n === name || f.exclusive!.includes(n));
    const existing = groups.find((g) => g.some((n) => members.includes(n)));
    if (existing === undefined) {
      groups.push(members.sort((a, b) => order(flags, a) - order(flags, b)));
    } else {
      for (const n of members) if (!existing.includes(n)) existing.push(n);
    }
  }
  const required = new Set((cmd.oneOf ?? []).map((g) => g[0]));
  const parts: string[] = [];
  for (const [name, a] of Object.entries(cmd.args ?? {})) if (!a.hidden) parts.push(a.required ? name : `[${name}]`);
  const done = new Set<string>();
  for (const [name, f] of flags) {
    if (done.has(name)) continue;
    const group = groups.find((g) => g.includes(name));
    if (group) {
      const members = group.filter((n) => cmd.flags?.[n] !== undefined && !cmd.flags[n].hidden);
      for (const n of members) done.add(n);
      const text = members.map((n) => one(n, cmd.flags![n])).join(' | ');
      parts.push(required.has(group[0]) ? `(${text})` : `[${text}]`);
      continue;
    }
    done.add(name);
    const text = one(name, f);
    parts.push(f.required ? `${text}${f.multiple ? '...' : ''}` : `[${text}]${f.multiple ? '...' : ''}`);
  }
  if (cmd.passthrough) parts.push('-- CMD [ARG ...]');
  return parts.join(' ');
}

const order = (flags: [string, FlagLike][], name: string): number => flags.findIndex(([n]) => n === name);
