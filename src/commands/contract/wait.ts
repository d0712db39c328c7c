/** `handoff contract wait`: blocks until the chain's live tip closes; the exit says how (src/codes/wait-exits.ts). */
import * as Flags from '@oclif/core/flags';
import { generatedUsage } from '../../cli/usage.js';
import { HandoffCommand } from '../../cli/base-command.js';
import type { CommandContext, CommandResult } from '../../cli/command.js';
import { durationFlag } from '../../cli/list-flags.js';
import { usage } from '../../errors.js';
import { checkDraftId } from '../../ids.js';

export default class ContractWait extends HandoffCommand {
  static override summary = 'Wait until a contract closes';
  static override description =
    "Blocks until the live tip of the contract's continuation chain closes, reading the store with backoff (100 ms growing to 2 s), and exits by how it closed: 0 COMPLETE, 10 NEEDS_VERIFICATION, 11 BLOCKED, 12 NEEDS_INPUT, 13 APPROVAL_REQUEST, 14 closed degraded (the stop gate captured the turn unfinalized), 124 when --timeout passes first; 3 when the contract has no row, 4 on a store error. Reads only.";
  static override flags = {
    'contract-id': Flags.string({ helpValue: 'ID', description: 'Any contract id of the chain', required: true }),
    timeout: Flags.string({
      helpValue: 'DURATION',
      description: 'Give up after this long (30s, 10m, 2h, 1d; default 10m)',
    }),
    json: Flags.boolean({ description: 'Print one JSON object' }),
  };
  static override examples = [
    'handoff contract wait --contract-id a0123456789abcdef.0123456789ab',
    'handoff contract wait --contract-id a0123456789abcdef.0123456789ab --timeout 30m --json',
  ];
  static override usage = generatedUsage(this);

  protected async perform(ctx: CommandContext): Promise<CommandResult> {
    const raw = ctx.flags['contract-id'] as string | undefined;
    const contractId = checkDraftId(raw, '--contract-id');
    if (contractId === undefined) throw usage('--contract-id is required');
    const timeoutMs = durationFlag(ctx.flags.timeout as string | undefined, '--timeout', '10m');
    const { waitForTip } = await import('../../wait/service.js');
    const { WAIT_TIMEOUT_EXIT } = await import('../../codes/wait-exits.js');
    const w = await waitForTip({ env: ctx.env, cwd: ctx.cwd, contractId, timeoutMs });
    const fields = {
      contract_id: contractId,
      live_contract_id: w.tip.contract_id,
      agent_state: w.tip.agent_state,
      cut_reason: w.tip.cut_reason,
      polls: w.polls,
      waited_ms: w.waitedMs,
    };
    if (!w.closed) {
      return {
        exit: WAIT_TIMEOUT_EXIT,
        json: { status: 'timeout', ...fields },
        text: `${w.tip.contract_id} is still ${w.tip.agent_state} after ${Math.round(w.waitedMs / 1000)}s: timed out (exit ${WAIT_TIMEOUT_EXIT}).`,
      };
    }
    const how = w.exit === 14 ? 'closed degraded (captured unfinalized)' : `closed ${w.tip.agent_state}`;
    return {
      exit: w.exit,
      json: { status: 'ok', ...fields, exit: w.exit },
      text: `${w.tip.contract_id} ${how} (exit ${w.exit}).`,
    };
  }
}
