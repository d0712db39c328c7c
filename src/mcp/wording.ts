/**
 * An MCP client passes parameters, not flags: the messages a tool returns (the human text, notices, and the `error`
 * and `repair` of its object) name `explain: true`, `each: true`, `draft_id`, never `--explain` or `--draft-id`. The
 * verbs' texts are written for the command line; they are reworded here, on the way out, for the one tool called.
 * Text inside double quotes is a value being quoted back (a path, a field, an argument) and is never touched.
 */
import type { ToolInput } from './inputs.js';

/** Whole sentences of the command line that read differently for a tool. */
const PHRASES: readonly [string, string][] = [
  [
    'Run the same command with --explain for the full repair text',
    'Call the tool again with explain: true for the full repair text',
  ],
  [
    "Pass --each to append each element as its own entry, in order (to append an array as one entry, wrap it: --each '[[...]]'), or use `set` to replace the whole list.",
    'Pass each: true to append each element as its own entry, in order (to append an array as one entry, wrap it in one more array with each: true), or use contract_set to replace the whole list.',
  ],
  ['--each needs a JSON array VALUE', 'each: true needs an array value'],
  // The close of the repair text (explain: true): the write tools instead of the write verbs.
  [
    [
      'Write verbs:',
      '  handoff contract add FIELD VALUE      extends a list by one entry',
      "  handoff contract set FIELD VALUE      replaces a value; the way to correct or clear a list (set evidence_report.open_gaps '[]')",
      "  handoff contract fill --json '{...}'  merges a block and only fills empty lists; --json-file PATH for long prose",
    ].join('\n'),
    [
      'Write tools:',
      '  contract_add {field, value}   extends a list by one entry (each: true appends every element of an array value)',
      '  contract_set {field, value}   replaces a value; the way to correct or clear a list (value [])',
      '  contract_fill {patch}         merges a block and only fills empty lists',
    ].join('\n'),
  ],
  [
    `handoff contract fill --json '{"evidence_report":{"verification":{"type":"command","command":"<cmd>","result":"pass","receipt":"<receipt id>"}}}'`,
    'contract_fill {"patch":{"evidence_report":{"verification":{"type":"command","command":"<cmd>","result":"pass","receipt":"<receipt id>"}}}}',
  ],
  // The verification policy's hint (RECEIPT_REQUIRED): the tools that record a receipt.
  [
    'run the check with `handoff evidence run -- <cmd>` (or `handoff contract verify`)',
    'run the check with evidence_run (or contract_verify; both are served with `handoff mcp --allow-run`)',
  ],
  ['in one fill --json', 'in one contract_fill'],
  ['whole in one fill --json', 'whole in one contract_fill'],
];

/** The verbs an envelope tool is named after (`add` -> contract_add), as the messages cite them in backquotes. */
const VERB_TOOLS: Readonly<Record<string, string>> = {
  init: 'contract_init',
  set: 'contract_set',
  add: 'contract_add',
  fill: 'contract_fill',
  patch: 'contract_patch',
  view: 'contract_view',
  validate: 'contract_validate',
  finalize: 'contract_finalize',
};

const QUOTED = /("(?:[^"\\\n]|\\.)*")/;
const FLAG = /--([a-z][a-z0-9]*(?:-[a-z0-9]+)*)\b/g;
const VERB = /`(init|set|add|fill|patch|view|validate|finalize)`/g;
/** A whole command a message cites, when a tool does the same (`handoff contract init` -> contract_init). */
const COMMAND =
  /`handoff (contract|evidence|approval) (init|set|add|fill|patch|view|validate|finalize|list|chain|request|run|verify)`/g;
const TOOL_NAMES = new Set([
  ...Object.values(VERB_TOOLS),
  'contract_list',
  'contract_chain',
  'evidence_add',
  'evidence_list',
  'evidence_run',
  'contract_verify',
  'approval_request',
  'approval_list',
]);

/** The kind of each parameter of a tool: a boolean switch is named `name: true`, anything else by its name. */
export function parameterKinds(input: ToolInput): ReadonlyMap<string, 'switch' | 'value'> {
  const kinds = new Map<string, 'switch' | 'value'>();
  for (const [name, schema] of Object.entries(input._zod.def.shape)) {
    let def = schema._zod.def;
    while (def.type === 'optional') def = (def as unknown as { innerType: typeof schema }).innerType._zod.def;
    kinds.set(name, def.type === 'boolean' ? 'switch' : 'value');
  }
  return kinds;
}

/** `text` as a tool's caller should read it. */
export function reword(text: string, params: ReadonlyMap<string, 'switch' | 'value'>): string {
  let out = text;
  for (const [cli, mcp] of PHRASES) out = out.replaceAll(cli, mcp);
  return out
    .split(QUOTED)
    .map((part, i) => (i % 2 === 1 ? part : rewordFlags(part, params)))
    .join('');
}

function rewordFlags(part: string, params: ReadonlyMap<string, 'switch' | 'value'>): string {
  return part
    .replace(FLAG, (flag, name: string) => {
      const param = name.replaceAll('-', '_');
      const kind = params.get(param);
      if (kind === undefined) return flag;
      return kind === 'switch' ? `${param}: true` : param;
    })
    .replace(VERB, (_m, verb: string) => VERB_TOOLS[verb])
    .replace(COMMAND, (m, topic: string, verb: string) =>
      TOOL_NAMES.has(`${topic}_${verb}`) ? `${topic}_${verb}` : m,
    );
}
