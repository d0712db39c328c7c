/**
 * Cases the public case file does not pin: every row of the value-semantics, suppression, stacking and
 * sub-rule tables and the worked examples. Table tests: codes and paths in order, never wording.
 */
import { describe, expect, it } from 'vitest';
import { SYSTEM_ROOT_KEYS } from '../../src/envelope/vocabulary.js';
import { validateEnvelope } from '../../src/validator/index.js';
import {
  AID,
  approval,
  complete,
  env,
  fullConsolidation,
  inProgress,
  pairs,
  withState,
  type Env,
} from '../helpers/validator.js';

type Row = [name: string, envelope: unknown, expected: [string, string][], options?: Record<string, unknown>];

const NA = 'agent_status.next_action';
const PS = 'agent_status.pending_steps';
const ST = 'agent_status.agent_state';
const ID = 'agent_status.agent_id';
const V = 'evidence_report.verification';
const FC = 'evidence_report.files_checked';
const MARKED = { consolidation: true };
const blocked = (): Env => withState('BLOCKED');

const verification = (v: unknown, start = inProgress): Env => env((e) => (e.evidence_report.verification = v), start);
const failure = (f: unknown): Env => env((e) => (e.failure_report = f));
const phase = (p: unknown): Env => env((e) => (e.work_phase = p));
const files = (list: unknown[], key = 'files_checked'): Env => env((e) => (e.evidence_report[key] = list));
const consolidation = (c: unknown, start = blocked): Env => env((e) => (e.consolidation_report = c), start);
const agentId = (id: unknown): Env => env((e) => (e.agent_status.agent_id = id));

// Every character trim() removes makes next_action blank; U+001C–U+001F and U+0085 do not.
const WHITESPACE = [
  '\t',
  '\n',
  '\v',
  '\f',
  '\r',
  ' ',
  '\u00a0',
  '\u1680',
  '\u2000',
  '\u200a',
  '\u2028',
  '\u2029',
  '\u202f',
  '\u205f',
  '\u3000',
  '\ufeff',
];
const NOT_WHITESPACE = ['\u001c', '\u001d', '\u001e', '\u001f', '\u0085', '\u200b'];

const valueSemantics: Row[] = [
  ...WHITESPACE.map((c): Row => [
    `next_action ${JSON.stringify(c)} is blank`,
    env((e) => (e.agent_status.next_action = c)),
    [['MISSING_FIELD', NA]],
  ]),
  ...NOT_WHITESPACE.map((c): Row => [
    `next_action ${JSON.stringify(c)} is not blank`,
    env((e) => (e.agent_status.next_action = c)),
    [],
  ]),
  ['work_phase BOM-led is trimmed', phase('\ufeffplanning'), []],
  ['agent_state with trailing U+001C', withState('IN_PROGRESS\u001c'), [['PLAN_STATUS', ST]]],
  ['work_phase with trailing U+001C', phase('planning\u001c'), [['WORK_PHASE_SHAPE', 'work_phase']]],
  // Normalize_state
  ['state "complete."', withState('complete.', complete), []],
  ['state "  blocked;,. "', withState('  blocked;,. '), []],
  ['state BOM + COMPLETE', withState('\ufeffCOMPLETE', complete), []],
  ['state "COMPLETE ." (space before punctuation)', withState('COMPLETE .', complete), [['PLAN_STATUS', ST]]],
  ['state "in progress"', withState('in progress'), [['PLAN_STATUS', ST]]],
  ['state "IN-PROGRESS"', withState('IN-PROGRESS'), [['PLAN_STATUS', ST]]],
  ['state DISPATCHED is row-only', withState('DISPATCHED'), [['PLAN_STATUS', ST]]],
  ['state needs_verification lower case', withState('needs_verification'), []],
  ['state "NEEDS_INPUT;;"', withState('NEEDS_INPUT;;'), []],
  // Fold_type: separators fold, letters never change
  ...['Self Review', 'self-review', 'self__review', '-self-review-', 'Self\u00a0Review', 'self\ufeffreview'].map(
    (t): Row => [
      `type ${JSON.stringify(t)} folds to self_review`,
      verification({ type: t }),
      [['VERIFICATION_SHAPE', `${V}.reviewed`]],
    ],
  ),
  ['type " COMMAND " folds to command', verification({ type: ' COMMAND ' }), [['VERIFICATION_SHAPE', `${V}.command`]]],
  ['type " Dry--Run " is an unknown word', verification({ type: ' Dry--Run ' }), [['VERIFICATION_SHAPE', V]]],
  ...['_-_', '   ', '', null].map((t): Row => [
    `type ${JSON.stringify(t)} claims nothing`,
    verification({ type: t }),
    [],
  ]),
  ...['no-ne', 'n o n e', 5, true, ['none'], { none: true }].map((t): Row => [
    `type ${JSON.stringify(t)} is an unknown word`,
    verification({ type: t }),
    [['VERIFICATION_SHAPE', V]],
  ]),
  ...['NONE', ' none ', 'None'].map((t): Row => [`type ${JSON.stringify(t)} is none`, verification({ type: t }), []]),
  // Token match
  ['next_action " DONE " under COMPLETE', env((e) => (e.agent_status.next_action = ' DONE '), complete), []],
  [
    'next_action "done." under COMPLETE',
    env((e) => (e.agent_status.next_action = 'done.'), complete),
    [['COMPLETE_SHAPE', NA]],
  ],
  ['result " PASS "', verification({ result: ' PASS ' }, complete), []],
  ['work_phase "  Verifying\\n"', phase('  Verifying\n'), []],
  ['work_phase "investigating."', phase('investigating.'), [['WORK_PHASE_SHAPE', 'work_phase']]],
  // Agent_id
  ...['a' + '0'.repeat(16), 'a' + 'f'.repeat(40)].map((id): Row => [`agent_id ${id} valid`, agentId(id), []]),
  ...[
    'a' + '0'.repeat(15),
    'a1B2C30F1E2D3C4B5',
    'A1b2c30f1e2d3c4b5',
    ` ${AID}`,
    `${AID} `,
    `${AID}\n`,
    `${AID}\r\n`,
    'a1b2c30f1e2d3c4bz',
    'a1b2c3',
    'agent-7',
  ].map((id): Row => [`agent_id ${JSON.stringify(id)} rejected`, agentId(id), [['AGENT_ID_FORMAT', ID]]]),
  ['agent_id whitespace only', agentId(' \n'), [['MISSING_FIELD', ID]]],
];

const envelopeAndVocabulary: Row[] = [
  ...[null, [], 'x', 0, 1.5, true, false].map((v): Row => [
    `envelope ${JSON.stringify(v)}`,
    v,
    [['MISSING_FIELD', 'agent_contract_handoff']],
  ]),
  ['all 17 system keys accepted at the root', env((e) => SYSTEM_ROOT_KEYS.forEach((k) => (e[k] = { any: k }))), []],
  [
    'advisory keys take any value',
    env((e) =>
      ['context_consumption', 'memorialize_suggestions', 'memory_suggestions', 'update_contracts'].forEach(
        (k) => (e[k] = 7),
      ),
    ),
    [],
  ],
  ['root COMMANDS_RUN is unknown', env((e) => (e.COMMANDS_RUN = [])), [['UNKNOWN_FIELD', 'COMMANDS_RUN']]],
  ['root commands_run is misplaced', env((e) => (e.commands_run = [])), [['MISPLACED_KEY', 'commands_run']]],
  [
    'evidence VERIFICATION is unknown',
    env((e) => (e.evidence_report.VERIFICATION = {})),
    [['UNKNOWN_FIELD', 'evidence_report.VERIFICATION']],
  ],
  [
    'evidence mixed case Commands_Run is unknown',
    env((e) => (e.evidence_report.Commands_Run = [])),
    [['UNKNOWN_FIELD', 'evidence_report.Commands_Run']],
  ],
  [
    'evidence upper-case lists accepted untyped',
    env((e) => {
      e.evidence_report.OPEN_GAPS = 'x';
      e.evidence_report.KEY_OUTPUTS = 5;
    }),
    [],
  ],
  [
    'upper-case spelling satisfies presence',
    env((e) => {
      delete e.evidence_report.open_gaps;
      e.evidence_report.OPEN_GAPS = null;
    }),
    [],
  ],
  [
    'agent_status.agent_name is misplaced',
    env((e) => (e.agent_status.agent_name = 'x')),
    [['MISPLACED_KEY', 'agent_status.agent_name']],
  ],
  [
    'evidence_report.agent_state is misplaced',
    env((e) => (e.evidence_report.agent_state = 'COMPLETE')),
    [['MISPLACED_KEY', 'evidence_report.agent_state']],
  ],
  [
    'agent_status.plan_status is unknown',
    env((e) => (e.agent_status.plan_status = 'x')),
    [['UNKNOWN_FIELD', 'agent_status.plan_status']],
  ],
  [
    'agent_status.FILES_CHECKED is unknown (no home)',
    env((e) => (e.agent_status.FILES_CHECKED = [])),
    [['UNKNOWN_FIELD', 'agent_status.FILES_CHECKED']],
  ],
  [
    'root __proto__ own key',
    JSON.parse(`{"__proto__":{"x":1},${JSON.stringify(inProgress()).slice(1)}`),
    [['UNKNOWN_FIELD', '__proto__']],
  ],
  [
    'agent_status __proto__ own key',
    env((e) => (e.agent_status = JSON.parse(`{"__proto__":1,${JSON.stringify(e.agent_status).slice(1)}`))),
    [['UNKNOWN_FIELD', 'agent_status.__proto__']],
  ],
  [
    'a prototype-named own key is an ordinary key',
    env((e) => (e.evidence_report = { ...e.evidence_report, toString: 1 })),
    [['UNKNOWN_FIELD', 'evidence_report.toString']],
  ],
  [
    'integer-like keys come first (Object.keys order)',
    env((e) => {
      e.zeta = 1;
      e['10'] = 1;
      e['2'] = 1;
    }),
    [
      ['UNKNOWN_FIELD', '2'],
      ['UNKNOWN_FIELD', '10'],
      ['UNKNOWN_FIELD', 'zeta'],
    ],
  ],
  [
    'vocabulary order: root, agent_status, evidence_report',
    env((e) => {
      e.evidence_report.x = 1;
      e.agent_status.y = 1;
      e.z = 1;
    }),
    [
      ['UNKNOWN_FIELD', 'z'],
      ['UNKNOWN_FIELD', 'agent_status.y'],
      ['UNKNOWN_FIELD', 'evidence_report.x'],
    ],
  ],
  [
    'FIELD_TYPE order: root, status, evidence',
    env((e) => {
      e.evidence_report.verification = 'x';
      e.evidence_report.open_gaps = {};
      e.evidence_report.patterns_checked = 'x';
      e.agent_status.next_action = 1;
      e.agent_status.agent_state = 2;
      e.report_prose = 3;
      e.approval_request = 4;
      e.consolidation_report = [];
    }),
    [
      ['FIELD_TYPE', 'consolidation_report'],
      ['FIELD_TYPE', 'approval_request'],
      ['FIELD_TYPE', 'report_prose'],
      ['FIELD_TYPE', ST],
      ['FIELD_TYPE', NA],
      ['FIELD_TYPE', 'evidence_report.patterns_checked'],
      ['FIELD_TYPE', 'evidence_report.open_gaps'],
      ['FIELD_TYPE', V],
    ],
  ],
];

const suppression: Row[] = [
  [
    'state absent hides the evidence block',
    env((e) => {
      delete e.agent_status.agent_state;
      delete e.evidence_report;
    }),
    [['MISSING_FIELD', ST]],
  ],
  [
    'out-of-enum state without evidence_report',
    env((e) => {
      e.agent_status.agent_state = 'BOGUS';
      delete e.evidence_report;
    }),
    [['PLAN_STATUS', ST]],
  ],
  [
    'non-string state: FIELD_TYPE only, no PLAN_STATUS, no state rules',
    env((e) => {
      e.agent_status.agent_state = 5;
      e.evidence_report = null;
      e.approval_request = {};
      e.consolidation_report = {};
    }, approval),
    [['FIELD_TYPE', ST]],
    MARKED,
  ],
  [
    'agent_status non-object skips its sub-fields',
    env((e) => {
      e.agent_status = ['COMPLETE'];
      delete e.evidence_report;
    }),
    [['FIELD_TYPE', 'agent_status']],
  ],
  [
    'agent_status missing hides state rules',
    env((e) => {
      delete e.agent_status;
      e.evidence_report.verification = { type: 'command' };
    }),
    [['MISSING_FIELD', 'agent_status']],
  ],
  [
    'state none hides COMPLETE_SHAPE and RECEIPT_REF_SHAPE',
    env((e) => {
      e.agent_status.agent_state = 'COMPLETED';
      e.agent_status.next_action = 'x';
      e.agent_status.pending_steps = ['y'];
      e.evidence_report.verification = { receipt: 'bad' };
    }, complete),
    [['PLAN_STATUS', ST]],
  ],
  [
    'next_action missing under COMPLETE',
    env((e) => delete e.agent_status.next_action, complete),
    [['MISSING_FIELD', NA]],
  ],
  [
    'next_action null under COMPLETE',
    env((e) => (e.agent_status.next_action = null), complete),
    [['MISSING_FIELD', NA]],
  ],
  [
    'pending_steps missing under COMPLETE',
    env((e) => delete e.agent_status.pending_steps, complete),
    [['MISSING_FIELD', PS]],
  ],
  [
    'non-array pending_steps under COMPLETE',
    env((e) => (e.agent_status.pending_steps = { a: 1 }), complete),
    [['FIELD_TYPE', PS]],
  ],
  ['pending_steps null under COMPLETE', env((e) => (e.agent_status.pending_steps = null), complete), []],
  [
    'null on optional and typed fields',
    env((e) => {
      e.report_prose = null;
      e.consolidation_report = null;
      e.failure_report = null;
      e.work_phase = null;
      e.evidence_report.verification = null;
      for (const k of Object.keys(e.evidence_report)) e.evidence_report[k] = null;
    }, blocked),
    [],
  ],
  [
    'never suppressed next to PLAN_STATUS',
    env((e) => {
      e.foo = 1;
      e.report_prose = 3;
      e.agent_status.agent_state = 'BOGUS';
      e.agent_status.agent_id = 'x';
      e.agent_status.next_action = '';
      e.failure_report = 'x';
      e.work_phase = 1;
      e.evidence_report.files_checked = [{}];
    }),
    [
      ['UNKNOWN_FIELD', 'foo'],
      ['FIELD_TYPE', 'report_prose'],
      ['PLAN_STATUS', ST],
      ['AGENT_ID_FORMAT', ID],
      ['MISSING_FIELD', NA],
      ['FAILURE_REPORT_SHAPE', 'failure_report'],
      ['WORK_PHASE_SHAPE', 'work_phase'],
      ['FILE_REFERENCE_SHAPE', `${FC}[0].path`],
      ['FILE_REFERENCE_SHAPE', `${FC}[0].commit`],
    ],
  ],
  // Stacking
  ...[5, true, ['a'], { a: 1 }].map((id): Row => [
    `agent_id ${JSON.stringify(id)} stacks`,
    agentId(id),
    [
      ['FIELD_TYPE', ID],
      ['AGENT_ID_FORMAT', ID],
    ],
  ]),
  [
    'COMPLETE + non-string next_action',
    env((e) => (e.agent_status.next_action = true), complete),
    [
      ['FIELD_TYPE', NA],
      ['COMPLETE_SHAPE', NA],
    ],
  ],
  [
    'COMPLETE + non-object verification',
    verification('pass', complete),
    [
      ['FIELD_TYPE', V],
      ['VERIFICATION_RESULT', V],
    ],
  ],
  ...[undefined, null, {}].map((er): Row => [
    `COMPLETE + evidence_report ${JSON.stringify(er)}`,
    env((e) => (er === undefined ? delete e.evidence_report : (e.evidence_report = er)), complete),
    [
      ['MISSING_FIELD', 'evidence_report'],
      ['VERIFICATION_RESULT', V],
    ],
  ]),
  [
    'COMPLETE + non-object evidence_report',
    env((e) => (e.evidence_report = 'x'), complete),
    [
      ['FIELD_TYPE', 'evidence_report'],
      ['VERIFICATION_RESULT', V],
    ],
  ],
  [
    'APPROVAL_REQUEST + non-object block',
    env((e) => (e.approval_request = ['x']), approval),
    [
      ['FIELD_TYPE', 'approval_request'],
      ['APPROVAL_REQUEST_SHAPE', 'approval_request'],
    ],
  ],
  [
    'marked + closed + non-object consolidation_report',
    consolidation('x'),
    [
      ['FIELD_TYPE', 'consolidation_report'],
      ['CONSOLIDATION_REPORT_SHAPE', 'consolidation_report'],
    ],
    MARKED,
  ],
  [
    'COMPLETE + companion missing + result not pass',
    verification({ type: 'semantic', result: 'passed' }, complete),
    [
      ['VERIFICATION_SHAPE', `${V}.requires_human`],
      ['VERIFICATION_RESULT', `${V}.result`],
    ],
  ],
  [
    'up to two COMPLETE_SHAPE',
    env((e) => {
      e.agent_status.next_action = 'later';
      e.agent_status.pending_steps = ['x'];
    }, complete),
    [
      ['COMPLETE_SHAPE', NA],
      ['COMPLETE_SHAPE', PS],
    ],
  ],
];

const subRules: Row[] = [
  ...['command', 'code', 'CODE'].map((t): Row => [
    `${t} without command`,
    verification({ type: t, reviewed: 'x', requires_human: true }),
    [['VERIFICATION_SHAPE', `${V}.command`]],
  ]),
  ['command satisfied', verification({ type: 'code', command: 'make' }), []],
  ...[true, 1, 'yes', 'false', [0], { a: null }].map((h): Row => [
    `semantic requires_human ${JSON.stringify(h)} passes`,
    verification({ type: 'semantic', requires_human: h }),
    [],
  ]),
  ...[false, 0, '', [], {}, null].map((h): Row => [
    `semantic requires_human ${JSON.stringify(h)} fails`,
    verification({ type: 'semantic', requires_human: h }),
    [['VERIFICATION_SHAPE', `${V}.requires_human`]],
  ]),
  [
    'self_review: command does not satisfy',
    verification({ type: 'self_review', command: 'x' }),
    [['VERIFICATION_SHAPE', `${V}.reviewed`]],
  ],
  ['self_review satisfied', verification({ type: 'self_review', reviewed: 'the diff' }), []],
  ...['manual', 'observation', 'oracle', 'test'].map((t): Row => [
    `${t} with nothing`,
    verification({ type: t, method: 'looked', details: 'x', checks: ['a'] }),
    [['VERIFICATION_SHAPE', V]],
  ]),
  ['unknown word with requires_human', verification({ type: 'oracle', requires_human: 'yes' }), []],
  ['only method declares no type', verification({ method: 'ran the tests' }), []],
  [
    'companion check on every valid state',
    verification({ type: 'command' }, blocked),
    [['VERIFICATION_SHAPE', `${V}.command`]],
  ],
  // RECEIPT_REF_SHAPE
  ['receipt valid', verification({ receipt: 'R-0123456789abcdef', receipts: ['R-0123456789abcdef'] }), []],
  ['receipt null and receipts null cite nothing', verification({ receipt: null, receipts: null }), []],
  ...[5, '', ' R-0123456789abcdef', 'R-0123456789abcdef\n', 'R-0123456789abcde', ['R-0123456789abcdef']].map(
    (r): Row => [`receipt ${JSON.stringify(r)}`, verification({ receipt: r }), [['RECEIPT_REF_SHAPE', `${V}.receipt`]]],
  ),
  ...['R-0123456789abcdef', {}, []].map((r): Row => [
    `receipts ${JSON.stringify(r)}`,
    verification({ receipts: r }),
    [['RECEIPT_REF_SHAPE', `${V}.receipts`]],
  ]),
  [
    'receipt refs checked on BLOCKED',
    verification({ receipts: [null] }, blocked),
    [['RECEIPT_REF_SHAPE', `${V}.receipts[0]`]],
  ],
  ...['', false, 0, 'x', [], ['a'], 5, true].map((f): Row => [
    `failure_report ${JSON.stringify(f)}`,
    failure(f),
    [['FAILURE_REPORT_SHAPE', 'failure_report']],
  ]),
  ['evidence [5, "x"] passes', failure({ attempted: 'a', symptom: 's', evidence: [5, 'x'] }), []],
  ...[undefined, null, 'x', [], ['', ' '], [5, null], {}].map((ev): Row => [
    `evidence ${JSON.stringify(ev)}`,
    failure({ attempted: 'a', symptom: 's', evidence: ev }),
    [['FAILURE_REPORT_SHAPE', 'failure_report.evidence']],
  ]),
  ...['', 'warn', 'critical', 5, ['error']].map((s): Row => [
    `severity ${JSON.stringify(s)}`,
    failure({ attempted: 'a', symptom: 's', evidence: ['e'], severity: s }),
    [['FAILURE_REPORT_SHAPE', 'failure_report.severity']],
  ]),
  [
    'attempted and symptom non-strings',
    failure({ attempted: 5, symptom: ' ', evidence: ['e'], component: 7, extra: 1 }),
    [
      ['FAILURE_REPORT_SHAPE', 'failure_report.attempted'],
      ['FAILURE_REPORT_SHAPE', 'failure_report.symptom'],
    ],
  ],
  [
    'every sub-field at once',
    failure({ severity: 'x' }),
    [
      ['FAILURE_REPORT_SHAPE', 'failure_report.attempted'],
      ['FAILURE_REPORT_SHAPE', 'failure_report.symptom'],
      ['FAILURE_REPORT_SHAPE', 'failure_report.evidence'],
      ['FAILURE_REPORT_SHAPE', 'failure_report.severity'],
    ],
  ],
  ...['', '   ', 5, true, [], {}, 'done', 'IN_PROGRESS', 'investigating.', 'coding'].map((p): Row => [
    `work_phase ${JSON.stringify(p)}`,
    phase(p),
    [['WORK_PHASE_SHAPE', 'work_phase']],
  ]),
  ...['framing', 'investigating', 'planning', 'executing', 'verifying', 'PLANNING'].map((p): Row => [
    `work_phase ${p}`,
    phase(p),
    [],
  ]),
  ...['HEAD', 'main', 'abcdef', 'a'.repeat(65), 'abcdefg', ''].map((c): Row => [
    `commit ${JSON.stringify(c)}`,
    files([{ path: 'src/a.ts', commit: c }]),
    [['FILE_REFERENCE_SHAPE', `${FC}[0].commit`]],
  ]),
  ...['abcdef0', 'f'.repeat(64), ' ABCDEF0 '].map((c): Row => [
    `commit ${JSON.stringify(c)} valid`,
    files([{ path: 'src/a.ts', commit: c }]),
    [],
  ]),
  ['non-object elements are never inspected', files(['x', 5, true, null, [{}]]), []],
  [
    'extras in key order, after path and commit',
    files(['x', { z: 1, path: '', a: 2, commit: 'abcdef0' }]),
    [
      ['FILE_REFERENCE_SHAPE', `${FC}[1].path`],
      ['FILE_REFERENCE_SHAPE', `${FC}[1].z`],
      ['FILE_REFERENCE_SHAPE', `${FC}[1].a`],
    ],
  ],
  [
    'files_checked before FILES_CHECKED',
    env((e) => {
      e.evidence_report.FILES_CHECKED = [{ path: 'p', commit: 'x' }];
      e.evidence_report.files_checked = [{ path: 5, commit: 'abcdef0' }];
    }),
    [
      ['FILE_REFERENCE_SHAPE', `${FC}[0].path`],
      ['FILE_REFERENCE_SHAPE', 'evidence_report.FILES_CHECKED[0].commit'],
    ],
  ],
  ['FILES_CHECKED non-array is ignored', env((e) => (e.evidence_report.FILES_CHECKED = { path: 1 })), []],
  ['marked closed, block null', consolidation(null), [['CONSOLIDATION_REPORT_SHAPE', 'consolidation_report']], MARKED],
  ['marked closed, block {}', consolidation({}), [['CONSOLIDATION_REPORT_SHAPE', 'consolidation_report']], MARKED],
  [
    'marked closed, block absent',
    env((e) => delete e.consolidation_report, blocked),
    [['CONSOLIDATION_REPORT_SHAPE', 'consolidation_report']],
    MARKED,
  ],
  ['marked IN_PROGRESS is not checked', consolidation(null, inProgress), [], MARKED],
  ['marked, state none is not checked', consolidation(null, () => withState('NOPE')), [['PLAN_STATUS', ST]], MARKED],
  ['unmarked closed is open', consolidation({ anything: 1 }), []],
  ['consolidation option must be true', consolidation(null), [], { consolidation: 'yes' }],
  [
    'marked complete block',
    consolidation({ ...fullConsolidation(), ownership_assessment: ' Not_My_Surface ', extra: 1 }),
    [],
    MARKED,
  ],
  ['next_best_agent a name', consolidation({ ...fullConsolidation(), next_best_agent: 'verifier' }), [], MARKED],
  [
    'every sub-field bad',
    consolidation({ ownership_assessment: 'mine', confirmed_findings: 'x', conflicts: null, next_best_agent: ' ' }),
    [
      ['CONSOLIDATION_REPORT_SHAPE', 'consolidation_report.ownership_assessment'],
      ['CONSOLIDATION_REPORT_SHAPE', 'consolidation_report.confirmed_findings'],
      ['CONSOLIDATION_REPORT_SHAPE', 'consolidation_report.suspected_findings'],
      ['CONSOLIDATION_REPORT_SHAPE', 'consolidation_report.conflicts'],
      ['CONSOLIDATION_REPORT_SHAPE', 'consolidation_report.open_gaps'],
      ['CONSOLIDATION_REPORT_SHAPE', 'consolidation_report.next_best_agent'],
    ],
    MARKED,
  ],
  [
    'consolidation after approval block',
    env((e) => {
      e.approval_request = null;
      e.consolidation_report = null;
    }, approval),
    [
      ['APPROVAL_REQUEST_SHAPE', 'approval_request'],
      ['CONSOLIDATION_REPORT_SHAPE', 'consolidation_report'],
    ],
    MARKED,
  ],
  // Approval
  [
    'approval_request {} on APPROVAL_REQUEST',
    env((e) => (e.approval_request = {}), approval),
    [['APPROVAL_REQUEST_SHAPE', 'approval_request']],
  ],
  [
    'approval exact_content missing',
    env((e) => (e.approval_request = { approval_id: 'x' }), approval),
    [['APPROVAL_REQUEST_SHAPE', 'approval_request.exact_content']],
  ],
];

const workedExamples: Row[] = [
  [
    'COMPLETE on the seed',
    withState('COMPLETE'),
    [
      ['COMPLETE_SHAPE', NA],
      ['VERIFICATION_RESULT', V],
    ],
  ],
  [
    'root findings, status, key_outputs',
    env((e) => {
      e.findings = [];
      e.status = 'x';
      e.key_outputs = [];
    }),
    [
      ['UNKNOWN_FIELD', 'findings'],
      ['UNKNOWN_FIELD', 'status'],
      ['MISPLACED_KEY', 'key_outputs'],
    ],
  ],
  [
    'agent_status {foo: 1}',
    env((e) => (e.agent_status = { foo: 1 })),
    [
      ['UNKNOWN_FIELD', 'agent_status.foo'],
      ['MISSING_FIELD', ST],
      ['MISSING_FIELD', ID],
      ['MISSING_FIELD', PS],
      ['MISSING_FIELD', NA],
    ],
  ],
  ['self BOM review', verification({ type: 'self\ufeffreview' }), [['VERIFICATION_SHAPE', `${V}.reviewed`]]],
  ['agent_id with trailing newline', agentId('a1b2c30f1e2d3c4b5\n'), [['AGENT_ID_FORMAT', ID]]],
  ['next_action U+001C', env((e) => (e.agent_status.next_action = '\u001c')), []],
  [
    'BOGUS + failure_report {} + HEAD commit',
    env((e) => {
      e.agent_status.agent_state = 'BOGUS';
      e.failure_report = {};
      e.evidence_report.files_checked = [{ commit: 'HEAD' }];
    }),
    [
      ['PLAN_STATUS', ST],
      ['FAILURE_REPORT_SHAPE', 'failure_report.attempted'],
      ['FAILURE_REPORT_SHAPE', 'failure_report.symptom'],
      ['FAILURE_REPORT_SHAPE', 'failure_report.evidence'],
      ['FILE_REFERENCE_SHAPE', `${FC}[0].path`],
      ['FILE_REFERENCE_SHAPE', `${FC}[0].commit`],
    ],
  ],
  [
    'APPROVAL_REQUEST, null block, self_review',
    env((e) => {
      e.approval_request = null;
      e.evidence_report.verification = { type: 'self_review' };
    }, approval),
    [
      ['VERIFICATION_SHAPE', `${V}.reviewed`],
      ['APPROVAL_REQUEST_SHAPE', 'approval_request'],
    ],
  ],
  [
    'marked COMPLETE, partial report',
    consolidation({ ownership_assessment: 'Owned_Here', confirmed_findings: [] }, complete),
    ['suspected_findings', 'conflicts', 'open_gaps', 'next_best_agent'].map((k): [string, string] => [
      'CONSOLIDATION_REPORT_SHAPE',
      `consolidation_report.${k}`,
    ]),
    MARKED,
  ],
  ['same, unmarked', consolidation({ ownership_assessment: 'Owned_Here', confirmed_findings: [] }, complete), []],
  [
    'receipt upper-case hex and empty receipts',
    verification({ type: 'command', command: 'npm test', receipt: 'R-0123456789ABCDEF', receipts: [] }),
    [
      ['RECEIPT_REF_SHAPE', `${V}.receipt`],
      ['RECEIPT_REF_SHAPE', `${V}.receipts`],
    ],
  ],
  [
    'receipts elements',
    verification({ receipts: ['r-0123456789abcdef', 7, 'R-0123456789abcdef'] }),
    [
      ['RECEIPT_REF_SHAPE', `${V}.receipts[0]`],
      ['RECEIPT_REF_SHAPE', `${V}.receipts[1]`],
    ],
  ],
];

describe.each([
  ['value semantics', valueSemantics],
  ['envelope and vocabulary', envelopeAndVocabulary],
  ['suppression and stacking', suppression],
  ['sub-rules', subRules],
  ['worked examples', workedExamples],
])('%s', (_title, rows) => {
  it.each(rows)('%s', (_name, envelope, expected, options) => {
    const result = validateEnvelope(envelope, options ?? {});
    expect(pairs(result)).toEqual(expected);
    expect(result.ok).toBe(expected.length === 0);
  });
});
