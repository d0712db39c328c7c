import * as Flags from '@oclif/core/flags';
import { generatedUsage } from '../../cli/usage.js';
import { HandoffCommand } from '../../cli/base-command.js';
import type { CommandContext, CommandResult } from '../../cli/command.js';
import { contractIdFrom } from '../../drafts/cli-flags.js';

export default class EvidenceReceipts extends HandoffCommand {
  static override summary = "List the receipts of a contract's chain";
  static override description =
    "Lists every receipt recorded for the contract's whole continuation chain, newest first. Without a store the list is empty.";
  static override oneOf = [['draft-id', 'contract-id']];
  static override flags = {
    'draft-id': Flags.string({ helpValue: 'ID', description: 'The contract (draft) id' }),
    'contract-id': Flags.string({ exclusive: ['draft-id'], helpValue: 'ID', description: 'Same as --draft-id' }),
    json: Flags.boolean({ description: 'Print one JSON object' }),
  };
  static override examples = [
    'handoff evidence receipts --draft-id a0123456789abcdef.0123456789ab',
    'handoff evidence receipts --contract-id a0123456789abcdef.0123456789ab --json',
  ];
  static override usage = generatedUsage(this);

  protected async perform(ctx: CommandContext): Promise<CommandResult> {
    const id = contractIdFrom(ctx.flags, 'pass exactly one of --draft-id and --contract-id');
    const { receiptsOfChain } = await import('../../receipts/read.js');
    const { receiptJson } = await import('../../receipts/row.js');
    const { renderTable, cut } = await import('../../render/table.js');
    const rows = await receiptsOfChain(ctx.env, ctx.cwd, id);
    const table = renderTable(
      ['receipt_id', 'started_at', 'outcome', 'exit_code', 'duration_ms', 'command'],
      rows.map((r) => [r.receipt_id, r.started_at, r.outcome, r.exit_code, r.duration_ms, cut(r.command, 60)]),
    );
    return {
      json: { status: 'ok', count: rows.length, contract_id: id, receipts: rows.map(receiptJson) },
      text: `${rows.length > 0 ? `${table}\n` : ''}${rows.length} receipt(s).`,
    };
  }
}
