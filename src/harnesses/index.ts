/**
 * The registry: every harness the project serves, each by its adapter. This is the one list of harnesses; the gate,
 * `hooks`, the commands' flags, completion, the schemas (checked by a test) and the generated docs read it.
 */
import type { HarnessAdapter } from './adapter.js';
import { claude } from './claude.js';
import { codex } from './codex.js';
import { copilot } from './copilot.js';
import { cursor } from './cursor.js';
import { gemini } from './gemini.js';
import { opencode } from './opencode.js';
import { qwen } from './qwen.js';

const ADAPTERS = { claude, codex, gemini, copilot, cursor, opencode, qwen } satisfies Record<string, HarnessAdapter>;

export type Harness = keyof typeof ADAPTERS;

/** Every harness, in the registry's order. */
export const HARNESSES = Object.keys(ADAPTERS) as readonly Harness[] as readonly [Harness, ...Harness[]];

export const adapterOf = (h: Harness): HarnessAdapter => ADAPTERS[h];

/** The harnesses with a pre-tool hook the approval gate answers. */
export const PRE_TOOL_HARNESSES = HARNESSES.filter((h) => ADAPTERS[h].preTool !== undefined);

/** Which harness wrote this input, by the adapters' recognizers in rank order; undefined when no shape fits. */
export function recognize(v: Record<string, unknown>, lane: 'stop' | 'preTool'): Harness | undefined {
  let best: { h: Harness; rank: number } | undefined;
  for (const h of HARNESSES) {
    const r = lane === 'stop' ? ADAPTERS[h].recognize : ADAPTERS[h].preTool?.recognize;
    if (r !== undefined && (best === undefined || r.rank < best.rank) && r.test(v)) best = { h, rank: r.rank };
  }
  return best?.h;
}

/** "a|b|c": a flag's help value. */
export const harnessChoices = (list: readonly string[]): string => list.join('|');
