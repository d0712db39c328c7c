/**
 * The harness list is written once, in the adapters' registry: the schemas' harness lists (defs.schema.json, written
 * from the registry by `npm run docs:errors`), every `--harness` flag's options and completion's values are checked
 * against it here, so a harness added to the registry and forgotten anywhere else fails this file.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { adapterOf, HARNESSES, PRE_TOOL_HARNESSES } from '../../src/harnesses/index.js';
import ApprovalGate from '../../src/commands/approval/gate.js';
import ContractGate from '../../src/commands/contract/gate.js';
import HooksInstall from '../../src/commands/hooks/install.js';
import HooksStatus from '../../src/commands/hooks/status.js';
import HooksUninstall from '../../src/commands/hooks/uninstall.js';
import { KNOWN_VALUES } from '../../src/completion/known-values.js';

type Json = Record<string, unknown>;
const schema = (name: string): Json => JSON.parse(readFileSync(`schemas/results/${name}.schema.json`, 'utf8')) as Json;

/** Every `enum` in a schema that holds at least one harness name, with its JSON path. */
function harnessEnums(node: unknown, path = '#'): { path: string; values: string[] }[] {
  if (Array.isArray(node)) return node.flatMap((v, i) => harnessEnums(v, `${path}/${i}`));
  if (typeof node !== 'object' || node === null) return [];
  const out: { path: string; values: string[] }[] = [];
  for (const [k, v] of Object.entries(node as Json)) {
    if (k === 'enum' && Array.isArray(v) && v.some((x) => (HARNESSES as readonly unknown[]).includes(x)))
      out.push({ path, values: v as string[] });
    else out.push(...harnessEnums(v, `${path}/${k}`));
  }
  return out;
}

/** The harnesses that block on exit 2 (the reason on stderr); the others answer JSON on exit 0. */
const exitTwo = HARNESSES.filter((h) => adapterOf(h).answer(true, 'r', undefined).exit === 2);

describe('the harness registry is the one list', () => {
  it('defs.schema.json holds the harness lists, equal to the registry and its subsets', () => {
    const defs = schema('defs').$defs as Record<string, { enum?: string[] }>;
    const jsonAnswer = HARNESSES.filter((h) => !exitTwo.includes(h));
    expect(defs.harness?.enum).toEqual([...HARNESSES]);
    expect(defs.preToolHarness?.enum).toEqual([...PRE_TOOL_HARNESSES]);
    expect(defs.exitTwoHarness?.enum).toEqual(exitTwo);
    expect(defs.jsonAnswerHarness?.enum).toEqual(jsonAnswer);
    expect(PRE_TOOL_HARNESSES).not.toContain('opencode');
    // Only those four: any other enum naming a harness would be a second list.
    expect(harnessEnums(schema('defs')).map((e) => e.path)).toEqual([
      '#/$defs/harness',
      '#/$defs/preToolHarness',
      '#/$defs/exitTwoHarness',
      '#/$defs/jsonAnswerHarness',
    ]);
  });

  it('every result schema names harnesses only through those lists', () => {
    const refs = (node: unknown): string[] =>
      Array.isArray(node)
        ? node.flatMap(refs)
        : typeof node === 'object' && node !== null
          ? Object.entries(node as Json).flatMap(([k, v]) =>
              k === '$ref' && typeof v === 'string' && /Harness$|\/harness$/.test(v) ? [v] : refs(v),
            )
          : [];
    for (const file of readdirSync('schemas/results')) {
      if (!file.endsWith('.schema.json') || file === 'defs.schema.json') continue;
      expect(harnessEnums(schema(file.replace('.schema.json', ''))), file).toEqual([]);
    }
    for (const name of ['hooks-change', 'hooks-status', 'hooks-test', 'contract-gate'])
      expect(refs(schema(name)), name).toContain('defs.schema.json#/$defs/harness');
    expect(refs(schema('contract-gate'))).toEqual(
      expect.arrayContaining(['defs.schema.json#/$defs/exitTwoHarness', 'defs.schema.json#/$defs/jsonAnswerHarness']),
    );
    expect(refs(schema('approval-gate'))).toEqual(['defs.schema.json#/$defs/preToolHarness']);
  });

  it("every --harness flag's options and completion's values are the registry's", () => {
    const options = (c: { flags: Json }): unknown => (c.flags.harness as { options?: string[] }).options;
    for (const c of [HooksInstall, HooksUninstall, HooksStatus]) expect(options(c)).toEqual([...HARNESSES]);
    expect(options(ContractGate)).toEqual(['auto', ...HARNESSES]);
    expect(options(ApprovalGate)).toEqual(['auto', ...PRE_TOOL_HARNESSES]);
    for (const verb of ['install', 'uninstall', 'status'])
      expect(KNOWN_VALUES[`hooks:${verb} --harness`]).toEqual([...HARNESSES]);
    expect(KNOWN_VALUES['contract:gate --harness']).toEqual(['auto', ...HARNESSES]);
  });

  it("each flag's help value lists the registry", () => {
    const help = (c: { flags: Json }): unknown => (c.flags.harness as { helpValue?: string }).helpValue;
    expect(help(HooksInstall)).toBe(HARNESSES.join('|'));
    expect(help(ContractGate)).toBe(['auto', ...HARNESSES].join('|'));
    expect(help(ApprovalGate)).toBe(['auto', ...PRE_TOOL_HARNESSES].join('|'));
  });
});
