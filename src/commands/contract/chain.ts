/** `handoff contract chain`: the whole continuation chain of a contract, root → tip. */
import * as Flags from '@oclif/core/flags';
import { generatedUsage } from '../../cli/usage.js';
import { HandoffCommand } from '../../cli/base-command.js';
import type { CommandContext, CommandResult } from '../../cli/command.js';
import { contractIdFrom } from '../../drafts/cli-flags.js';
import { HandoffError } from '../../errors.js';
import { chainDiff } from '../../render/chain-diff.js';
import { renderTable } from '../../render/table.js';
import { exposeTestChanges } from '../../store/handoff-row.js';
import type { HandoffRow } from '../../store/handoffs.js';

const rowNotFound = (id: string): HandoffError =>
  new HandoffError(
    'ROW_NOT_FOUND',
    `no handoff row for ${id}; a draft gets a row when it is finalized or dispatched (see handoff contract list)`,
    { contract_id: id },
  );

export default class ContractChain extends HandoffCommand {
  static override summary = 'Show a continuation chain';
  static override description =
    'Shows the continuation chain that a contract belongs to: every row from the first contract to the live tip, linked by continues_handoff_id, and which contract is live now. --diff shows each step as the RFC 7396 merge patch that turns the previous envelope into the next (the first step starts from {}), with the paths whose new value is null listed apart, since a merge patch cannot express a null value.';
  static override oneOf = [['contract-id', 'draft-id']];
  static override flags = {
    'contract-id': Flags.string({ helpValue: 'ID', description: 'Any contract id of the chain' }),
    'draft-id': Flags.string({ exclusive: ['contract-id'], helpValue: 'ID', description: 'Same as --contract-id' }),
    diff: Flags.boolean({ description: 'Show each step as the RFC 7396 merge patch from the previous envelope' }),
    json: Flags.boolean({ description: 'Print one JSON object' }),
  };
  static override examples = [
    'handoff contract chain --contract-id a0123456789abcdef.0123456789ab',
    'handoff contract chain --contract-id a0123456789abcdef.0123456789ab --diff --json',
  ];
  static override usage = generatedUsage(this);

  protected async perform(ctx: CommandContext): Promise<CommandResult> {
    const id = contractIdFrom(ctx.flags, 'pass exactly one of --contract-id and --draft-id');
    const { withStore } = await import('../../store/open-store.js');
    const chain = await withStore(
      ctx.env,
      ctx.cwd,
      'reader',
      async (s) => {
        const row = await s.getHandoffByContractId(id);
        if (row === undefined) throw rowNotFound(id);
        return s.wholeChain(row);
      },
      () => {
        throw rowNotFound(id);
      },
    );
    if (ctx.flags.diff === true) return renderDiff(chain);
    const tip = chain[chain.length - 1];
    const links = chain.map((r, i) => ({
      link: i + 1,
      id: r.id,
      contract_id: r.contract_id,
      agent_state: r.agent_state,
      cut_reason: r.cut_reason,
      created_at: r.created_at,
      continues_handoff_id: r.continues_handoff_id,
      ...testChangesOf(r),
    }));
    const table = renderTable(
      ['link', 'id', 'contract_id', 'agent_state', 'cut_reason', 'created_at', 'continues_handoff_id'],
      links.map((l) => [
        l.link,
        l.id,
        l.contract_id,
        l.agent_state,
        l.cut_reason,
        l.created_at,
        l.continues_handoff_id,
      ]),
    );
    return {
      json: { status: 'ok', contract_id: id, live_contract_id: tip.contract_id, links: chain.length, chain: links },
      text: `${table}\n${chain.length} link(s); the live contract is ${tip.contract_id}.`,
    };
  }
}

/** What finalize detected in the link's test files beside what it declared. */
function testChangesOf(r: HandoffRow): { test_changes: unknown; test_changes_declared: unknown } {
  const { test_changes, test_changes_declared } = exposeTestChanges(r);
  return { test_changes, test_changes_declared };
}

function renderDiff(chain: HandoffRow[]): CommandResult {
  const envelopes = chain.map((r) => parseStoredEnvelope(r.raw_handoff_json));
  const steps = chainDiff(chain, envelopes);
  const text = steps
    .map((s, i) => {
      const nulls = s.null_paths.length === 0 ? '' : `\nset to null: ${s.null_paths.join(', ')}`;
      return `step ${i + 1}: handoff_id=${s.handoff_id} contract_id=${s.contract_id}\n${JSON.stringify(s.patch, null, 2)}${nulls}`;
    })
    .join('\n\n');
  return { json: { status: 'ok', steps }, text };
}

/** A stored envelope (the column holds valid JSON: a CHECK constraint); anything unreadable diffs as {}. */
function parseStoredEnvelope(json: string): unknown {
  try {
    return JSON.parse(json) as unknown;
  } catch {
    return {};
  }
}
