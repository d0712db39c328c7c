import type { CommandDefinition } from './command.js';

/**
 * The explicit command table: a verb's module is imported only when that verb runs, so start-up loads nothing
 * the verb does not need. Summaries live here too, so `handoff --help` loads no command module.
 */
type Loader = () => Promise<{ default: CommandDefinition }>;

export const COMMANDS: Record<string, { summary: string; load: Loader }> = {
  'contract init': { summary: 'Start a new draft envelope', load: () => import('../commands/contract/init.js') },
  'contract set': { summary: 'Set one field of the draft (replaces lists)', load: () => import('../commands/contract/set.js') },
  'contract add': { summary: 'Append one entry to a list of the draft', load: () => import('../commands/contract/add.js') },
  'contract fill': { summary: 'Merge a JSON patch into the draft (fills empty lists only)', load: () => import('../commands/contract/fill.js') },
  'contract view': { summary: 'Show the draft or one field of it', load: () => import('../commands/contract/view.js') },
  'contract validate': { summary: 'Validate a draft or a JSON file without writing', load: () => import('../commands/contract/validate.js') },
  'contract finalize': { summary: 'Persist the draft in a closing state into the store', load: () => import('../commands/contract/finalize.js') },
  'contract list': { summary: 'List handoff rows', load: () => import('../commands/contract/list.js') },
  'contract chain': { summary: 'Show a continuation chain', load: () => import('../commands/contract/chain.js') },
  'contract gc': { summary: 'Remove aged and spent draft files', load: () => import('../commands/contract/gc.js') },
  'contract dispatch': { summary: 'Open a contract for an agent before it runs', load: () => import('../commands/contract/dispatch.js') },
  'contract claim': { summary: 'Tie a harness run id to a contract', load: () => import('../commands/contract/claim.js') },
  'contract gate': { summary: 'Stop hook: block a stop without a valid, finalized contract', load: () => import('../commands/contract/gate.js') },
  'contract verify': { summary: "Re-run the draft's verification command as a receipt", load: () => import('../commands/contract/verify.js') },
  'approval request': { summary: 'Request an approval for exact content', load: () => import('../commands/approval/request.js') },
  'approval decide': { summary: 'Decide a pending approval', load: () => import('../commands/approval/decide.js') },
  'approval list': { summary: 'List approvals', load: () => import('../commands/approval/list.js') },
  'brief add': { summary: 'Create or extend a brief with acceptance criteria', load: () => import('../commands/brief/add.js') },
  'brief list': { summary: 'List briefs of the workspace', load: () => import('../commands/brief/list.js') },
  'brief show': { summary: 'Show one brief', load: () => import('../commands/brief/show.js') },
  'evidence add': { summary: 'Deposit evidence for an acceptance criterion', load: () => import('../commands/evidence/add.js') },
  'evidence list': { summary: 'List evidence of a brief', load: () => import('../commands/evidence/list.js') },
  'evidence show': { summary: 'Show (and verify) one evidence row or receipt', load: () => import('../commands/evidence/show.js') },
  'evidence orphans': { summary: 'Find blobs no row references', load: () => import('../commands/evidence/orphans.js') },
  'evidence run': { summary: 'Run a command and record an immutable receipt', load: () => import('../commands/evidence/run.js') },
  'evidence receipts': { summary: "List the receipts of a contract's chain", load: () => import('../commands/evidence/receipts.js') },
};

/** Imports one verb's module (src/commands/<topic>/<verb>.ts) only when that verb runs. */
export async function loadCommand(id: string): Promise<CommandDefinition> {
  return (await COMMANDS[id].load()).default;
}
