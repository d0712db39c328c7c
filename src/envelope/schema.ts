/**
 * The envelope's declaration, written once as zod schemas: its three closed levels, every key
 * of each level in their documented order, each key's declared type, the file reference, and the descriptions the
 * published JSON Schema carries. Everything else reads it: the vocabulary's key lists and homes (vocabulary.ts), the
 * validator's key-vocabulary and FIELD_TYPE steps, the TypeScript types below, and schemas/envelope.schema.json
 * (json-schema.ts, at build).
 *
 * zod is the declaration, not the validator: validateEnvelope never parses an envelope with zod (its codes, order,
 * suppression and stacking are the ordered rules of src/validator/). Only `zod/mini` is imported here, because every
 * hot verb loads this module; the schemas are built once, at import, and nothing is compiled per call.
 */
import * as z from 'zod/mini';
import {
  AGENT_ID_RE,
  AGENT_STATES,
  COMMIT_TEXT_RE,
  NON_BLANK_RE,
  OWNERSHIP_ASSESSMENTS,
  PHASES,
  RECEIPT_ID_RE,
  SEVERITIES,
  tokenPattern,
} from './patterns.js';

/** What the published JSON Schema takes from a schema besides its type: a `$defs` name, prose, extra keywords. */
export interface JsonSchemaMeta {
  /** The schema becomes `$defs/<id>` and is referenced from where it is used. */
  id?: string;
  title?: string;
  description?: string;
  /** JSON Schema keywords that say what a refinement says (zod cannot print a refinement). */
  contains?: Record<string, unknown>;
  allOf?: Record<string, unknown>[];
}

/** The metadata of the published JSON Schema; a registry of our own, so nothing lands in zod's global one. */
export const jsonSchemaMeta = z.registry<JsonSchemaMeta>();

/**
 * Fields whose type is judged by a rule of their own ("own shape rule": FAILURE_REPORT_SHAPE, WORK_PHASE_SHAPE),
 * not by FIELD_TYPE.
 */
export const ownShapeRule = z.registry<{ code: 'FAILURE_REPORT_SHAPE' | 'WORK_PHASE_SHAPE' }>();

function described<T extends z.ZodMiniType>(schema: T, description: string): T {
  jsonSchemaMeta.add(schema, { description });
  return schema;
}

/**
 * Start-up cost: every hot verb builds this declaration at import, where each zod instance costs tens of microseconds
 * and each kind of schema used for the first time far more. So schemas that carry no metadata of their own are
 * shared (ANY, the free list, the system key), and what no verb reads at run time (the inside of the open blocks,
 * the elements of the files lists) is built when zod first reads it: a parse, or the JSON Schema at build.
 */
const once = <T>(make: () => T): (() => T) => {
  let built: T | undefined;
  return () => (built ??= make());
};

/** An object shape whose field schemas are built on zod's first read of the shape, not at import. */
function deferredShape<S extends Record<string, z.ZodMiniType>>(make: () => S): S {
  const shape = once(make);
  return new Proxy({} as S, {
    ownKeys: () => Reflect.ownKeys(shape()),
    getOwnPropertyDescriptor: (_target, key) => Reflect.getOwnPropertyDescriptor(shape(), key),
    get: (_target, key) => Reflect.get(shape(), key) as unknown,
    has: (_target, key) => Reflect.has(shape(), key),
  });
}

const ANY = z.unknown();
const nonBlank = () => z.string().check(z.regex(NON_BLANK_RE));
const token = (words: readonly string[]) => z.string().check(z.regex(tokenPattern(words)));
/** An open object: any keys, any values. */
const openObject = () => z.looseObject({});
/** A key accepted with any value, never type-checked. */
const anyValue = (description: string) => described(z.optional(ANY), description);
const isNonBlankString = (v: unknown): boolean => typeof v === 'string' && NON_BLANK_RE.test(v);

// ---------------------------------------------------------------------------------------------------------------
// The file reference, and the elements of a files list.

export const fileReferenceSchema = once(() =>
  z
    .strictObject({
      path: nonBlank(),
      commit: described(
        z.string().check(z.regex(COMMIT_TEXT_RE)),
        'A commit hash of 7-64 hex digits; never HEAD or a branch.',
      ),
    })
    .register(jsonSchemaMeta, { id: 'fileReference' }),
);

/** Any JSON value but an object: list elements that are never inspected. */
const notAnObject = () => z.union([z.string(), z.number(), z.boolean(), z.null(), z.array(ANY)]);
/** Any JSON value but an array (the value of an upper-case `FILES_CHECKED` that is not a list). */
const notAnArray = () => z.union([z.string(), z.number(), z.boolean(), z.null(), openObject()]);

const filesListElement = z.lazy(
  once(() =>
    z.union([fileReferenceSchema(), notAnObject()]).register(jsonSchemaMeta, {
      id: 'filesListElement',
      description: 'Any element; an object element must be a file reference.',
    }),
  ),
);

// ---------------------------------------------------------------------------------------------------------------
// Agent_status.

export const agentStatusShape = {
  agent_state: described(
    nonBlank(),
    `After trim, upper-casing and dropping one trailing run of . , ; one of ${AGENT_STATES.join(', ')}.`,
  ),
  agent_id: described(
    z.string().check(z.regex(AGENT_ID_RE)),
    'Copied verbatim from `handoff contract init` or the dispatch.',
  ),
  pending_steps: described(z.nullable(z.array(ANY)), 'The key must be present; [] or null under COMPLETE.'),
  next_action: described(nonBlank(), 'Non-blank; "done" (trimmed, case-insensitive) under COMPLETE.'),
};
export const agentStatusSchema = z.strictObject(agentStatusShape).register(jsonSchemaMeta, { id: 'agentStatus' });

// ---------------------------------------------------------------------------------------------------------------
// Evidence_report: the seven lists (fixed order), their accepted upper-case spellings, verification.

const freeList = described(z.optional(z.nullable(z.array(ANY))), 'Elements are free.');

export const evidenceListShape = {
  patterns_checked: freeList,
  files_checked: described(
    z.optional(z.nullable(z.array(filesListElement))),
    'Strings (paths) or file references {"path", "commit"}.',
  ),
  commands_run: freeList,
  key_outputs: freeList,
  verbatim_outputs: freeList,
  cross_layer_impacts: freeList,
  open_gaps: freeList,
};
type EvidenceListKey = keyof typeof evidenceListShape;
const EVIDENCE_LIST_KEYS = Object.keys(evidenceListShape) as EvidenceListKey[];

/** The upper-case spelling of each list: accepted, not type-checked, satisfies the presence of its list. */
const spellingOf = (list: EvidenceListKey) =>
  list === 'files_checked'
    ? described(
        z.optional(z.lazy(once(() => z.union([z.array(filesListElement), notAnArray()])))),
        'Accepted spelling of files_checked; its object elements must be file references.',
      )
    : anyValue(`Accepted spelling of ${list}; not type-checked.`);
export const evidenceSpellingShape = Object.fromEntries(
  EVIDENCE_LIST_KEYS.map((list) => [list.toUpperCase(), spellingOf(list)]),
) as {
  [K in EvidenceListKey as Uppercase<K>]: ReturnType<typeof spellingOf>;
};

const receiptId = () => z.string().check(z.regex(RECEIPT_ID_RE));

/** Open: every key is free except the receipt references (RECEIPT_REF_SHAPE). */
const verificationFields = () => ({
  type: anyValue('The claim; separators (space, _, -) fold to _, case-insensitive.'),
  command: anyValue('The command that was run (companion of command/code).'),
  requires_human: anyValue('Truthy when a human must judge (companion of semantic).'),
  reviewed: anyValue('What was reviewed (companion of self_review).'),
  result: anyValue('"pass" (trimmed, case-insensitive) to close COMPLETE.'),
  method: anyValue('Free prose; claims nothing.'),
  receipt: described(
    z.optional(z.nullable(receiptId())),
    'One receipt id from `handoff evidence run` or `handoff contract verify`.',
  ),
  receipts: described(
    z.optional(z.nullable(z.array(receiptId()).check(z.minLength(1)))),
    'A non-empty list of receipt ids.',
  ),
});

export const verificationSchema = z
  .nullable(z.looseObject(deferredShape(verificationFields)))
  .register(jsonSchemaMeta, {
    id: 'verification',
    description:
      'Open. type is a claim that owes a companion: command/code -> command, semantic -> truthy requires_human, ' +
      'self_review -> reviewed, other words -> one of the three, none -> nothing. Under COMPLETE, result must be "pass".',
  });

export const evidenceReportShape = {
  ...evidenceListShape,
  ...evidenceSpellingShape,
  verification: z.optional(verificationSchema),
};

/** Every list must be present in one of its two spellings (null counts as present). */
const hasEveryList = (report: Record<string, unknown>): boolean =>
  EVIDENCE_LIST_KEYS.every((list) => Object.hasOwn(report, list) || Object.hasOwn(report, list.toUpperCase()));

export const evidenceReportSchema = z
  .strictObject(evidenceReportShape)
  .check(z.refine(hasEveryList))
  .register(jsonSchemaMeta, {
    id: 'evidenceReport',
    allOf: EVIDENCE_LIST_KEYS.map((list) => ({ anyOf: [{ required: [list] }, { required: [list.toUpperCase()] }] })),
  });

// ---------------------------------------------------------------------------------------------------------------
// failure_report and work_phase: typed by rules of their own.

const failureReportFields = () => ({
  attempted: nonBlank(),
  symptom: nonBlank(),
  evidence: z
    .array(ANY)
    .check(z.refine((list) => list.some(isNonBlankString)))
    .register(jsonSchemaMeta, {
      description: 'At least one non-empty string.',
      contains: { type: 'string', pattern: NON_BLANK_RE.source },
    }),
  severity: z.optional(z.nullable(token(SEVERITIES))),
  component: anyValue('Optional, untyped.'),
});

const failureReportSchema = z.nullable(z.looseObject(deferredShape(failureReportFields))).register(jsonSchemaMeta, {
  id: 'failureReport',
  description: 'Why an attempt failed. Omitted or null is always valid; otherwise written whole.',
});

const failureReportField = z.optional(failureReportSchema).register(ownShapeRule, { code: 'FAILURE_REPORT_SHAPE' });
const workPhaseField = described(
  z.optional(z.nullable(token(PHASES))),
  `One of ${PHASES.join(', ')} (trimmed, case-insensitive), or null.`,
).register(ownShapeRule, { code: 'WORK_PHASE_SHAPE' });

// ---------------------------------------------------------------------------------------------------------------
// The root keys an agent writes, in their documented order; then the root keys the system writes.

export const agentRootShape = {
  agent_status: agentStatusSchema,
  evidence_report: evidenceReportSchema,
  consolidation_report: described(
    z.optional(z.nullable(openObject())),
    `Open. On a turn dispatched with --consolidation and a state other than IN_PROGRESS it must carry ownership_assessment (${OWNERSHIP_ASSESSMENTS.join(' | ')}), confirmed_findings, suspected_findings, conflicts, open_gaps (arrays) and next_best_agent (null or a non-empty string).`,
  ),
  approval_request: described(
    z.optional(z.nullable(openObject())),
    'Open. Under APPROVAL_REQUEST it must be a non-empty object with a non-empty string exact_content (the exact command or content the user approves). A non-blank approval_id must name a pending approval.',
  ),
  report_prose: described(z.optional(z.nullable(z.string())), 'Long prose for the orchestrator; "" is fine.'),
  failure_report: failureReportField,
  work_phase: workPhaseField,
  context_consumption: anyValue('Advisory, any value; readers expect {"tokens_used", "pct_window"}.'),
  memorialize_suggestions: anyValue('Advisory, any value; readers expect a list of {"description", "body", ...}.'),
  memory_delta: anyValue('Advisory, any value; readers expect {"version", "proposals": [...]}.'),
  memory_suggestions: anyValue('Advisory, any value; readers expect a list of strings.'),
  rollback_executed: anyValue('Advisory, any value; a boolean or a sentence.'),
  update_contracts: anyValue(
    'Advisory here, any value; entries {"contract", "payload"} are applied and checked at `handoff contract finalize`.',
  ),
  user_facing_summary: anyValue('Advisory, any value; the one field written for the human.'),
};

const systemKey = anyValue('System-written: accepted with any value; agents do not write it.');
export const systemRootShape = {
  _contract_tag: systemKey,
  agent_name: systemKey,
  agent_output_preview: systemKey,
  agent_state: systemKey,
  auto_captured: systemKey,
  backstop: systemKey,
  binding_rejection: systemKey,
  born_at_dispatch: systemKey,
  continues_contract_id: systemKey,
  degraded: systemKey,
  dispatch_closed_at_subagent_stop: systemKey,
  fallback: systemKey,
  reaped: systemKey,
  reconciled: systemKey,
  reconstructed_from_finalized_draft: systemKey,
  salvaged: systemKey,
  superseded_by_contract_id: systemKey,
};

export const rootShape = { ...agentRootShape, ...systemRootShape };

export const envelopeSchema = z.strictObject(rootShape).register(jsonSchemaMeta, {
  title: 'handoff envelope',
  description:
    'The structure of a handoff envelope. Three closed levels: the root, agent_status and ' +
    'evidence_report. This schema describes structure; state-conditional close rules (COMPLETE, APPROVAL_REQUEST, ' +
    'marked consolidation turns) and the verification companion rule are enforced by `handoff contract validate`.',
});

/** A valid envelope's structure, and its parts (what `validateEnvelope` accepts is always one of these). */
export type Envelope = z.infer<typeof envelopeSchema>;
export type AgentStatus = z.infer<typeof agentStatusSchema>;
export type EvidenceReport = z.infer<typeof evidenceReportSchema>;
export type Verification = NonNullable<z.infer<typeof verificationSchema>>;
export type FailureReport = NonNullable<z.infer<typeof failureReportSchema>>;
export type FileReference = z.infer<ReturnType<typeof fileReferenceSchema>>;

// ---------------------------------------------------------------------------------------------------------------
// Reading the declaration.

/** The JSON types FIELD_TYPE checks. */
export type DeclaredType = 'object' | 'array' | 'string';

/**
 * The type FIELD_TYPE checks for a field's schema: object, array or string, looking through optional and nullable
 * (null never gets a FIELD_TYPE). Undefined for a field that is not type-checked: any value, a spelling, or a field
 * with its own shape rule.
 */
export function declaredType(schema: z.ZodMiniType): DeclaredType | undefined {
  if (ownShapeRule.has(schema)) return undefined;
  let s: z.core.$ZodType = schema;
  while (s._zod.def.type === 'optional' || s._zod.def.type === 'nullable') {
    s = (s._zod.def as z.core.$ZodOptionalDef | z.core.$ZodNullableDef).innerType;
  }
  const t = s._zod.def.type;
  return t === 'object' || t === 'array' || t === 'string' ? t : undefined;
}
