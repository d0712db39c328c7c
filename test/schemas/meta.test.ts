/**
 * The schemas, the verbs and the real outputs kept in step: every verb has its result schemas, every schema file is
 * produced by at least one real output (the case tables, each validated in results-*.test.ts), the code enum is the
 * code registry, docs/schemas.md documents exactly the verb table, and the folder is published.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { ALL_CODES } from '../../src/codes/index.js';
import { REPO } from '../helpers/cli.js';
import { ALL_CASES } from '../helpers/schemas/all-cases.js';
import { check, DEFS, RESULT_SCHEMAS, SCHEMAS, SUFFIX, validatorFor } from '../helpers/schemas/schemas.js';
import { VERB_SCHEMAS } from '../helpers/schemas/verb-schemas.js';
import { publishedVerbs } from '../helpers/schemas/verbs.js';

const sorted = (xs: Iterable<string>): string[] => [...new Set(xs)].sort();
const pairs = (entries: Iterable<[string, string]>): string[] => sorted([...entries].map(([verb, schema]) => `${verb} -> ${schema}`));

describe('verbs and schemas', () => {
  it('every verb has an entry in the verb table, and the table names no other verb', () => {
    expect(sorted(Object.keys(VERB_SCHEMAS))).toEqual(publishedVerbs());
    expect(publishedVerbs().length).toBeGreaterThanOrEqual(26);
  });

  it('every verb can print the refusal/error shape and at least one shape of its own', () => {
    for (const [verb, schemas] of Object.entries(VERB_SCHEMAS)) {
      expect(schemas, verb).toContain('error');
      expect(schemas.length, verb).toBeGreaterThan(1);
    }
  });

  it('the table names exactly the result schema files', () => {
    expect(sorted(Object.values(VERB_SCHEMAS).flat())).toEqual(sorted(RESULT_SCHEMAS));
  });

  it('every (verb, schema) pair of the table is produced by a real output, and every case is declared in the table', () => {
    const declared = pairs(Object.entries(VERB_SCHEMAS).flatMap(([verb, schemas]) => schemas.map((s): [string, string] => [verb, s])));
    expect(pairs(ALL_CASES.map((c): [string, string] => [c.verb, c.schema]))).toEqual(declared);
  });

  it('every case asserts what makes it that case, beyond matching its schema', () => {
    expect(ALL_CASES.filter((c) => c.expect === undefined).map((c) => `${c.verb} -> ${c.schema}: ${c.name}`)).toEqual([]);
  });

  it('case titles are unique', () => {
    const titles = ALL_CASES.map((c) => `${c.verb} -> ${c.schema}: ${c.name}`);
    expect(titles.length).toBe(new Set(titles).size);
  });
});

describe('the schema files', () => {
  it.each([...SCHEMAS.keys()])('%s: draft 2020-12, $id = its file name, a title and a description', (name) => {
    const doc = SCHEMAS.get(name)!;
    expect(doc.$schema).toBe('https://json-schema.org/draft/2020-12/schema');
    expect(doc.$id).toBe(`${name}${SUFFIX}`);
    expect(doc.title?.trim()).toBeTruthy();
    expect(doc.description?.trim()).toBeTruthy();
  });

  it.each(RESULT_SCHEMAS)('%s compiles under strict ajv and rejects an empty object and a bare status', (name) => {
    expect(validatorFor(name)).toBeTypeOf('function');
    expect(check(name, {}).ok).toBe(false);
    for (const status of ['ok', 'rejected', 'error']) expect(check(name, { status }).ok).toBe(false);
    expect(SCHEMAS.get(name)!.required).toContain('status');
  });

  it('the code enum is exactly the code registry (a new code is a schema change)', () => {
    const enumCodes = SCHEMAS.get(DEFS)!.$defs!.code.enum as string[];
    expect(enumCodes, 'update schemas/results/defs.schema.json $defs.code.enum').toEqual(sorted(ALL_CODES.map((c) => c.code)));
  });

  it('package.json publishes the schemas folder', () => {
    const pkg = JSON.parse(readFileSync(join(REPO, 'package.json'), 'utf8')) as { files: string[] };
    expect(pkg.files).toContain('schemas');
  });
});

describe('docs/schemas.md', () => {
  const doc = readFileSync(join(REPO, 'docs', 'schemas.md'), 'utf8');
  /** Rows of its table: | [`name.schema.json`](../schemas/results/name.schema.json) | `verb`, `verb` | when | */
  const rows = [...doc.matchAll(/^\| \[`([a-z0-9-]+)\.schema\.json`\]\(\.\.\/schemas\/results\/\1\.schema\.json\) \| ([^|]*) \|/gm)];

  it('has one row per schema file, listing exactly the verbs of the table', () => {
    const documented = Object.fromEntries(rows.map((m) => [m[1], sorted([...m[2].matchAll(/`([a-z]+ [a-z]+)`/g)].map((v) => v[1]))]));
    const expected = Object.fromEntries(
      RESULT_SCHEMAS.map((s) => [s, sorted(Object.entries(VERB_SCHEMAS).filter(([, list]) => list.includes(s)).map(([verb]) => verb))]),
    );
    expect(rows.length).toBe(RESULT_SCHEMAS.length);
    expect(documented).toEqual(expected);
  });

  it('names the shared definitions file and is linked from the README', () => {
    expect(doc).toContain(`${DEFS}${SUFFIX}`);
    expect(readFileSync(join(REPO, 'README.md'), 'utf8')).toContain('(docs/schemas.md)');
  });
});
