/** fast-check arbitraries shared by the property and schema tests: valid bases and random mutations of them. */
import fc from 'fast-check';
import { AGENT_STATUS_KEYS, EVIDENCE_REPORT_KEYS, ROOT_KEYS } from '../../src/envelope/vocabulary.js';
import { loadValidatorCases } from './validator-corpus.js';
import { approval, complete, env, fullConsolidation, inProgress, withState, type Env } from './validator.js';

export const BASES: Env[] = [
  inProgress(),
  complete(),
  approval(),
  env(
    (e) => (e.consolidation_report = fullConsolidation()),
    () => withState('BLOCKED'),
  ),
  env((e) => {
    e.evidence_report.verification.receipt = 'R-0123456789abcdef';
    e.evidence_report.verification.receipts = ['R-0123456789abcdef', 'R-fedcba9876543210'];
    e.evidence_report.files_checked = [{ path: 'src/a.ts', commit: 'abcdef0' }];
    e.failure_report = { attempted: 'a', symptom: 's', evidence: ['e'], severity: 'info' };
  }, complete),
  ...loadValidatorCases()
    .filter((c) => c.ok)
    .map((c) => c.envelope as Env),
];

export const ENVELOPE_KEYS = [
  ...ROOT_KEYS,
  ...AGENT_STATUS_KEYS,
  ...EVIDENCE_REPORT_KEYS,
  'type',
  'command',
  'result',
  'receipts',
  'path',
  'commit',
  'exact_content',
  '__proto__',
  'constructor',
];

/** Every object or array inside `root`, root included, in document order. */
function containers(root: unknown): (Env | unknown[])[] {
  const out: (Env | unknown[])[] = [];
  const stack: unknown[] = [root];
  while (stack.length > 0) {
    const v = stack.pop();
    if (typeof v !== 'object' || v === null) continue;
    out.push(v);
    stack.push(...Object.values(v));
  }
  return out;
}

type Mutation = { target: number; op: 'delete' | 'replace' | 'add'; pick: number; key: string; value: unknown };
const mutation: fc.Arbitrary<Mutation> = fc.record({
  target: fc.nat(),
  op: fc.constantFrom('delete', 'replace', 'add'),
  pick: fc.nat(),
  key: fc.oneof(fc.constantFrom(...ENVELOPE_KEYS), fc.string({ maxLength: 12 })),
  value: fc.oneof(
    fc.jsonValue({ maxDepth: 3 }),
    fc.constantFrom('', ' ', 'done', 'COMPLETE', 'pass', 'abcdef0', 'R-0123456789abcdef'),
  ),
});

function mutate(base: Env, mutations: Mutation[]): Env {
  const copy = structuredClone(base);
  for (const m of mutations) {
    const all = containers(copy);
    const target = all[m.target % all.length];
    const keys = Object.keys(target);
    if (Array.isArray(target)) {
      if (m.op === 'delete' && target.length > 0) target.splice(m.pick % target.length, 1);
      else if (m.op === 'replace' && target.length > 0) target[m.pick % target.length] = m.value;
      else target.push(m.value);
    } else if (m.op === 'add' || keys.length === 0) {
      Object.defineProperty(target, m.key, { value: m.value, enumerable: true, writable: true, configurable: true });
    } else if (m.op === 'delete') {
      delete target[keys[m.pick % keys.length]];
    } else {
      Object.defineProperty(target, keys[m.pick % keys.length], {
        value: m.value,
        enumerable: true,
        writable: true,
        configurable: true,
      });
    }
  }
  return copy;
}

/** A valid base with one to four random deletions, replacements or additions at any depth. */
export const mutated = fc
  .tuple(fc.nat({ max: BASES.length - 1 }), fc.array(mutation, { minLength: 1, maxLength: 4 }))
  .map(([i, ms]) => mutate(BASES[i], ms));
