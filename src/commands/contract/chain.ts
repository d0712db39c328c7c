/** `handoff contract chain` (store-and-finalize.md §8.4): the whole continuation chain of a contract, root → tip. */
import { defineCommand } from '../../cli/command.js';
import { contractIdFrom } from '../../drafts/cli-flags.js';
import { EXIT, HandoffError } from '../../errors.js';
import { storeExists } from '../../paths.js';
import { renderTable } from '../../render/table.js';

const rowNotFound = (id: string): HandoffError =>
  new HandoffError(
    'ROW_NOT_FOUND',
    EXIT.NOT_FOUND,
    `no handoff row for ${id}; a draft gets a row when it is finalized or dispatched (see handoff contract list)`,
    { contract_id: id },
  );

export default defineCommand({
  id: 'contract chain',
  summary: 'Show a continuation chain',
  usage: 'handoff contract chain (--contract-id ID | --draft-id ID) [--json]',
  flags: {
    'contract-id': { type: 'string', valueName: 'ID', description: 'Any contract id of the chain' },
    'draft-id': { type: 'string', valueName: 'ID', description: 'Same as --contract-id' },
    json: { type: 'boolean', description: 'Print one JSON object' },
  },
  async run(ctx) {
    const id = contractIdFrom(
      ctx.flags,
      'pass exactly one of --contract-id and --draft-id',
    );
    if (!storeExists(ctx.env, ctx.cwd)) throw rowNotFound(id);

    const { openReader, closeDb } = await import('../../store/db.js');
    const { getHandoffByContractId, wholeChain } = await import('../../store/handoffs.js');
    const db = openReader(ctx.env, ctx.cwd);
    if (db === null) throw rowNotFound(id);
    let chain;
    try {
      const row = getHandoffByContractId(db, id);
      if (row === undefined) throw rowNotFound(id);
      chain = wholeChain(db, row);
    } finally {
      closeDb(db);
    }
    const tip = chain[chain.length - 1];
    const links = chain.map((r, i) => ({
      link: i + 1,
      id: r.id,
      contract_id: r.contract_id,
      agent_state: r.agent_state,
      cut_reason: r.cut_reason,
      created_at: r.created_at,
      continues_handoff_id: r.continues_handoff_id,
    }));
    const table = renderTable(
      ['link', 'id', 'contract_id', 'agent_state', 'cut_reason', 'created_at', 'continues_handoff_id'],
      links.map((l) => [l.link, l.id, l.contract_id, l.agent_state, l.cut_reason, l.created_at, l.continues_handoff_id]),
    );
    return {
      json: { status: 'ok', contract_id: id, live_contract_id: tip.contract_id, links: chain.length, chain: links },
      text: `${table}\n${chain.length} link(s); the live contract is ${tip.contract_id}.`,
    };
  },
});
