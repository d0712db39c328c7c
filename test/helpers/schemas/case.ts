/**
 * A result case: one realistic scenario, in its own HANDOFF_HOME, whose last call prints one `--json` object that
 * must match one schema. Besides the match, each case checks what distinguishes it (so a scenario that drifted
 * cannot pass on a simpler shape), and every schema must reject wrong variants of that real output: each required
 * key removed, an unknown key added (closed schemas), a bad status, plus the case's own wrong variants.
 */
import { expect } from 'vitest';
import { tempHome, type RunResult } from '../cli.js';
import { check, OPEN_SCHEMAS, SCHEMAS } from './schemas.js';

type Json = Record<string, any>;

export interface ResultCase {
  verb: string;
  schema: string;
  /** What this scenario produces. */
  name: string;
  exit: number;
  produce: (home: string) => RunResult;
  /** Asserts what makes this case the case it says it is. */
  expect?: (json: Json) => void;
  /** Wrong variants (built from the real output) that the schema must reject. */
  wrong?: Record<string, (json: Json) => unknown>;
}

export const caseTitle = (c: ResultCase): string => `${c.verb} -> ${c.schema}: ${c.name}`;

/** `it.each` rows: [title, case]. */
export const rows = (cases: readonly ResultCase[]): [string, ResultCase][] => cases.map((c) => [caseTitle(c), c]);

const copy = (json: Json): Json => structuredClone(json);

function genericWrongs(schema: string, json: Json): [string, unknown][] {
  const required = SCHEMAS.get(schema)?.required ?? [];
  const out: [string, unknown][] = required.map((key) => {
    const w = copy(json);
    delete w[key];
    return [`without required key ${key}`, w];
  });
  out.push(['a status outside the enum', { ...copy(json), status: 'bogus' }]);
  if (!OPEN_SCHEMAS.has(schema)) out.push(['an unknown key', { ...copy(json), unexpected_key: 1 }]);
  return out;
}

export function runCase(c: ResultCase): void {
  const home = tempHome('handoff-schemas-');
  const r = c.produce(home);
  const json = r.json as Json | undefined;
  expect(json, `exactly one JSON object on stdout:\n${r.stdout}\n${r.stderr}`).toBeTypeOf('object');
  if (json === undefined) return;
  expect(r.code, `${r.stdout}\n${r.stderr}`).toBe(c.exit);
  expect(check(c.schema, json).why, JSON.stringify(json)).toBe('');

  // The status tells the exit's class; the gate fails open with exit 1.
  if (json.status === 'rejected') expect(r.code).toBe(1);
  if (json.status === 'error') expect(c.verb === 'contract gate' || c.verb === 'approval gate' ? [1, 70] : [2, 3, 4, 70]).toContain(r.code);
  // Every refusal or error carrying a code is also an instance of the generic error shape.
  if (json.status !== 'ok' && 'code' in json) expect(check('error', json).why).toBe('');
  c.expect?.(json);

  const wrongs: [string, unknown][] = [
    ...genericWrongs(c.schema, json),
    ...Object.entries(c.wrong ?? {}).map(([label, make]): [string, unknown] => [label, make(copy(json))]),
  ];
  for (const [label, value] of wrongs) {
    expect(check(c.schema, value).ok, `${c.schema} must reject ${label}: ${JSON.stringify(value)}`).toBe(false);
  }
}
