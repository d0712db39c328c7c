/**
 * The published envelope schema (schemas/envelope.schema.json): it compiles under draft 2020-12, accepts every
 * valid envelope of the shared corpus, and its closed levels list exactly the vocabulary's keys, so a vocabulary
 * change without the schema fails here.
 */
import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
// Named import: under NodeNext the default import of this CommonJS module is its namespace, not the class.
import { Ajv2020 } from 'ajv/dist/2020.js';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { AGENT_STATUS_KEYS, EVIDENCE_REPORT_KEYS, ROOT_KEYS } from '../../src/envelope/vocabulary.js';
import { validateEnvelope } from '../../src/validator/index.js';
import { mutated } from '../helpers/validator-arbitraries.js';
import { loadValidatorCases, repoRoot } from '../helpers/validator-corpus.js';
import { complete, env, inProgress, type Env } from '../helpers/validator.js';

interface SchemaNode {
  properties: Record<string, unknown>;
  additionalProperties?: boolean;
}
const schema = JSON.parse(readFileSync(resolve(repoRoot, 'schemas/envelope.schema.json'), 'utf8')) as SchemaNode & {
  $schema: string;
  $defs: Record<string, SchemaNode>;
};
const ajv = new Ajv2020({ allErrors: true, strict: true, strictRequired: false, allowUnionTypes: true });
const validate = ajv.compile(schema);
const sorted = (keys: Iterable<string>) => [...keys].sort();

describe('envelope.schema.json', () => {
  it('is a 2020-12 schema', () => {
    expect(schema.$schema).toBe('https://json-schema.org/draft/2020-12/schema');
  });

  it.each(
    loadValidatorCases()
      .filter((c) => c.ok)
      .map((c) => [c.name, c.envelope] as const),
  )('accepts valid case %s', (_name, envelope) => {
    expect(validate(envelope), JSON.stringify(validate.errors)).toBe(true);
  });

  it('accepts the initial envelope and a full COMPLETE envelope', () => {
    expect(validate(inProgress())).toBe(true);
    const full = env((e) => {
      e.evidence_report.files_checked = ['README.md', { path: 'src/a.ts', commit: ' ABCDEF0 ' }];
      e.evidence_report.verification.receipts = ['R-0123456789abcdef'];
      e.failure_report = { attempted: 'a', symptom: 's', evidence: [5, 'log'], severity: ' Warning ' };
      e.work_phase = 'Verifying';
      e.continues_contract_id = 'a0123456789abcdef.abcdef';
    }, complete);
    expect(validateEnvelope(full).ok).toBe(true);
    expect(validate(full), JSON.stringify(validate.errors)).toBe(true);
  });

  it.each([
    ['unknown root key', (e: Env) => (e.findings = [])],
    ['misplaced root key', (e: Env) => (e.commands_run = [])],
    ['unknown agent_status key', (e: Env) => (e.agent_status.plan_status = 'x')],
    ['unknown evidence_report key', (e: Env) => (e.evidence_report.VERIFICATION = {})],
    ['missing list', (e: Env) => delete e.evidence_report.open_gaps],
    ['bad agent_id', (e: Env) => (e.agent_status.agent_id = 'a123')],
    ['blank next_action', (e: Env) => (e.agent_status.next_action = '\ufeff')],
    ['wrong list type', (e: Env) => (e.evidence_report.key_outputs = 'x')],
    ['bad file reference', (e: Env) => (e.evidence_report.FILES_CHECKED = [{ path: 'a', commit: 'HEAD' }])],
    ['bad work_phase', (e: Env) => (e.work_phase = 'investigating.')],
    ['bad failure_report', (e: Env) => (e.failure_report = { attempted: 'a', symptom: 's', evidence: [5] })],
    ['bad receipt', (e: Env) => (e.evidence_report.verification = { receipt: 'R-0123456789ABCDEF' })],
  ])('rejects a structural defect: %s', (_name, mutate) => {
    const e = env(mutate);
    expect(validateEnvelope(e).ok).toBe(false);
    expect(validate(e)).toBe(false);
  });

  it('accepts every mutated envelope the validator accepts (the schema never over-constrains)', () => {
    let accepted = 0;
    fc.assert(
      fc.property(mutated, (e) => {
        if (!validateEnvelope(e).ok) return;
        accepted++;
        expect(validate(e), JSON.stringify(validate.errors)).toBe(true);
      }),
      { seed: 777, numRuns: 1500 },
    );
    expect(accepted).toBeGreaterThan(100);
  });

  it('closed levels list exactly the vocabulary keys', () => {
    expect(sorted(Object.keys(schema.properties))).toEqual(sorted(ROOT_KEYS));
    expect(sorted(Object.keys(schema.$defs.agentStatus.properties))).toEqual(sorted(AGENT_STATUS_KEYS));
    expect(sorted(Object.keys(schema.$defs.evidenceReport.properties))).toEqual(sorted(EVIDENCE_REPORT_KEYS));
    expect(schema.additionalProperties).toBe(false);
    expect(schema.$defs.agentStatus.additionalProperties).toBe(false);
    expect(schema.$defs.evidenceReport.additionalProperties).toBe(false);
    expect(schema.$defs.fileReference.additionalProperties).toBe(false);
  });
});
