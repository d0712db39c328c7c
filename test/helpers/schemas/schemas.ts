/**
 * The published result schemas (schemas/results/*.schema.json) compiled with ajv 8 under draft 2020-12, strict, the
 * way a harness author would load them: every file added by its `$id` (its own file name), cross-file `$ref`s
 * resolved between them. `defs.schema.json` holds shared sub-shapes only; every other file is one result shape.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
// Named import: under NodeNext the default import of this CommonJS module is its namespace, not the class.
import { Ajv2020, type ValidateFunction } from 'ajv/dist/2020.js';
import { REPO } from '../cli.js';

export const RESULTS_DIR = join(REPO, 'schemas', 'results');
export const SUFFIX = '.schema.json';
/** The shared definitions file: referenced by the others, not a result shape itself. */
export const DEFS = 'defs';
/** The one open schema: a refusal's data fields depend on its code (see error.schema.json's description). */
export const OPEN_SCHEMAS: ReadonlySet<string> = new Set(['error']);

export interface SchemaDoc {
  $schema: string;
  $id: string;
  title?: string;
  description?: string;
  required?: string[];
  $defs?: Record<string, { enum?: unknown[] }>;
}

/** Every schema file of the folder, by name (the file name without `.schema.json`), the shared defs included. */
export const SCHEMAS: ReadonlyMap<string, SchemaDoc> = new Map(
  readdirSync(RESULTS_DIR)
    .filter((f) => f.endsWith(SUFFIX))
    .sort()
    .map((f) => [f.slice(0, -SUFFIX.length), JSON.parse(readFileSync(join(RESULTS_DIR, f), 'utf8')) as SchemaDoc]),
);

/** The result shapes: every schema file but the shared defs. */
export const RESULT_SCHEMAS: readonly string[] = [...SCHEMAS.keys()].filter((n) => n !== DEFS);

const ajv = new Ajv2020({ allErrors: true, strict: true, strictRequired: false, allowUnionTypes: true });
for (const doc of SCHEMAS.values()) ajv.addSchema(doc);
/** The published envelope schema, to check envelopes that outputs carry (view, list --with-envelope). */
const ENVELOPE = 'envelope';
ajv.addSchema(JSON.parse(readFileSync(join(REPO, 'schemas', 'envelope.schema.json'), 'utf8')) as object, ENVELOPE);

export function validatorFor(name: string): ValidateFunction {
  const v = ajv.getSchema(name === ENVELOPE ? ENVELOPE : `${name}${SUFFIX}`);
  if (v === undefined) throw new Error(`no schema file schemas/results/${name}${SUFFIX}`);
  return v;
}

/** Whether `value` matches schema `name` (or `envelope`), with ajv's errors as text for the failure message. */
export function check(name: string, value: unknown): { ok: boolean; why: string } {
  const v = validatorFor(name);
  const ok = v(value);
  return { ok, why: ok ? '' : ajv.errorsText(v.errors, { separator: '\n' }) };
}
