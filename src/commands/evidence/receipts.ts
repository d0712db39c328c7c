import { defineCommand } from '../../cli/command.js';
import { contractIdFrom } from '../../drafts/cli-flags.js';

const USAGE = 'handoff evidence receipts (--draft-id ID | --contract-id ID) [--json]';

export default defineCommand({
  id: 'evidence receipts',
  summary: "List the receipts of a contract's chain",
  usage: USAGE,
  description:
    "Lists every receipt recorded for the contract's whole continuation chain, newest first. Without a store the list is empty.",
  flags: {
    'draft-id': { type: 'string', valueName: 'ID', description: 'The contract (draft) id' },
    'contract-id': { type: 'string', valueName: 'ID', description: 'Same as --draft-id' },
    json: { type: 'boolean', description: 'Print one JSON object' },
  },
  async run(ctx) {
    const id = contractIdFrom(ctx.flags, 'pass exactly one of --draft-id and --contract-id');
    const { receiptsOfChain } = await import('../../receipts/read.js');
    const { receiptJson } = await import('../../receipts/row.js');
    const { renderTable, cut } = await import('../../render/table.js');
    const rows = receiptsOfChain(ctx.env, ctx.cwd, id);
    const table = renderTable(
      ['receipt_id', 'started_at', 'outcome', 'exit_code', 'duration_ms', 'command'],
      rows.map((r) => [r.receipt_id, r.started_at, r.outcome, r.exit_code, r.duration_ms, cut(r.command, 60)]),
    );
    return {
      json: { status: 'ok', count: rows.length, contract_id: id, receipts: rows.map(receiptJson) },
      text: `${rows.length > 0 ? `${table}\n` : ''}${rows.length} receipt(s).`,
    };
  },
});
