/**
 * The envelope's zod declaration (src/envelope/schema.ts) is the one place a key or a type is written: the vocabulary
 * and FIELD_TYPE read it, schemas/envelope.schema.json is generated from it and kept in step, and zod's own reading
 * of the declaration, the generated JSON Schema and the validator agree on what is structurally valid.
 */
import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { Ajv2020 } from 'ajv/dist/2020.js';
import fc from 'fast-check';
import { describe, expect, expectTypeOf, it } from 'vitest';
import * as z from 'zod/mini';
import { envelopeJsonSchema, renderEnvelopeSchema } from '../../src/envelope/json-schema.js';
import {
  agentRootShape,
  agentStatusShape,
  declaredType,
  envelopeSchema,
  evidenceReportShape,
  jsonSchemaMeta,
  systemRootShape,
  type Envelope,
} from '../../src/envelope/schema.js';
import {
  ACCEPTED_KEYS,
  AGENT_STATUS_KEYS,
  AGENT_WRITABLE_ROOT_KEYS,
  EVIDENCE_LISTS_UPPER,
  EVIDENCE_REPORT_KEYS,
  HOMES,
  SUGGESTED_KEYS,
  SYSTEM_ROOT_KEYS,
  TYPED_FIELDS,
} from '../../src/envelope/vocabulary.js';
import { validateEnvelope } from '../../src/validator/index.js';
import { mutated } from '../helpers/validator-arbitraries.js';
import { loadValidatorCases, repoRoot } from '../helpers/validator-corpus.js';

const ajv = new Ajv2020({ allErrors: true, strict: true, strictRequired: false, allowUnionTypes: true });
const published = ajv.compile(envelopeJsonSchema());
// What zod prints before json-schema.ts tidies it; a second Ajv instance, since both carry the same $defs names.
const raw = new Ajv2020({ strict: false }).compile(
  z.toJSONSchema(envelopeSchema, { metadata: jsonSchemaMeta, target: 'draft-2020-12' }),
);
const corpus = loadValidatorCases().map((c) => c.envelope);

describe('schemas/envelope.schema.json', () => {
  it('is exactly what the declaration generates (npm run build writes it)', () => {
    const committed = readFileSync(resolve(repoRoot, 'schemas/envelope.schema.json'), 'utf8');
    expect(committed).toBe(renderEnvelopeSchema());
  });

  it('keeps its documented choices: 2020-12, no $id, agent_state only non-blank, closed levels', () => {
    const schema = envelopeJsonSchema() as Record<string, any>;
    expect(schema.$schema).toBe('https://json-schema.org/draft/2020-12/schema');
    expect(schema).not.toHaveProperty('$id');
    expect(schema.required).toEqual(['agent_status', 'evidence_report']);
    expect(schema.$defs.agentStatus.properties.agent_state).toMatchObject({ type: 'string', pattern: '\\S' });
    expect(schema.$defs.agentStatus.properties.agent_state).not.toHaveProperty('enum');
    for (const def of ['agentStatus', 'evidenceReport', 'fileReference'])
      expect(schema.$defs[def].additionalProperties).toBe(false);
    expect(schema.$defs.verification).not.toHaveProperty('additionalProperties');
  });
});

describe('one declaration, three readers agree', () => {
  it.each(corpus.map((e, i) => [i, e] as const))(
    'corpus envelope %i: zod, the tidied and the raw JSON Schema agree',
    (_i, e) => {
      const verdict = published(e);
      expect(envelopeSchema.safeParse(e).success).toBe(verdict);
      expect(raw(e)).toBe(verdict);
    },
  );

  it('on mutated envelopes: zod and both JSON Schemas agree, and every envelope the validator accepts is accepted', () => {
    let accepted = 0;
    let rejected = 0;
    fc.assert(
      fc.property(mutated, (e) => {
        const verdict = published(e);
        expect(envelopeSchema.safeParse(e).success, JSON.stringify(e)).toBe(verdict);
        expect(raw(e)).toBe(verdict);
        if (validateEnvelope(e).ok) expect(verdict).toBe(true);
        if (verdict) accepted++;
        else rejected++;
      }),
      { seed: 4242, numRuns: 1500 },
    );
    expect(accepted).toBeGreaterThan(100);
    expect(rejected).toBeGreaterThan(100);
  });
});

describe('the vocabulary reads the declaration', () => {
  it('key lists are the declared shapes, in declaration order', () => {
    expect(AGENT_WRITABLE_ROOT_KEYS).toEqual(Object.keys(agentRootShape));
    expect(SYSTEM_ROOT_KEYS).toEqual(Object.keys(systemRootShape));
    expect(AGENT_STATUS_KEYS).toEqual(Object.keys(agentStatusShape));
    expect(EVIDENCE_REPORT_KEYS).toEqual(Object.keys(evidenceReportShape));
    expect([...ACCEPTED_KEYS.root]).toEqual(Object.keys(envelopeSchema.def.shape));
    expect(EVIDENCE_LISTS_UPPER).toEqual([
      'PATTERNS_CHECKED',
      'FILES_CHECKED',
      'COMMANDS_RUN',
      'KEY_OUTPUTS',
      'VERBATIM_OUTPUTS',
      'CROSS_LAYER_IMPACTS',
      'OPEN_GAPS',
    ]);
    expect(SUGGESTED_KEYS.evidence_report).toEqual([
      'patterns_checked',
      'files_checked',
      'commands_run',
      'key_outputs',
      'verbatim_outputs',
      'cross_layer_impacts',
      'open_gaps',
      'verification',
    ]);
  });

  it('homes: the first level declaring a key; agent_status.agent_state is homed at the root, spellings nowhere', () => {
    expect(HOMES.get('agent_state')).toBe('root');
    expect(HOMES.get('agent_id')).toBe('agent_status');
    expect(HOMES.get('files_checked')).toBe('evidence_report');
    for (const k of EVIDENCE_LISTS_UPPER) expect(HOMES.has(k)).toBe(false);
    expect(HOMES.size).toBe(31 + 3 + 8);
  });

  it('FIELD_TYPE reads exactly the typed fields and types from the declaration', () => {
    expect(TYPED_FIELDS.root).toEqual([
      ['agent_status', 'object'],
      ['evidence_report', 'object'],
      ['consolidation_report', 'object'],
      ['approval_request', 'object'],
      ['report_prose', 'string'],
    ]);
    expect(TYPED_FIELDS.agent_status).toEqual([
      ['agent_state', 'string'],
      ['agent_id', 'string'],
      ['pending_steps', 'array'],
      ['next_action', 'string'],
    ]);
    expect(TYPED_FIELDS.evidence_report).toEqual([
      ...[
        'patterns_checked',
        'files_checked',
        'commands_run',
        'key_outputs',
        'verbatim_outputs',
        'cross_layer_impacts',
        'open_gaps',
      ].map((k) => [k, 'array']),
      ['verification', 'object'],
    ]);
  });

  it('declaredType looks through optional and nullable, and skips any-value keys and own-rule fields', () => {
    expect(declaredType(z.optional(z.nullable(z.array(z.unknown()))))).toBe('array');
    expect(declaredType(z.nullable(z.looseObject({})))).toBe('object');
    expect(declaredType(z.optional(z.unknown()))).toBeUndefined();
    expect(declaredType(z.union([z.string(), z.null()]))).toBeUndefined();
    expect(declaredType(agentRootShape.failure_report)).toBeUndefined();
    expect(declaredType(agentRootShape.work_phase)).toBeUndefined();
  });

  it('the TypeScript types are inferred from the declaration', () => {
    expectTypeOf<Envelope['agent_status']['agent_id']>().toEqualTypeOf<string>();
    expectTypeOf<Envelope['agent_status']['pending_steps']>().toEqualTypeOf<unknown[] | null>();
    expectTypeOf<Envelope['report_prose']>().toEqualTypeOf<string | null | undefined>();
    expectTypeOf<Envelope['memory_delta']>().toEqualTypeOf<unknown>();
  });
});
