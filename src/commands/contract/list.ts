/** `handoff contract list`. Never creates the store; an absent file is an empty list. */
import * as Flags from '@oclif/core/flags';
import { generatedUsage } from '../../cli/usage.js';
import { HandoffCommand } from '../../cli/base-command.js';
import type { CommandContext, CommandResult } from '../../cli/command.js';
import { checkedText, type FlagsOf } from '../../cli/flags.js';
import { afterOf, pageFlags, pageFooter, pageJson, pageRequest, storePage } from '../../cli/page.js';
import { durationFlag, nonBlank, rowStateFlag, timeFlag } from '../../cli/list-flags.js';
import { checkPlanTaskId, checkPositiveInt } from '../../dispatch/options.js';
import { jsonQuote, usage } from '../../errors.js';
import { checkAgentId, checkDraftId } from '../../ids.js';
import { renderTable } from '../../render/table.js';
import type { HandoffRow } from '../../store/handoff-row.js';

const CUT_REASONS = ['never_finalized', 'backstop_capture'];
/** `--cut` takes an optional value: a bare `--cut` is rewritten to this (NUL never occurs in a real argument). */
const BARE_CUT = '\u0000';

export default class ContractList extends HandoffCommand {
  static override summary = 'List handoff rows';
  static override description =
    "Lists handoff rows of the store, newest first, filtered by any combination of the flags (exact matches; --since/--until compare UTC time prefixes). --cut lists rows whose turn ended without a finalized contract: bare for any cut row, or one cut_reason; a DISPATCHED row counts as cut once it is older than --stale-after or the gate has seen its turn end. --with-envelope adds each row's stored envelope to the --json output. Reads only; a missing store lists nothing.";
  static override flags = {
    'agent-id': Flags.string({ helpValue: 'ID', description: 'Only rows of this agent' }),
    // Case-insensitive (written upper case), so its values are checked by the parse rather than by oclif's options.
    state: checkedText((raw) => rowStateFlag(raw) as string, {
      helpValue: 'STATE',
      description: 'Only rows in this state (any of the seven row states)',
    }),
    'contract-id': Flags.string({ helpValue: 'ID', description: 'Only the row of this contract' }),
    'harness-id': Flags.string({ helpValue: 'HID', description: 'Only rows claimed by this harness run id' }),
    workspace: Flags.string({ helpValue: 'NAME', description: 'Only rows of this workspace' }),
    kind: Flags.string({ helpValue: 'KIND', description: 'Only rows of this dispatch kind' }),
    'plan-task-id': Flags.string({ helpValue: 'ID', description: 'Only rows bound to this plan task' }),
    'parent-handoff-id': Flags.string({ helpValue: 'N', description: 'Only rows whose parent is this handoff id' }),
    cut: Flags.string({
      helpValue: '[REASON]',
      description:
        'Only cut rows (bare), or those with this cut_reason; a DISPATCHED row is cut once stale or seen by the gate',
    }),
    'stale-after': Flags.string({
      helpValue: 'DURATION',
      description: 'A DISPATCHED row not written for this long is cut, not running (30m, 2h, 1d; default 2h)',
    }),
    since: checkedText((raw) => timeFlag(raw, '--since') as string, {
      helpValue: 'ISO',
      description: 'Created at or after (YYYY-MM-DD[THH:MM[:SS[.sss]]][Z])',
    }),
    until: checkedText((raw) => timeFlag(raw, '--until') as string, {
      helpValue: 'ISO',
      description: 'Created up to and including this prefix',
    }),
    ...pageFlags('rows'),
    'with-envelope': Flags.boolean({ description: "Include each row's stored envelope (--json)" }),
    json: Flags.boolean({ description: 'Print one JSON object' }),
  };
  static override preprocess = (argv: string[]): string[] =>
    argv.map((a, i) => {
      if (a !== '--cut') return a;
      const next = argv[i + 1];
      return next === undefined || next.startsWith('-') ? `--cut=${BARE_CUT}` : a;
    });
  static override examples = [
    'handoff contract list --agent-id a0123456789abcdef',
    'handoff contract list --state COMPLETE --limit 5 --json',
    'handoff contract list --cut',
    'handoff contract list --cut --stale-after 30m --json',
  ];
  static override usage = generatedUsage(this);

  protected async perform(ctx: CommandContext<FlagsOf<typeof ContractList>>): Promise<CommandResult> {
    const f = ctx.flags;
    const cutFlag = f.cut;
    if (cutFlag !== undefined && cutFlag !== BARE_CUT && !CUT_REASONS.includes(cutFlag)) {
      throw usage(`--cut ${jsonQuote(cutFlag)} must be never_finalized or backstop_capture (or bare: any cut row)`);
    }
    const req = pageRequest(f);
    const filters = {
      agent_id: checkAgentId(f['agent-id']),
      contract_id: checkDraftId(f['contract-id'], '--contract-id'),
      agent_state: f.state,
      harness_id: nonBlank(f['harness-id'], '--harness-id'),
      workspace: nonBlank(f.workspace, '--workspace'),
      kind: nonBlank(f.kind, '--kind'),
      plan_task_id: checkPlanTaskId(f['plan-task-id']),
      parent_handoff_id: checkPositiveInt(f['parent-handoff-id'], '--parent-handoff-id'),
      cut: cutFlag === undefined ? undefined : cutFlag === BARE_CUT ? (true as const) : cutFlag,
      since: f.since,
      until: f.until,
      limit: req.fetch,
      after: afterOf('handoff', req.cursor),
      stale_before: new Date(Date.now() - durationFlag(f['stale-after'], '--stale-after', '2h')).toISOString(),
    };
    const withEnvelope = f['with-envelope'] === true;

    const { withStore } = await import('../../store/open-store.js');
    const [fetched, total] = await withStore<[HandoffRow[], number | undefined]>(
      ctx.env,
      ctx.cwd,
      'reader',
      async (s) => [await s.listHandoffs(filters), req.total ? await s.countHandoffs(filters) : undefined],
      () => [[], req.total ? 0 : undefined],
    );
    const page = storePage('handoff', req, fetched);
    const rows = page.rows;
    const { livenessOf } = await import('../../store/handoff-list.js');
    const { exposeHandoff } = await import('../../store/handoff-row.js');
    const text =
      rows.length === 0
        ? `No handoffs matched.${total === undefined ? '' : ` ${pageFooter(page, total)}`}`
        : `${renderTable(
            [
              'id',
              'created_at',
              'agent_id',
              'agent_state',
              'cut_reason',
              'kind',
              'plan_task_id',
              'parent_handoff_id',
              'contract_id',
            ],
            rows.map((r) => [
              r.id,
              r.created_at,
              r.agent_id,
              r.agent_state,
              // A running dispatched row reads as the JSON's liveness says, not as its stored cut_reason.
              livenessOf(r, filters.stale_before) === 'running' ? 'running' : r.cut_reason,
              r.kind,
              r.plan_task_id,
              r.parent_handoff_id,
              r.contract_id,
            ]),
          )}\n${pageFooter(page, total)}`;
    return {
      json: {
        status: 'ok',
        ...pageJson(page, total),
        handoffs: rows.map((r) => ({
          ...exposeHandoff(r, withEnvelope),
          liveness: livenessOf(r, filters.stale_before),
        })),
      },
      text,
    };
  }
}
