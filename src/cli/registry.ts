import type { CommandDefinition } from './command.js';

/**
 * The explicit command table: a verb's module is imported only when that verb runs, so start-up loads nothing
 * the verb does not need. Summaries live here too, so `handoff --help` loads no command module.
 */
export const COMMANDS: Record<string, { summary: string }> = {
  'contract init': { summary: 'Start a new draft envelope' },
  'contract set': { summary: 'Set one field of the draft (replaces lists)' },
  'contract add': { summary: 'Append one entry to a list of the draft' },
  'contract fill': { summary: 'Merge a JSON patch into the draft (fills empty lists only)' },
  'contract view': { summary: 'Show the draft or one field of it' },
  'contract validate': { summary: 'Validate a draft or a JSON file without writing' },
  'contract finalize': { summary: 'Persist the draft in a closing state into the store' },
  'contract list': { summary: 'List handoff rows' },
  'contract chain': { summary: 'Show a continuation chain' },
  'contract gc': { summary: 'Remove aged and spent draft files' },
  'contract dispatch': { summary: 'Open a contract for an agent before it runs' },
  'contract claim': { summary: 'Tie a harness run id to a contract' },
  'contract gate': { summary: 'Stop hook: block a stop without a valid, finalized contract' },
  'contract verify': { summary: "Re-run the draft's verification command as a receipt" },
  'approval request': { summary: 'Request an approval for exact content' },
  'approval decide': { summary: 'Decide a pending approval' },
  'approval list': { summary: 'List approvals' },
  'brief add': { summary: 'Create or extend a brief with acceptance criteria' },
  'brief list': { summary: 'List briefs of the workspace' },
  'brief show': { summary: 'Show one brief' },
  'evidence add': { summary: 'Deposit evidence for an acceptance criterion' },
  'evidence list': { summary: 'List evidence of a brief' },
  'evidence show': { summary: 'Show (and verify) one evidence row or receipt' },
  'evidence orphans': { summary: 'Find blobs no row references' },
  'evidence run': { summary: 'Run a command and record an immutable receipt' },
  'evidence receipts': { summary: "List the receipts of a contract's chain" },
};

/** Imports one verb's module (src/commands/<topic>/<verb>.ts) only when that verb runs. */
export async function loadCommand(id: string): Promise<CommandDefinition> {
  const [topic, verb] = id.split(' ');
  const mod = (await import(`../commands/${topic}/${verb}.js`)) as { default: CommandDefinition };
  return mod.default;
}
