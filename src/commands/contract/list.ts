/** `handoff contract list` (store-and-finalize.md §9). Never creates the store; an absent file is an empty list. */
import { defineCommand } from '../../cli/command.js';
import { durationFlag, limitFlag, nonBlank, rowStateFlag, timeFlag } from '../../cli/list-flags.js';
import { checkPlanTaskId, checkPositiveInt } from '../../dispatch/options.js';
import { jsonQuote, usage } from '../../errors.js';
import { checkAgentId, checkDraftId } from '../../ids.js';
import { storeExists } from '../../paths.js';
import { renderTable } from '../../render/table.js';

const CUT_REASONS = ['never_finalized', 'backstop_capture'];
/** `--cut` takes an optional value: a bare `--cut` is rewritten to this (NUL never occurs in a real argument). */
const BARE_CUT = '\u0000';

export default defineCommand({
  id: 'contract list',
  summary: 'List handoff rows',
  usage:
    'handoff contract list [--agent-id ID] [--state STATE] [--contract-id ID] [--harness-id HID] [--workspace NAME] [--kind KIND] [--plan-task-id ID] [--parent-handoff-id N] [--cut [REASON]] [--stale-after DURATION] [--since ISO] [--until ISO] [--limit N] [--with-envelope] [--json]',
  flags: {
    'agent-id': { type: 'string', valueName: 'ID', description: 'Only rows of this agent' },
    state: { type: 'string', valueName: 'STATE', description: 'Only rows in this state (any of the seven row states)' },
    'contract-id': { type: 'string', valueName: 'ID', description: 'Only the row of this contract' },
    'harness-id': { type: 'string', valueName: 'HID', description: 'Only rows claimed by this harness run id' },
    workspace: { type: 'string', valueName: 'NAME', description: 'Only rows of this workspace' },
    kind: { type: 'string', valueName: 'KIND', description: 'Only rows of this dispatch kind' },
    'plan-task-id': { type: 'string', valueName: 'ID', description: 'Only rows bound to this plan task' },
    'parent-handoff-id': { type: 'string', valueName: 'N', description: 'Only rows whose parent is this handoff id' },
    cut: { type: 'string', valueName: '[REASON]', description: 'Only cut rows (bare), or those with this cut_reason; a DISPATCHED row is cut once stale or seen by the gate' },
    'stale-after': { type: 'string', valueName: 'DURATION', description: 'A DISPATCHED row not written for this long is cut, not running (30m, 2h, 1d; default 2h)' },
    since: { type: 'string', valueName: 'ISO', description: 'Created at or after (YYYY-MM-DD[THH:MM[:SS[.sss]]][Z])' },
    until: { type: 'string', valueName: 'ISO', description: 'Created up to and including this prefix' },
    limit: { type: 'string', valueName: 'N', description: 'At most N rows, 1-1000 (default 20)' },
    'with-envelope': { type: 'boolean', description: 'Include each row\'s stored envelope (--json)' },
    json: { type: 'boolean', description: 'Print one JSON object' },
  },
  preprocess: (argv) =>
    argv.map((a, i) => {
      if (a !== '--cut') return a;
      const next = argv[i + 1];
      return next === undefined || next.startsWith('-') ? `--cut=${BARE_CUT}` : a;
    }),
  async run(ctx) {
    const f = ctx.flags as Record<string, string | boolean | undefined>;
    const str = (name: string): string | undefined => f[name] as string | undefined;
    const cutFlag = str('cut');
    if (cutFlag !== undefined && cutFlag !== BARE_CUT && !CUT_REASONS.includes(cutFlag)) {
      throw usage(`--cut ${jsonQuote(cutFlag)} must be never_finalized or backstop_capture (or bare: any cut row)`);
    }
    const filters = {
      agent_id: checkAgentId(str('agent-id')),
      contract_id: checkDraftId(str('contract-id'), '--contract-id'),
      agent_state: rowStateFlag(str('state')),
      harness_id: nonBlank(str('harness-id'), '--harness-id'),
      workspace: nonBlank(str('workspace'), '--workspace'),
      kind: nonBlank(str('kind'), '--kind'),
      plan_task_id: checkPlanTaskId(str('plan-task-id')),
      parent_handoff_id: checkPositiveInt(str('parent-handoff-id'), '--parent-handoff-id'),
      cut: cutFlag === undefined ? undefined : cutFlag === BARE_CUT ? (true as const) : cutFlag,
      since: timeFlag(str('since'), '--since'),
      until: timeFlag(str('until'), '--until'),
      limit: limitFlag(str('limit')),
      stale_before: new Date(Date.now() - durationFlag(str('stale-after'), '--stale-after', '2h')).toISOString(),
    };
    const withEnvelope = f['with-envelope'] === true;

    let rows: import('../../store/handoffs.js').HandoffRow[] = [];
    let expose: typeof import('../../store/handoffs.js').exposeHandoff | undefined;
    let liveness: typeof import('../../store/handoff-list.js').livenessOf | undefined;
    if (storeExists(ctx.env, ctx.cwd)) {
      const { openReader, closeDb } = await import('../../store/db.js');
      const { listHandoffs, livenessOf } = await import('../../store/handoff-list.js');
      liveness = livenessOf;
      ({ exposeHandoff: expose } = await import('../../store/handoffs.js'));
      const db = openReader(ctx.env, ctx.cwd);
      try {
        if (db !== null) rows = listHandoffs(db, filters);
      } finally {
        closeDb(db);
      }
    }
    const text =
      rows.length === 0
        ? 'No handoffs matched.'
        : `${renderTable(
            ['id', 'created_at', 'agent_id', 'agent_state', 'cut_reason', 'kind', 'plan_task_id', 'parent_handoff_id', 'contract_id'],
            rows.map((r) => [r.id, r.created_at, r.agent_id, r.agent_state, r.cut_reason, r.kind, r.plan_task_id, r.parent_handoff_id, r.contract_id]),
          )}\n${rows.length} handoff(s).`;
    return {
      json: {
        status: 'ok',
        count: rows.length,
        handoffs: rows.map((r) => ({ ...expose!(r, withEnvelope), liveness: liveness!(r, filters.stale_before) })),
      },
      text,
    };
  },
});
